// Per-thread arrays indexed with data-dependent subscripts, which forces them
// into local memory (.local, ld/st.local): a small per-thread histogram, a
// permutation walk, and a sliding-window ring buffer.
// Stresses: stack frame / local-memory addressing mixed with register values.
#include <cuda_runtime.h>

#define LA_K 24

extern "C" __global__ void local_histogram(const unsigned char *data, int *out,
                                           int per_thread, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  long start = (long)t * per_thread;
  if (per_thread <= 0 || start >= n) return;
  int counts[16];
#pragma unroll
  for (int k = 0; k < 16; ++k) counts[k] = 0;
  long end = start + per_thread < n ? start + per_thread : n;
  for (long i = start; i < end; ++i) counts[data[i] & 15]++;
  int best = 0;
  for (int k = 1; k < 16; ++k)
    if (counts[k] > counts[best]) best = k;
  out[t] = best * 1000 + counts[best];
}

// Follow a permutation stored in a local array for `steps` hops.
extern "C" __global__ void local_perm_walk(const int *seed, int *out, int steps,
                                           int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  int perm[LA_K];
  unsigned s = (unsigned)seed[t];
  for (int k = 0; k < LA_K; ++k) perm[k] = k;
  for (int k = LA_K - 1; k > 0; --k) {  // Fisher-Yates with an LCG
    s = s * 1103515245u + 12345u;
    int j = (int)((s >> 8) % (unsigned)(k + 1));
    int tmp = perm[k]; perm[k] = perm[j]; perm[j] = tmp;
  }
  int pos = (int)((unsigned)seed[t] % LA_K);
  unsigned acc = 0u;
  for (int k = 0; k < steps; ++k) {
    pos = perm[pos];
    acc = acc * 31u + (unsigned)pos;
  }
  out[t] = (int)acc;
}

// Moving average with a ring buffer of runtime length w (1..16).
extern "C" __global__ void local_ring_average(const float *in, float *out,
                                             int w, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n || w < 1 || w > 16) return;
  float ring[16];
  for (int k = 0; k < w; ++k) ring[k] = 0.0f;
  float sum = 0.0f;
  int head = 0;
  int lo = t - 32 < 0 ? 0 : t - 32;
  for (int i = lo; i <= t; ++i) {
    sum += in[i] - ring[head];
    ring[head] = in[i];
    head = (head + 1 == w) ? 0 : head + 1;
  }
  out[t] = sum / (float)w;
}

// Each thread sorts 16 floats held in a fully unrolled local array using an
// odd-even transposition network (all indices compile-time constants, so the
// array lives entirely in registers), then writes them back with a checksum.
// Stresses: 16 values live at once, min/max pairs and many register renames.
#include <cuda_runtime.h>

#define OE_K 16

__device__ __forceinline__ void cswap(float &a, float &b) {
  float lo = fminf(a, b), hi = fmaxf(a, b);
  a = lo;
  b = hi;
}

extern "C" __global__ void odd_even_sort16(const float *in, float *out,
                                           float *sums, int nrows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  float v[OE_K];
#pragma unroll
  for (int i = 0; i < OE_K; ++i) v[i] = in[(long)r * OE_K + i];
#pragma unroll
  for (int phase = 0; phase < OE_K; ++phase) {
#pragma unroll
    for (int i = phase & 1; i + 1 < OE_K; i += 2) cswap(v[i], v[i + 1]);
  }
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < OE_K; ++i) {
    out[(long)r * OE_K + i] = v[i];
    s += v[i] * (float)(i + 1);
  }
  sums[r] = s;
}

// Integer variant with 8 keys and a branchy swap (selects on a predicate).
extern "C" __global__ void odd_even_sort8_int(int *data, int nrows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  int v[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) v[i] = data[r * 8 + i];
#pragma unroll
  for (int phase = 0; phase < 8; ++phase)
#pragma unroll
    for (int i = phase & 1; i + 1 < 8; i += 2) {
      bool gt = v[i] > v[i + 1];
      int a = gt ? v[i + 1] : v[i];
      int b = gt ? v[i] : v[i + 1];
      v[i] = a;
      v[i + 1] = b;
    }
#pragma unroll
  for (int i = 0; i < 8; ++i) data[r * 8 + i] = v[i];
}

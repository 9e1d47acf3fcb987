// __noinline__ device functions with several scalar/pointer/struct parameters
// and return values (float, int, 64-bit, struct), called from kernels and from
// each other (no recursion). Stresses: .func param/return passing, call ABI.
#include <cuda_runtime.h>
#include <stdint.h>

struct Pair { float lo, hi; };

__device__ __noinline__ float lerp_clamp(float a, float b, float t, float lo,
                                         float hi) {
  float v = a + t * (b - a);
  return fminf(fmaxf(v, lo), hi);
}

__device__ __noinline__ int weighted_index(int x, int y, int z, int w0, int w1,
                                           int w2, int mod) {
  int v = x * w0 + y * w1 + z * w2;
  int m = v % mod;
  return m < 0 ? m + mod : m;
}

__device__ __noinline__ uint64_t mix64(uint64_t a, uint32_t b, int shift) {
  uint64_t v = a ^ ((uint64_t)b << (shift & 31));
  v *= 0xff51afd7ed558ccdull;
  return v ^ (v >> 33);
}

__device__ __noinline__ Pair minmax3(float a, float b, float c) {
  Pair p;
  p.lo = fminf(a, fminf(b, c));
  p.hi = fmaxf(a, fmaxf(b, c));
  return p;
}

__device__ __noinline__ float combine(const float *v, int len, float lo,
                                      float hi, float s) {
  float acc = 0.0f;
  for (int k = 0; k < len; ++k)
    acc += lerp_clamp(lo, hi, v[k] * s, -4.0f, 4.0f);
  return acc;
}

extern "C" __global__ void calls_kernel(const float *a, const float *b,
                                        const int *idx, float *out,
                                        uint64_t *hashes, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i], y = b[i];
  float l = lerp_clamp(x, y, 0.25f, -1.0f, 1.0f);
  int j = weighted_index(idx[i] & 0xffff, i & 0xffff, (int)threadIdx.x, 7, 13, 5, n);
  Pair p = minmax3(x, y, a[j]);
  int len = n - i < 4 ? n - i : 4;
  float c = combine(a + i, len, p.lo, p.hi, l);
  out[i] = c + p.hi - p.lo + l;
  hashes[i] = mix64((uint64_t)(int64_t)idx[i], (uint32_t)j, i);
}

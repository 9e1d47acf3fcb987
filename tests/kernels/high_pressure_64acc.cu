// Very high register pressure: 64 independent float accumulators updated in
// every iteration of a runtime-length loop (all live across the back edge),
// and 32 64-bit integer accumulators. Stresses: allocation near/over the
// register limit, possible spilling, long live ranges.
#include <cuda_runtime.h>
#include <stdint.h>

#define HP_N 64

extern "C" __global__ void pressure_64_float(const float *in, float *out,
                                             int iters, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  float acc[HP_N];
  float x = in[t];
#pragma unroll
  for (int k = 0; k < HP_N; ++k) acc[k] = x * (float)(k + 1);
  for (int it = 0; it < iters; ++it) {
    float v = in[(t + it) % n];
#pragma unroll
    for (int k = 0; k < HP_N; ++k)
      acc[k] = fmaf(acc[k], 0.999f - 0.001f * (float)(k & 7), v * (float)(k + 1));
  }
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < HP_N; ++k) s += acc[k] * (float)((k % 5) + 1);
  out[t] = s;
}

extern "C" __global__ void pressure_32_u64(const uint64_t *in, uint64_t *out,
                                           int iters, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  uint64_t acc[32];
  uint64_t x = in[t];
#pragma unroll
  for (int k = 0; k < 32; ++k) acc[k] = x ^ (0x9E3779B97F4A7C15ull * (uint64_t)(k + 1));
  for (int it = 0; it < iters; ++it) {
    uint64_t v = in[(t + it) % n];
#pragma unroll
    for (int k = 0; k < 32; ++k) acc[k] = (acc[k] << 1 | acc[k] >> 63) + (v ^ (uint64_t)k);
  }
  uint64_t h = 0;
#pragma unroll
  for (int k = 0; k < 32; ++k) h = h * 31ull + acc[k];
  out[t] = h;
}

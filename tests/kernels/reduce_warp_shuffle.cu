// Warp-shuffle reductions (__shfl_down_sync / __shfl_xor_sync) for float sums
// and a 64-bit integer sum, combined per block through a small shared array.
// Stresses: shuffle results feeding long add chains, 64-bit values split into
// two 32-bit shuffles, and registers live across a barrier.
#include <cuda_runtime.h>
#include <stdint.h>

#define WBLOCK 256

__device__ __forceinline__ float warp_sum_down(float v) {
  for (int off = 16; off > 0; off >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, off);
  return v;
}

__device__ __forceinline__ unsigned long long warp_sum_xor_u64(unsigned long long v) {
  for (int off = 16; off > 0; off >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

extern "C" __global__ void warp_shuffle_sum(const float *in, float *out, int n) {
  if (blockDim.x != WBLOCK) return;
  __shared__ float warp_part[WBLOCK / 32];
  int i = blockIdx.x * WBLOCK + threadIdx.x;
  float v = (i < n) ? in[i] : 0.0f;
  v = warp_sum_down(v);
  int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  if (lane == 0) warp_part[wid] = v;
  __syncthreads();
  if (wid == 0) {
    float w = (lane < WBLOCK / 32) ? warp_part[lane] : 0.0f;
    w = warp_sum_down(w);
    if (lane == 0) out[blockIdx.x] = w;
  }
}

// Sum of squares of ints accumulated in 64 bits, plus the per-warp maximum.
extern "C" __global__ void warp_shuffle_i64(const int *in, unsigned long long *sumsq,
                                            int *wmax, int n) {
  if (blockDim.x & 31) return;  // full-warp shuffles need whole warps
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int x = (i < n) ? in[i] : 0;
  unsigned long long s = (unsigned long long)((long long)x * x);
  int m = (i < n) ? x : (int)0x80000000;
  s = warp_sum_xor_u64(s);
  for (int off = 16; off > 0; off >>= 1)
    m = max(m, __shfl_down_sync(0xffffffffu, m, off));
  int gw = i >> 5;
  if ((threadIdx.x & 31) == 0 && gw * 32 < n) {
    sumsq[gw] = s;
    wmax[gw] = m;
  }
}

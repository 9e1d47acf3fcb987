// Inclusive prefix sum within a block using the Hillis-Steele algorithm with
// double-buffered shared memory, plus a warp-level inclusive scan via __shfl_up_sync.
// Stresses: ping-pong buffer pointers as loop-carried values and conditional adds.
#include <cuda_runtime.h>

#define HS_BLOCK 256

extern "C" __global__ void scan_inclusive_hs(const unsigned *in, unsigned *out, int n) {
  if (blockDim.x != HS_BLOCK) return;
  __shared__ unsigned buf[2][HS_BLOCK];
  int tid = threadIdx.x;
  int gi = blockIdx.x * HS_BLOCK + tid;
  int pin = 0, pout = 1;
  buf[0][tid] = (gi < n) ? in[gi] : 0u;
  __syncthreads();
  for (int off = 1; off < HS_BLOCK; off <<= 1) {
    unsigned v = buf[pin][tid];
    if (tid >= off) v += buf[pin][tid - off];
    buf[pout][tid] = v;
    __syncthreads();
    int t = pin; pin = pout; pout = t;
  }
  if (gi < n) out[gi] = buf[pin][tid];
}

// Warp-level inclusive scan of floats, one scan per 32 consecutive elements.
extern "C" __global__ void scan_inclusive_warp(const float *in, float *out, int n) {
  int gi = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  float v = (gi < n) ? in[gi] : 0.0f;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    float u = __shfl_up_sync(0xffffffffu, v, off);
    if (lane >= off) v += u;
  }
  if (gi < n) out[gi] = v;
}

// Block-level tree reduction (sum, and min/max of ints) in shared memory.
// Stresses: values live across __syncthreads barriers, a loop with a halving
// stride (loop-carried induction variable), and shared-memory address arithmetic.
#include <cuda_runtime.h>
#include <stdint.h>

#define RBLOCK 256

// out[blockIdx.x] = sum of in[i] over the block's grid-stride range.
extern "C" __global__ void reduce_sum_tree(const float *in, float *out, int n) {
  if (blockDim.x != RBLOCK) return;
  __shared__ float sdata[RBLOCK];
  unsigned tid = threadIdx.x;
  float acc = 0.0f;
  for (int i = blockIdx.x * RBLOCK + tid; i < n; i += RBLOCK * gridDim.x)
    acc += in[i];
  sdata[tid] = acc;
  __syncthreads();
  for (unsigned s = RBLOCK / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// Simultaneous min, max and sum of ints: three shared arrays, three live values.
extern "C" __global__ void reduce_minmax_tree(const int *in, int *out_min,
                                              int *out_max, long long *out_sum,
                                              int n) {
  if (blockDim.x != RBLOCK) return;
  __shared__ int smin[RBLOCK];
  __shared__ int smax[RBLOCK];
  __shared__ long long ssum[RBLOCK];
  unsigned tid = threadIdx.x;
  int mn = 0x7fffffff, mx = (int)0x80000000;
  long long sm = 0;
  for (int i = blockIdx.x * RBLOCK + tid; i < n; i += RBLOCK * gridDim.x) {
    int v = in[i];
    mn = min(mn, v);
    mx = max(mx, v);
    sm += v;
  }
  smin[tid] = mn;
  smax[tid] = mx;
  ssum[tid] = sm;
  __syncthreads();
  for (unsigned s = RBLOCK / 2; s > 0; s >>= 1) {
    if (tid < s) {
      smin[tid] = min(smin[tid], smin[tid + s]);
      smax[tid] = max(smax[tid], smax[tid + s]);
      ssum[tid] += ssum[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) {
    out_min[blockIdx.x] = smin[0];
    out_max[blockIdx.x] = smax[0];
    out_sum[blockIdx.x] = ssum[0];
  }
}

// 1D stencils: a radius-3 weighted stencil with a shared-memory halo, and a
// 3-point Jacobi smoother iterated in registers with a sliding window.
// Stresses: halo index clamping, 7 live coefficients, rotating window values.
#include <cuda_runtime.h>

#define S1_BLOCK 256
#define S1_R 3

extern "C" __global__ void stencil1d_r3(const float *in, float *out, int n) {
  if (blockDim.x != S1_BLOCK) return;
  __shared__ float tile[S1_BLOCK + 2 * S1_R];
  int gi = blockIdx.x * S1_BLOCK + threadIdx.x;
  int li = threadIdx.x + S1_R;
  tile[li] = (gi < n) ? in[gi] : 0.0f;
  if (threadIdx.x < S1_R) {
    int lo = gi - S1_R, hi = gi + S1_BLOCK;
    tile[li - S1_R] = (lo >= 0 && lo < n) ? in[lo] : 0.0f;
    tile[li + S1_BLOCK] = (hi < n) ? in[hi] : 0.0f;
  }
  __syncthreads();
  if (gi >= n) return;
  const float w0 = 0.4f, w1 = 0.2f, w2 = 0.07f, w3 = 0.03f;
  float r = w0 * tile[li] + w1 * (tile[li - 1] + tile[li + 1]) +
            w2 * (tile[li - 2] + tile[li + 2]) + w3 * (tile[li - 3] + tile[li + 3]);
  out[gi] = r;
}

// Each thread smooths a contiguous chunk of `chunk` elements with a 3-point
// average, keeping the left/centre/right values in rotating registers.
extern "C" __global__ void stencil1d_sliding(const float *in, float *out,
                                             int n, int chunk) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (chunk <= 0) return;
  long start = (long)t * chunk;
  if (start >= n) return;
  long end = start + chunk;
  if (end > n) end = n;
  float left = (start > 0) ? in[start - 1] : in[start];
  float mid = in[start];
  for (long i = start; i < end; ++i) {
    float right = (i + 1 < n) ? in[i + 1] : mid;
    out[i] = 0.25f * left + 0.5f * mid + 0.25f * right;
    left = mid;
    mid = right;
  }
}

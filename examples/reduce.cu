// Shared-memory tree reduction with __launch_bounds__ (built for sm_90 only,
// see CMakeLists.txt).
#include "kernels.h"

constexpr int kBlock = 256;

__global__ void __launch_bounds__(kBlock, 4)
reduce_kernel(int n, const float *__restrict__ in, float *__restrict__ out) {
  __shared__ float partial[kBlock];
  float sum = 0.0f;
  for (int i = blockIdx.x * kBlock + threadIdx.x; i < n; i += gridDim.x * kBlock)
    sum += in[i];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int stride = kBlock / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

cudaError_t reduce_sum(int n, const float *in, float *out) {
  const int blocks = 64;
  float *partials = nullptr;
  cudaError_t err = cudaMalloc(&partials, blocks * sizeof(float));
  if (err != cudaSuccess) return err;
  reduce_kernel<<<blocks, kBlock>>>(n, in, partials);
  reduce_kernel<<<1, kBlock>>>(blocks, partials, out);
  err = cudaGetLastError();
  cudaFree(partials);
  return err;
}

// Convolutions with filters in __constant__ memory: a 1D 17-tap filter with a
// shared-memory tile, and a 2D 5x5 filter read directly from global memory with
// clamp-to-edge addressing. Stresses: ld.const operands, unrolled MAC chains.
#include <cuda_runtime.h>

#define C1_TAPS 17
#define C1_R (C1_TAPS / 2)
#define C1_BLOCK 256
#define C2_R 2
#define C2_W (2 * C2_R + 1)

__constant__ float c_filter1d[C1_TAPS];
__constant__ float c_filter2d[C2_W * C2_W];

extern "C" __global__ void conv1d_const(const float *in, float *out, int n) {
  if (blockDim.x != C1_BLOCK) return;
  __shared__ float tile[C1_BLOCK + 2 * C1_R];
  int gi = blockIdx.x * C1_BLOCK + threadIdx.x;
  for (int k = threadIdx.x; k < C1_BLOCK + 2 * C1_R; k += C1_BLOCK) {
    int src = blockIdx.x * C1_BLOCK + k - C1_R;
    tile[k] = (src >= 0 && src < n) ? in[src] : 0.0f;
  }
  __syncthreads();
  if (gi >= n) return;
  float acc = 0.0f;
#pragma unroll
  for (int t = 0; t < C1_TAPS; ++t) acc = fmaf(c_filter1d[t], tile[threadIdx.x + t], acc);
  out[gi] = acc;
}

extern "C" __global__ void conv2d_const_clamp(const float *in, float *out,
                                              int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float acc = 0.0f;
#pragma unroll
  for (int dy = -C2_R; dy <= C2_R; ++dy) {
    int yy = min(max(y + dy, 0), height - 1);
#pragma unroll
    for (int dx = -C2_R; dx <= C2_R; ++dx) {
      int xx = min(max(x + dx, 0), width - 1);
      acc = fmaf(c_filter2d[(dy + C2_R) * C2_W + (dx + C2_R)],
                 in[(long)yy * width + xx], acc);
    }
  }
  out[(long)y * width + x] = acc;
}

// Matrix transpose (rows x cols -> cols x rows) through a 32x33 padded shared
// tile to avoid bank conflicts, with a 32x8 thread block doing 4 rows each.
// Stresses: unrolled strided loads/stores and 2D index arithmetic with guards.
#include <cuda_runtime.h>

#define TT 32
#define TROWS 8

extern "C" __global__ void transpose_padded(const float *in, float *out,
                                            int rows, int cols) {
  if (blockDim.x != TT || blockDim.y != TROWS) return;
  __shared__ float tile[TT][TT + 1];
  int x = blockIdx.x * TT + threadIdx.x;  // column in input
  int y0 = blockIdx.y * TT + threadIdx.y; // row in input
#pragma unroll
  for (int j = 0; j < TT; j += TROWS) {
    int y = y0 + j;
    tile[threadIdx.y + j][threadIdx.x] =
        (x < cols && y < rows) ? in[(long)y * cols + x] : 0.0f;
  }
  __syncthreads();
  int ox = blockIdx.y * TT + threadIdx.x;  // column in output = input row
  int oy0 = blockIdx.x * TT + threadIdx.y; // row in output = input column
#pragma unroll
  for (int j = 0; j < TT; j += TROWS) {
    int oy = oy0 + j;
    if (ox < rows && oy < cols)
      out[(long)oy * rows + ox] = tile[threadIdx.x][threadIdx.y + j];
  }
}

// 64-bit element variant (double) with the same padded scheme.
extern "C" __global__ void transpose_padded_f64(const double *in, double *out,
                                                int rows, int cols) {
  if (blockDim.x != TT || blockDim.y != TROWS) return;
  __shared__ double tile[TT][TT + 1];
  int x = blockIdx.x * TT + threadIdx.x;
  int y0 = blockIdx.y * TT + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TT; j += TROWS)
    tile[threadIdx.y + j][threadIdx.x] =
        (x < cols && y0 + j < rows) ? in[(long)(y0 + j) * cols + x] : 0.0;
  __syncthreads();
  int ox = blockIdx.y * TT + threadIdx.x;
  int oy0 = blockIdx.x * TT + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TT; j += TROWS)
    if (ox < rows && oy0 + j < cols)
      out[(long)(oy0 + j) * rows + ox] = tile[threadIdx.x][threadIdx.y + j];
}

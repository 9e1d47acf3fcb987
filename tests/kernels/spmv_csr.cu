// Sparse matrix-vector product y = A*x + beta*y with A in CSR format: a scalar
// kernel (one row per thread) and a vector kernel (one warp per row with a
// shuffle reduction). Stresses: indirect loads, variable trip counts, shuffles.
#include <cuda_runtime.h>

extern "C" __global__ void spmv_csr_scalar(const int *row_ptr, const int *col_idx,
                                           const float *vals, const float *x,
                                           float *y, float beta, int nrows,
                                           int ncols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  int b = row_ptr[r], e = row_ptr[r + 1];
  float sum = 0.0f;
  for (int k = b; k < e; ++k) {
    int c = col_idx[k];
    if (c >= 0 && c < ncols) sum = fmaf(vals[k], x[c], sum);
  }
  y[r] = sum + beta * y[r];
}

extern "C" __global__ void spmv_csr_vector(const int *row_ptr, const int *col_idx,
                                           const float *vals, const float *x,
                                           float *y, float beta, int nrows,
                                           int ncols) {
  if (blockDim.x & 31) return;
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (warp >= nrows) return;  // uniform per warp
  int b = row_ptr[warp], e = row_ptr[warp + 1];
  float sum = 0.0f;
  for (int k = b + lane; k < e; k += 32) {
    int c = col_idx[k];
    if (c >= 0 && c < ncols) sum = fmaf(vals[k], x[c], sum);
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1)
    sum += __shfl_down_sync(0xffffffffu, sum, off);
  if (lane == 0) y[warp] = sum + beta * y[warp];
}

// Double-precision CSR with the row's max |a_ij| tracked alongside the sum.
extern "C" __global__ void spmv_csr_f64_rowmax(const int *row_ptr,
                                               const int *col_idx,
                                               const double *vals,
                                               const double *x, double *y,
                                               double *rowmax, int nrows,
                                               int ncols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  double sum = 0.0, mx = 0.0;
  for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) {
    int c = col_idx[k];
    double v = vals[k];
    mx = fmax(mx, fabs(v));
    if (c >= 0 && c < ncols) sum = fma(v, x[c], sum);
  }
  y[r] = sum;
  rowmax[r] = mx;
}

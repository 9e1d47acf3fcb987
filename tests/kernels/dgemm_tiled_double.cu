// DGEMM-style C = A*B + C in double precision, 32x32 shared tiles and a 2x4
// register-blocked double accumulator per thread, plus a double dot-product kernel.
// Stresses: 64-bit float registers (.f64) in pairs, fma.rn.f64 chains.
#include <cuda_runtime.h>

#define DT 32
#define DR 2
#define DC 4
// blockDim = (DT/DC, DT/DR) = (8, 16)

extern "C" __global__ void dgemm_tiled(const double *A, const double *B,
                                       double *C, int M, int N, int K) {
  if (blockDim.x != DT / DC || blockDim.y != DT / DR) return;
  __shared__ double As[DT][DT + 1];
  __shared__ double Bs[DT][DT + 1];
  int tx = threadIdx.x, ty = threadIdx.y;
  int tid = ty * (DT / DC) + tx;  // 0..127
  int row0 = blockIdx.y * DT, col0 = blockIdx.x * DT;
  double acc[DR][DC];
#pragma unroll
  for (int i = 0; i < DR; ++i)
#pragma unroll
    for (int j = 0; j < DC; ++j) acc[i][j] = 0.0;
  for (int k0 = 0; k0 < K; k0 += DT) {
    for (int e = tid; e < DT * DT; e += 128) {
      int r = e / DT, c = e % DT;
      As[r][c] = (row0 + r < M && k0 + c < K) ? A[(long)(row0 + r) * K + k0 + c] : 0.0;
      Bs[r][c] = (k0 + r < K && col0 + c < N) ? B[(long)(k0 + r) * N + col0 + c] : 0.0;
    }
    __syncthreads();
#pragma unroll 8
    for (int kk = 0; kk < DT; ++kk) {
      double a0 = As[ty * DR][kk], a1 = As[ty * DR + 1][kk];
#pragma unroll
      for (int j = 0; j < DC; ++j) {
        double b = Bs[kk][tx * DC + j];
        acc[0][j] = fma(a0, b, acc[0][j]);
        acc[1][j] = fma(a1, b, acc[1][j]);
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < DR; ++i)
#pragma unroll
    for (int j = 0; j < DC; ++j) {
      int r = row0 + ty * DR + i, c = col0 + tx * DC + j;
      if (r < M && c < N) C[(long)r * N + c] += acc[i][j];
    }
}

// Compensated (Kahan) double dot product, one partial per thread, grid-stride.
extern "C" __global__ void ddot_kahan(const double *x, const double *y,
                                      double *partial, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = blockDim.x * gridDim.x;
  double sum = 0.0, comp = 0.0;
  for (int i = t; i < n; i += stride) {
    double yk = fma(x[i], y[i], -comp);
    double tk = sum + yk;
    comp = (tk - sum) - yk;
    sum = tk;
  }
  if (t < n) partial[t] = sum + comp;
}

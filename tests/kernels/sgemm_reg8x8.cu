// SGEMM C = A*B (row-major) with 128x128 block tiles and a fully unrolled 8x8
// register accumulator per thread (64 accumulators + 16 operands live).
// Stresses: very high float register pressure across the k-tile loop.
#include <cuda_runtime.h>

#define BT 128
#define BK 8
#define TM 8
#define TN 8
// blockDim.x = (BT/TM)*(BT/TN) = 256

extern "C" __global__ void sgemm_reg_8x8(const float *A, const float *B,
                                         float *C, int M, int N, int K) {
  if (blockDim.x != 256) return;
  __shared__ float As[BK][BT];
  __shared__ float Bs[BK][BT];
  int tid = threadIdx.x;
  int trow = tid / (BT / TN), tcol = tid % (BT / TN);
  int row0 = blockIdx.y * BT, col0 = blockIdx.x * BT;
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
    for (int r = 0; r < 4; ++r) {  // 1024 elements of each tile / 256 threads
      int e = tid + r * 256;
      int am = e / BK, ak = e % BK;
      int gm = row0 + am, gk = k0 + ak;
      As[ak][am] = (gm < M && gk < K) ? A[(long)gm * K + gk] : 0.0f;
      int bk = e / BT, bn = e % BT;
      int gn = col0 + bn, gkb = k0 + bk;
      Bs[bk][bn] = (gn < N && gkb < K) ? B[(long)gkb * N + gn] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[kk][trow * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = Bs[kk][tcol * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    int r = row0 + trow * TM + i;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      int c = col0 + tcol * TN + j;
      if (r < M && c < N) C[(long)r * N + c] = acc[i][j];
    }
  }
}

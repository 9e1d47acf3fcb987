// Tiled SGEMM C = alpha*A*B + beta*C (row-major, MxK * KxN) with 64x64 block
// tiles in shared memory and a fully unrolled 4x4 register accumulator per thread.
// Stresses: 16 accumulators + 8 operand registers live across the k-loop.
#include <cuda_runtime.h>

#define TS 64
#define TK 8
#define RM 4
#define RN 4
// blockDim = (TS/RN, TS/RM) = (16, 16)

extern "C" __global__ void sgemm_tiled_4x4(const float *A, const float *B,
                                           float *C, int M, int N, int K,
                                           float alpha, float beta) {
  if (blockDim.x != TS / RN || blockDim.y != TS / RM) return;
  __shared__ float As[TK][TS];
  __shared__ float Bs[TK][TS];
  int tx = threadIdx.x, ty = threadIdx.y;
  int tid = ty * (TS / RN) + tx;  // 0..255
  int row0 = blockIdx.y * TS, col0 = blockIdx.x * TS;
  float acc[RM][RN];
#pragma unroll
  for (int i = 0; i < RM; ++i)
#pragma unroll
    for (int j = 0; j < RN; ++j) acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < K; k0 += TK) {
    // 256 threads load 64x8 of A and 8x64 of B (two elements each).
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      int e = tid + r * 256;
      int am = e / TK, ak = e % TK;
      int ga = row0 + am, gk = k0 + ak;
      As[ak][am] = (ga < M && gk < K) ? A[(long)ga * K + gk] : 0.0f;
      int bk = e / TS, bn = e % TS;
      int gb = col0 + bn, gkb = k0 + bk;
      Bs[bk][bn] = (gb < N && gkb < K) ? B[(long)gkb * N + gb] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < TK; ++kk) {
      float a[RM], b[RN];
#pragma unroll
      for (int i = 0; i < RM; ++i) a[i] = As[kk][ty * RM + i];
#pragma unroll
      for (int j = 0; j < RN; ++j) b[j] = Bs[kk][tx * RN + j];
#pragma unroll
      for (int i = 0; i < RM; ++i)
#pragma unroll
        for (int j = 0; j < RN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < RM; ++i) {
    int r = row0 + ty * RM + i;
#pragma unroll
    for (int j = 0; j < RN; ++j) {
      int c = col0 + tx * RN + j;
      if (r < M && c < N) {
        long idx = (long)r * N + c;
        C[idx] = alpha * acc[i][j] + beta * C[idx];
      }
    }
  }
}

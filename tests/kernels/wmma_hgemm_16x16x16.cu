// Tensor-core GEMM D = alpha*A*B + beta*C on 16x16x16 tiles (half in, float
// accumulate; A row-major MxK, B column-major KxN, C/D row-major), one warp per
// output tile. Uses the builtins that nvcuda::wmma wraps (<mma.h> needs CCCL's
// <nv/target>, absent here). Stresses: 8+8+8 fragment registers per mma.sync.
#include <cuda_runtime.h>
#include <stdint.h>

// Half values are passed as raw IEEE-754 binary16 bit patterns.
extern "C" __global__ void wmma_gemm_f16_f32(const uint16_t *A, const uint16_t *B,
                                             const float *C, float *D, int M,
                                             int N, int K, float alpha,
                                             float beta) {
  if ((blockDim.x & 31) || (M & 15) || (N & 15) || (K & 15)) return;
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int tiles_n = N >> 4;
  int tm = warp / tiles_n, tn = warp % tiles_n;
  if (tm >= (M >> 4)) return;  // whole warp leaves together
  int a[8], b[8];
  float acc[8], c[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) acc[i] = 0.0f;
  for (int k = 0; k < K; k += 16) {
    const uint16_t *pa = A + (long)(tm * 16) * K + k;  // row-major, ldm = K
    const uint16_t *pb = B + (long)(tn * 16) * K + k;  // col-major, ldm = K
    __hmma_m16n16k16_ld_a(a, (const int *)pa, K, 0);
    __hmma_m16n16k16_ld_b(b, (const int *)pb, K, 1);
    __hmma_m16n16k16_mma_f32f32(acc, a, b, acc, 1, 0);
  }
  const float *pc = C + (long)(tm * 16) * N + tn * 16;
  __hmma_m16n16k16_ld_c_f32(c, pc, N, 0);
#pragma unroll
  for (int i = 0; i < 8; ++i) acc[i] = alpha * acc[i] + beta * c[i];
  __hmma_m16n16k16_st_c_f32(D + (long)(tm * 16) * N + tn * 16, acc, N, 0);
}

// Single tile with two chained MMAs sharing A: D0 = A*B0, D1 = A*B1 + D0.
extern "C" __global__ void wmma_chain2(const uint16_t *A, const uint16_t *B0,
                                       const uint16_t *B1, float *D0, float *D1,
                                       int n) {
  if (blockDim.x != 32 || n < 256) return;
  int a[8], b0[8], b1[8];
  float z[8], d0[8], d1[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) z[i] = 0.0f;
  __hmma_m16n16k16_ld_a(a, (const int *)A, 16, 0);
  __hmma_m16n16k16_ld_b(b0, (const int *)B0, 16, 0);
  __hmma_m16n16k16_ld_b(b1, (const int *)B1, 16, 0);
  __hmma_m16n16k16_mma_f32f32(d0, a, b0, z, 0, 0);
  __hmma_m16n16k16_mma_f32f32(d1, a, b1, d0, 0, 0);
  __hmma_m16n16k16_st_c_f32(D0, d0, 16, 0);
  __hmma_m16n16k16_st_c_f32(D1, d1, 16, 0);
}

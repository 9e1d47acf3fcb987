// nvregalloc-promote-locals-loops plans per array, on what the array will be
// once every planned rewrite is applied (promote::nest): it unrolls only the
// loops whose counters step an offset into an array that then becomes
// registers. An outer loop that reaches the array through an inner loop's
// counter or by data stays rolled; no loop is unrolled for an array that
// stays in memory anyway.
// REQUIRES: cuda
// RUN: %clang_cuda -fpass-plugin=%plugin -S %s -o %t.ptx -Rpass=nvregalloc-promote-locals-loops \
// RUN:   -Rpass-missed=nvregalloc-promote-locals-loops 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t.ptx

// 1. The inner loops step the offsets and are unrolled; the 12-iteration
// outer loop reaches the array through them and by data only, and stays a
// loop: 16 loads to fill the array, 16 in the outer loop's body and one of
// idx, not 12 copies of the body's 17 (220 loads in all).
// CHECK-LABEL: .entry _Z5outerPKfPfiPKi(
// CHECK-NOT:   __local_depot
// CHECK-COUNT-33: ld.global
// CHECK-NOT:   ld.global
// CHECK:       ret;
__global__ void outer(const float *in, float *out, int n, const int *idx) {
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  float w[16];
  // REMARK-DAG: promote-locals-plan.cu:[[@LINE+1]]:3: remark: function _Z5outerPKfPfiPKi: loop over a 64-byte local array, 16 iterations of {{[0-9]+}} instructions: unrolled fully
  for (int i = 0; i < 16; ++i) w[i] = in[i * n + t];
  // REMARK-DAG: promote-locals-plan.cu:[[@LINE+1]]:3: remark: function _Z5outerPKfPfiPKi: loop over a 64-byte local array, 12 iterations of {{[0-9]+}} instructions: left to LLVM (the array's offsets vary with inner loops or with data only, and it becomes registers without unrolling this loop)
  for (int y = 0; y < 12; ++y) {
    float s = 0;
    // REMARK-DAG: promote-locals-plan.cu:[[@LINE+1]]:5: remark: function _Z5outerPKfPfiPKi: loop over a 64-byte local array, 16 iterations of {{[0-9]+}} instructions: unrolled fully
    for (int i = 0; i < 16; ++i) s += w[i] * in[y * n + i];
    out[y * n + t] = s + w[idx[y] & 15];
  }
}

// 2. Read once at a data-dependent index outside any loop that reuses it:
// promote-locals-select will not take it, so its loop, which would make the
// other offsets constants, is not unrolled for it (ptxas decides).
__global__ void scratch(const float *in, float *out, const int *idx) {
  int t = threadIdx.x;
  float h[7];
  // REMARK-DAG: promote-locals-plan.cu:[[@LINE+1]]:3: remark: function _Z7scratchPKfPfPKi: loop over a 28-byte local array, 7 iterations of {{[0-9]+}} instructions: left to LLVM (the array is indexed by data, and no rewrite makes it registers)
  for (int i = 0; i < 7; ++i) {
    float x = in[t * 7 + i];
    h[i] = sinf(x) * expf(x) + logf(fabsf(x) + 1.f) * tanhf(x) + erff(x) * cosf(x);
  }
  out[t] = h[idx[t] % 7];
}

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

// 3. Two 3-iteration loops fill a 3x3 array, one element per iteration of
// a long computation, read at constant offsets after them. Unrolling both
// for the array would copy the computation nine times; rolled, the stores
// select among the nine elements (promote-locals-select) and the array is
// registers all the same: what ptxas makes of stock clang's rolled loops,
// by predicated moves. Both are left to LLVM, whose own unroller takes the
// inner one (3 copies of 96 instructions are under its threshold): three
// copies of the body (three ex2.approx each), each store 9 selects. With no
// loop kept rolled (-nvregalloc-promote-rolled-insts-per-select=0) both are
// unrolled for the array: nine copies.
// RUN: %clang_cuda -fpass-plugin=%plugin -S %s -o %t.unrolled.ptx \
// RUN:   -mllvm -nvregalloc-promote-rolled-insts-per-select=0 \
// RUN:   -Rpass=nvregalloc-promote-locals-loops 2>&1 | FileCheck %s --check-prefix=UNROLLED
// RUN: FileCheck %s --check-prefix=UNROLLED-PTX < %t.unrolled.ptx
// The loop left rolled stays rolled in ptxas too.
// CHECK-LABEL: .entry _Z6rolledPKfPf(
// CHECK-NOT:   __local_depot
// CHECK:       .pragma "nounroll";
// CHECK-COUNT-9: ex2.approx
// CHECK-NOT:   ex2.approx
// CHECK:       ret;
// UNROLLED-PTX-LABEL: .entry _Z6rolledPKfPf(
// UNROLLED-PTX-NOT:   __local_depot
// UNROLLED-PTX-COUNT-27: ex2.approx
// UNROLLED-PTX-NOT:   ex2.approx
// UNROLLED-PTX:       ret;
__global__ void rolled(const float *in, float *out) {
  int t = threadIdx.x;
  float w[3][3];
  // REMARK-DAG: promote-locals-plan.cu:[[@LINE+2]]:3: remark: function _Z6rolledPKfPf: loop over a 36-byte local array, 3 iterations of {{[0-9]+}} instructions: left to LLVM (its iterations are long beside the selects that make the array registers with the loop rolled
  // UNROLLED-DAG: promote-locals-plan.cu:[[@LINE+1]]:3: remark: function _Z6rolledPKfPf: loop over a 36-byte local array, 3 iterations of {{[0-9]+}} instructions: unrolled fully
  for (int a = 0; a < 3; ++a)
    // REMARK-DAG: promote-locals-plan.cu:[[@LINE+2]]:5: remark: function _Z6rolledPKfPf: loop over a 36-byte local array, 3 iterations of {{[0-9]+}} instructions: left to LLVM (its iterations are long beside the selects that make the array registers with the loop rolled
    // UNROLLED-DAG: promote-locals-plan.cu:[[@LINE+1]]:5: remark: function _Z6rolledPKfPf: loop over a 36-byte local array, 3 iterations of {{[0-9]+}} instructions: unrolled fully
    for (int b = 0; b < 3; ++b) {
      float x = in[t * 9 + a * 3 + b];
      w[a][b] = expf(x) * logf(fabsf(x) + 1.f) + tanhf(x) * erff(x);
    }
  out[t] = w[0][0] + w[1][1] * w[2][2] - w[0][2] * w[2][0] + w[1][0] * w[0][1] - w[2][1] * w[1][2];
}

// 5. A loop with only a bound on its trip count (it breaks where it
// inserts) whose counter steps offsets into a bucket data chooses is
// unrolled by that bound, with the loop of at most 3 trips inside it; each
// copy's accesses then select among the 8 elements of their place in a
// bucket, and the array is registers (HeCBench's s8n keeps the four
// nearest points per octant so). Over the bytes selects take, the loops
// stay rolled and the array in memory.
// RUN: %clang_cuda -fpass-plugin=%plugin -S %s -o %t.small.ptx \
// RUN:   -mllvm -nvregalloc-promote-max-dynamic-array-bytes=64 \
// RUN:   -Rpass=nvregalloc-promote-locals-loops 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: FileCheck %s --check-prefix=SMALL-PTX < %t.small.ptx
// CHECK-LABEL: .entry _Z7bucketsPKiPiii(
// CHECK-NOT:   __local_depot
// CHECK:       ret;
// SMALL-PTX-LABEL: .entry _Z7bucketsPKiPiii(
// SMALL-PTX:       __local_depot
// SMALL-PTX:       ret;
__global__ void buckets(const int *xyz, int *out, int n, int radius) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  int near[32];
  for (int j = 0; j < 32; ++j)
    near[j] = radius;
  int x = xyz[i];
  for (int j = 0; j < n; ++j) {
    int y = xyz[j];
    int d = (y - x) * (y - x);
    if (d > radius)
      continue;
    int base = (y > x) * 16 + (y & 1) * 8 + ((y >> 1) & 1) * 4;
    // REMARK-DAG: promote-locals-plan.cu:[[@LINE+2]]:5: remark: function _Z7bucketsPKiPiii: loop over a 128-byte local array, a trip count that is not a constant: unrolled by its bound of 4 iterations
    // SMALL-NOT: unrolled by its bound
    for (int k = 0; k < 4; ++k) {
      if (d < near[base + k]) {
        // REMARK-DAG: promote-locals-plan.cu:[[@LINE+1]]:9: remark: function _Z7bucketsPKiPiii: loop over a 128-byte local array, a trip count that is not a constant: unrolled by its bound of 3 iterations
        for (int kk = 3; kk > k; --kk)
          near[base + kk] = near[base + kk - 1];
        near[base + k] = d;
        break;
      }
    }
  }
  int s = 0;
  for (int j = 0; j < 32; ++j)
    s += near[j] * j;
  out[i] = s;
}

// `promote=small` in a function-options file (choices::PROMOTE) bounds
// nvregalloc-promote-locals to arrays of at most 64 bytes for that function:
// a 128-byte array's loop is unrolled for it by default and left to LLVM at
// `small`, where the array stays in local memory; a 64-byte one's is
// unrolled at either level. nvregalloc-tune tries the level where the
// unrolled code costs registers.
// REQUIRES: cuda
// RUN: printf '_Z4widePKfPfi promote=small\n_Z6narrowPKfPfi promote=small\n' > %t.nvra
// RUN: %clang_cuda -fpass-plugin=%plugin -S %s -o %t.on.ptx -Rpass=nvregalloc-promote-locals-loops \
// RUN:   -Rpass-missed=nvregalloc-promote-locals-loops 2>&1 | FileCheck %s --check-prefix=ON
// RUN: FileCheck %s --check-prefix=ON-PTX < %t.on.ptx
// RUN: %clang_cuda -fpass-plugin=%plugin -mllvm -nvregalloc-function-options=%t.nvra -S %s -o %t.small.ptx \
// RUN:   -Rpass=nvregalloc-promote-locals-loops -Rpass-missed=nvregalloc-promote-locals-loops 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SMALL
// RUN: FileCheck %s --check-prefix=SMALL-PTX < %t.small.ptx

// ON-DAG:    remark: function _Z4widePKfPfi: loop over a 128-byte local array, 32 iterations of {{[0-9]+}} instructions: unrolled fully
// ON-DAG:    remark: function _Z6narrowPKfPfi: loop over a 64-byte local array, 16 iterations of {{[0-9]+}} instructions: unrolled fully
// SMALL-DAG: remark: function _Z4widePKfPfi: loop over a 128-byte local array, 32 iterations of {{[0-9]+}} instructions: left to LLVM (array over the bytes promoted for (-nvregalloc-promote-max-array-bytes, or promote=small))
// SMALL-DAG: remark: function _Z6narrowPKfPfi: loop over a 64-byte local array, 16 iterations of {{[0-9]+}} instructions: unrolled fully

// ON-PTX-NOT:    __local_depot
// SMALL-PTX:     .entry _Z4widePKfPfi(
// SMALL-PTX:     __local_depot
// SMALL-PTX-LABEL: .entry _Z6narrowPKfPfi(
// SMALL-PTX-NOT: __local_depot

__global__ void wide(const float *in, float *out, int n) {
  int t = threadIdx.x;
  float w[32];
  for (int i = 0; i < 32; ++i) w[i] = in[i * n + t];
  float s = 0;
  for (int i = 0; i < 32; ++i) s += w[i] * w[31 - i];
  out[t] = s;
}

__global__ void narrow(const float *in, float *out, int n) {
  int t = threadIdx.x;
  float w[16];
  for (int i = 0; i < 16; ++i) w[i] = in[i * n + t];
  float s = 0;
  for (int i = 0; i < 16; ++i) s += w[i] * w[15 - i];
  out[t] = s;
}

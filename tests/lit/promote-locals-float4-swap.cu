// A float4 swapped through shared memory (HeCBench's shmembench), compiled
// by clang with the plugin: each `*b = *a` is a 16-byte memcpy, which
// nvregalloc-promote-locals-expand makes one ld.shared.v4 and one
// st.shared.v4 (stock: two 8-byte loads and stores each); and in clang's
// own codegen nvregalloc-promote-locals-zext merges the addresses that
// NaryReassociate rebuilt with a sign extension (stock computes
// blockDim.x * 16 twice, mul.wide.s32 and mul.wide.u32). The copy out to
// global memory is left to NVPTX. With promote-locals off, stock's PTX.
// REQUIRES: cuda
// RUN: %clang_cuda -fpass-plugin=%plugin -S %s -o - | FileCheck %s
// RUN: %clang_cuda -S %s -o %t.stock.ptx
// RUN: FileCheck %s --check-prefix=STOCK < %t.stock.ptx
// RUN: %clang_cuda -fpass-plugin=%plugin -mllvm -nvregalloc-promote-locals=false -S %s -o %t.off.ptx
// RUN: diff %t.stock.ptx %t.off.ptx

// CHECK-LABEL: .entry _Z5swapsP6float4(
// CHECK-NOT:   mul.wide.s32
// CHECK-COUNT-16: ld.shared.v4.b32
// CHECK-NOT:   ld.shared.v4.b32
// CHECK:       ld.shared.b64
// CHECK:       ret;
// STOCK-LABEL: .entry _Z5swapsP6float4(
// STOCK:       mul.wide.s32
// STOCK-NOT:   ld.shared.v4.b32
// STOCK:       ld.shared.b64
// STOCK:       ret;

__device__ void swap4(float4 *a, float4 *b) {
  float4 t = *b;
  *b = *a;
  *a = t;
}

__global__ void swaps(float4 *out) {
  __shared__ float4 buf[256 * 4];
  int tid = threadIdx.x;
  for (int k = 0; k < 4; ++k)
    buf[tid + k * blockDim.x] = make_float4(tid, k, tid + k, 0);
  __syncthreads();
#pragma unroll 4
  for (int j = 0; j < 64; ++j) {
    swap4(buf + tid, buf + tid + blockDim.x);
    swap4(buf + tid + 2 * blockDim.x, buf + tid + 3 * blockDim.x);
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + tid] = buf[tid];
}

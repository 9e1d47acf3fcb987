// nvregalloc-promote-locals-param: a kernel passes its by-value parameter on,
// by value, to a device function that reads it at an index that varies (a
// filter's taps, a band's pointer). clang copies the parameter into a local
// for the call, and once the callee is inlined the copy stays: NVPTX copies
// the parameter into local memory byte by byte and reads the copy with
// ld.local (a loop of 144 byte copies here). nvcc reads the parameter in
// place, and so does the pass: no
// depot, ld.param at a register address, and no loop unrolled for it. A
// copy that is written, or a parameter that is, keeps today's handling.
// REQUIRES: cuda
// RUN: %clang_cuda -fpass-plugin=%plugin -S %s -o - -Rpass=nvregalloc-promote -Rpass-missed=nvregalloc-promote \
// RUN:   2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: %clang_cuda -fpass-plugin=%plugin -mllvm -nvregalloc-promote-locals=false -S %s -o - | FileCheck %s --check-prefix=STOCK
// By name, through opt: the copies go, the parameter is read instead.
// RUN: %clang_cuda -S -emit-llvm -Xclang -disable-llvm-passes %s -o %t.ll
// RUN: %opt_plugin -passes='always-inline,function(sroa,instcombine,nvregalloc-promote-locals-param)' %t.ll -S -o - | FileCheck %s --check-prefix=IR

#include <stdint.h>

struct Filter { uint16_t taps[4][18]; };
struct Bands { int *band[4]; };

__device__ __forceinline__ float apply(Filter filter, const float *in, int w) {
  float out = 0.f;
  for (int y = 0; y < 17; ++y) {
    float acc = 0.f;
    for (int i = 0; i < 18; ++i)
      acc += filter.taps[y & 3][i] * in[(y + i) * w];
    out += acc > 0.f ? sqrtf(acc) : -acc;
  }
  return out;
}

// 1. Read in place: the 17-iteration outer loop is not unrolled for it.
// CHECK-LABEL: .entry _Z6filterPKfPf6Filteri(
// CHECK-NOT:   __local_depot
// CHECK-NOT:   st.local
// CHECK:       ld.param.b16 {{%rs[0-9]+}}, [%rd{{[0-9]+}}]
// CHECK:       ret;
// STOCK-LABEL: .entry _Z6filterPKfPf6Filteri(
// STOCK:       __local_depot
// STOCK:       ld.param.b8
// STOCK:       st.local.b8
// STOCK:       ld.local
// REMARK-DAG: promote-locals-param.cu:[[@LINE+2]]:1: remark: function _Z6filterPKfPf6Filteri: local copies of by-value parameter 2 (144 bytes): 2 read in place from the parameter, not copied
// IR-LABEL: define {{.*}} @_Z6filterPKfPf6Filteri(
__global__ void filter(const float *in, float *out, Filter filter, int w) {
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  out[t] = apply(filter, in + t, w);
}
// IR-NOT:   alloca
// IR-NOT:   memcpy
// IR:       ret void

__device__ __forceinline__ void put(Bands bands, int which, int v) {
  bands.band[which & 3][threadIdx.x] = v;
}

// 2. An array of pointers, read at a data-dependent index.
// CHECK-LABEL: .entry _Z5wavesPKi5Bands(
// CHECK-NOT:   __local_depot
// STOCK-LABEL: .entry _Z5wavesPKi5Bands(
// STOCK:       __local_depot
__global__ void waves(const int *in, Bands bands) {
  put(bands, in[threadIdx.x], in[threadIdx.x + 1]);
}

__device__ __forceinline__ int tap_after_write(Filter filter, int b, int i) {
  filter.taps[b][0] += i;
  return filter.taps[b][i];
}

// 3. The callee writes its copy: it is kept (a copy of the copy is read in
// place).
// CHECK-LABEL: .entry _Z7writtenPi6Filter(
// CHECK:       __local_depot
// REMARK-DAG: promote-locals-param.cu:[[@LINE+1]]:17: remark: function _Z7writtenPi6Filter: local copy of by-value parameter 1 (144 bytes): kept (the copy is written)
__global__ void written(int *out, Filter filter) {
  out[threadIdx.x] = tap_after_write(filter, blockIdx.y & 3, threadIdx.x % 18);
}

__device__ __forceinline__ int tap(Filter filter, int b, int i) { return filter.taps[b][i]; }

// 4. The kernel writes its parameter: NVPTX copies it to local memory
// whatever is done, and the copy for the call is kept.
// CHECK-LABEL: .entry _Z5selfwPi6Filter(
// CHECK:       __local_depot
// REMARK-DAG: promote-locals-param.cu:[[@LINE+1]]:17: remark: function _Z5selfwPi6Filter: local copy of by-value parameter 1 (144 bytes): kept (the parameter is written, or its address escapes)
__global__ void selfw(int *out, Filter filter) {
  filter.taps[0][threadIdx.x % 18] = 7;
  out[threadIdx.x] = tap(filter, blockIdx.y & 3, threadIdx.x % 18);
}

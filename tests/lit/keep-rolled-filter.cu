// A 17-tap vertical filter (issue 59's kernel) whose taps, a by-value
// parameter, are read in place at the loop's counter: LLVM leaves the
// 17-iteration loop rolled for its size, and unmarked, ptxas unrolls it by
// itself (about 520 SASS instructions; nvcc's build has 125, its loop left
// rolled). nvregalloc-keep-rolled marks it .pragma "nounroll" (about 100),
// and rolled=ptxas gives it back to ptxas.
// REQUIRES: cuda
// RUN: %clang_cuda -fpass-plugin=%plugin -Rpass=nvregalloc-keep-rolled -S %s -o %t.ptx 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t.ptx
// RUN: %tune --figures %t.ptx --sass | FileCheck %s --check-prefix=SASS
// RUN: printf '* rolled=ptxas\n' > %t.nvra
// RUN: %clang_cuda -fpass-plugin=%plugin -mllvm -nvregalloc-function-options=%t.nvra -S %s -o %t.ptxas.ptx
// RUN: FileCheck %s --check-prefix=PTXAS < %t.ptxas.ptx
// RUN: %tune --figures %t.ptxas.ptx --sass | FileCheck %s --check-prefix=PTXAS-SASS

// REMARK:      keep-rolled-filter.cu:[[#@LINE+17]]:3: remark: function _Z7vfilterPKtPjiii4Taps: loop of 17 iterations of {{[0-9]+}} instructions: LLVM left it rolled, and so does ptxas
// CHECK-LABEL: .entry _Z7vfilterPKtPjiii4Taps(
// CHECK:       .pragma "nounroll";
// CHECK:       ld.param.b16 {{%r[0-9]+}}, [%rd
// PTXAS-LABEL: .entry _Z7vfilterPKtPjiii4Taps(
// PTXAS-NOT:   .pragma
// PTXAS:       ret;
// At most 1.25x nvcc's 125 SASS instructions; unrolled by ptxas, over 400.
// SASS:        "sass":{{([1-9][0-9]|1[0-4][0-9]|15[0-6])}},
// PTXAS-SASS:  "sass":{{[4-9][0-9][0-9]}},

#include <cstdint>
struct Taps { uint16_t c[4][18]; };
__global__ void vfilter(const uint16_t* in, uint32_t* out, int w, int h, int stride, Taps t) {
  int x = (blockIdx.x * blockDim.x + threadIdx.x) * 4, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  uint32_t acc[4] = {0, 0, 0, 0}; uint64_t sq[4] = {0, 0, 0, 0};
  for (int k = 0; k < 17; ++k) {
    int r = abs(y - 8 + k); if (r >= h) r = 2 * h - r - 2;
    uint2 v = *reinterpret_cast<const uint2*>(&in[r * stride + x]);
    uint16_t px[4] = {(uint16_t)v.x, (uint16_t)(v.x >> 16), (uint16_t)v.y, (uint16_t)(v.y >> 16)};
    for (int o = 0; o < 4; ++o) {
      uint32_t c = t.c[0][k];
      acc[o] += c * px[o]; sq[o] += (uint64_t)(c * px[o]) * px[o];
      if (k >= 4 && k < 13) acc[o] += t.c[1][k - 4] * px[o];
    }
  }
  for (int o = 0; o < 4; ++o) out[y * w + x + o] = acc[o] + (uint32_t)(sq[o] >> 16);
}

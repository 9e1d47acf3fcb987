; A function-options file's `cap=N` gives a kernel `.maxnreg N`: ptxas may
; then use at most N registers per thread (scripts/tune writes caps at
; occupancy steps where ptxas fits the kernel in them without a spill).
; Device functions take no cap (ptxas counts them in their callers), a lower
; cap already there (CUDA's __maxnreg__) stays, a function without a cap in
; the file gets none, and analysis-only mode changes nothing.
; RUN: printf 'k cap=32\nhelper cap=32\nlow cap=32\n' > %t.nvra
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-function-options=%t.nvra %s -o %t.ptx \
; RUN:   -pass-remarks=nvregalloc-pressure-relief 2>&1 | FileCheck %s --check-prefix=REMARK
; RUN: FileCheck %s < %t.ptx
; RUN: %llc_plugin -nvregalloc-function-options=%t.nvra -nvregalloc-pressure=analyze %s -o - \
; RUN:   | FileCheck %s --check-prefix=ANALYZE
; RUN: %if cuda %{ %ptxas -arch=sm_90 -c %t.ptx -o %t.o %}

; REMARK:     remark: <unknown>:0:0: function k: .maxnreg 32
; REMARK-NOT: .maxnreg
; CHECK-LABEL: .func helper(
; CHECK-NOT:   .maxnreg
; CHECK-LABEL: .entry k(
; CHECK:       .maxnreg 32
; CHECK-NEXT:  {
; CHECK-LABEL: .entry low(
; CHECK:       .maxnreg 24
; CHECK-NEXT:  {
; CHECK-LABEL: .entry other(
; CHECK-NOT:   .maxnreg
; ANALYZE-NOT: .maxnreg 32

target triple = "nvptx64-nvidia-cuda"

define void @helper(ptr addrspace(1) %p) noinline {
  store i32 1, ptr addrspace(1) %p
  ret void
}

define ptx_kernel void @k(ptr addrspace(1) %p) {
  call void @helper(ptr addrspace(1) %p)
  ret void
}

define ptx_kernel void @low(ptr addrspace(1) %p) "nvvm.maxnreg"="24" {
  store i32 2, ptr addrspace(1) %p
  ret void
}

define ptx_kernel void @other(ptr addrspace(1) %p) {
  store i32 3, ptr addrspace(1) %p
  ret void
}

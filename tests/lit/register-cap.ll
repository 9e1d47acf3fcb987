; A function-options file's `cap=N` gives a kernel `.maxnreg N`: ptxas may
; then use at most N registers per thread (nvregalloc-tune writes caps at
; occupancy steps where ptxas fits the kernel in them without a spill).
; Device functions take no cap (ptxas counts them in their callers), a lower
; cap already there (CUDA's __maxnreg__) stays, a function without a cap in
; the file gets none. The cap is its own lever (nvregalloc-register-cap),
; whatever the pressure pass does.
; RUN: printf 'k cap=32\nhelper cap=32\nlow cap=32\n' > %t.nvra
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-function-options=%t.nvra %s -o %t.ptx \
; RUN:   -pass-remarks=nvregalloc-register-cap 2>&1 | FileCheck %s --check-prefix=REMARK
; RUN: FileCheck %s < %t.ptx
; RUN: %llc_plugin -nvregalloc-function-options=%t.nvra -nvregalloc-pressure=analyze %s -o - \
; RUN:   | FileCheck %s --check-prefix=ANALYZE
; RUN: %if cuda %{ %ptxas -arch=sm_90 -c %t.ptx -o %t.o %}
;
; A versioned file with a section per GPU (what nvregalloc-tune writes): the
; section of the GPU compiled for comes first, the lines before any section
; serve the others.
; RUN: printf 'nvregalloc-options 1\nk cap=48\n[sm_90]\nk cap=32\n[sm_80]\n* coalesce=off\n' > %t.gpus
; RUN: %llc_plugin -nvregalloc-function-options=%t.gpus %s -o - | FileCheck %s --check-prefix=SM90
; RUN: %llc_plugin -mcpu=sm_80 -nvregalloc-function-options=%t.gpus %s -o - | FileCheck %s --check-prefix=SM80
; RUN: %llc_plugin -mcpu=sm_75 -nvregalloc-function-options=%t.gpus %s -o - | FileCheck %s --check-prefix=SM75
; SM90-LABEL: .entry k(
; SM90:       .maxnreg 32
; SM80-LABEL: .entry k(
; SM80-NOT:   .maxnreg
; SM80:       ret;
; SM75-LABEL: .entry k(
; SM75:       .maxnreg 48

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
; ANALYZE-LABEL: .entry k(
; ANALYZE:       .maxnreg 32

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

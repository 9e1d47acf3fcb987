; An inline asm output shares no register with the asm's inputs, early
; clobber or not, where the asm text writes it before it has read every
; input (src/asm.rs). CUDA's own math (the Payne-Hanek reduction of sinf/cosf
; for large arguments) emits this asm with plain "=r" outputs, writing $0
; before its second instruction reads $2 again. Colored onto %x's register
; (%x dies at the asm), $0 overwrote it: wrong results on the rarely taken
; path, which no small-input test reaches (HeCBench mriQ, particlefilter,
; streamPriority, ... used "fewer" registers that way).
; RUN: %llc_plugin -verify-machineinstrs %s -o %t.ptx
; RUN: FileCheck %s < %t.ptx
; RUN: not FileCheck %s --check-prefix=SHARED < %t.ptx
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-graph-limit=0 %s -o - | FileCheck %s
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-max-regs=4 %s -o - | FileCheck %s
; RUN: %if cuda %{ %ptxas -arch=sm_90 -c %t.ptx -o %t.o %}

; CHECK: mad.lo.cc.u32 {{%r[0-9]+}}, [[X:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}};
; CHECK-NEXT: madc.hi.u32 {{%r[0-9]+}}, [[X]], {{%r[0-9]+}}, 0;
; SHARED: mad.lo.cc.u32 [[R:%r[0-9]+]],{{.*}} [[R]]{{[,;]}}

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr addrspace(1) %p, i32 %b) {
entry:
  %x = load i32, ptr addrspace(1) %p
  %r = call { i32, i32 } asm "{\0A\09mad.lo.cc.u32 $0, $2, $3, $4;\0A\09madc.hi.u32 $1, $2, $3, 0;\0A\09}", "=r,=r,r,r,r"(i32 %x, i32 %b, i32 0)
  %lo = extractvalue { i32, i32 } %r, 0
  %hi = extractvalue { i32, i32 } %r, 1
  store i32 %lo, ptr addrspace(1) %p
  %q = getelementptr i32, ptr addrspace(1) %p, i64 1
  store i32 %hi, ptr addrspace(1) %q
  ret void
}

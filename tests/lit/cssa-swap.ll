; The swap problem: %a and %b trade values on every iteration. Each PHI's
; back-edge operand is the other PHI's result, live at the same time, so
; nvregalloc-cssa merges neither and PHI elimination sequentializes the swap
; through its temporaries. The counter's PHI is independent and goes.
; RUN: %llc_plugin -nvregalloc-cssa-coalesce -verify-machineinstrs %s -o %t.ptx -nvregalloc-cssa-verbosity=1 \
; RUN:   -print-after=nvregalloc-cssa 2>&1 | FileCheck %s
; RUN: FileCheck %s --check-prefix=PTX < %t.ptx
; CHECK-COUNT-2:   nvregalloc::cssa: swap i{{[0-9]+}} in bb1: kept, v{{[0-9]+}} from bb1 interferes
; CHECK:           nvregalloc::cssa: swap i{{[0-9]+}} in bb1: eliminated, 3 classes joined
; CHECK:      bb.1.loop:
; CHECK:      [[A:%[0-9]+]]:b32 = PHI {{%[0-9]+}}:b32, %bb.0, [[B:%[0-9]+]]:b32, %bb.1
; CHECK-NEXT: [[B]]:b32 = PHI {{%[0-9]+}}:b32, %bb.0, [[A]]:b32, %bb.1
; CHECK-NOT:  PHI
; The swap costs three moves through a third register, as with stock LLVM.
; PTX:         $L__BB0_1:
; PTX-COUNT-3: mov.b32 %r{{[0-9]+}}, %r{{[0-9]+}};
; PTX-NOT:     mov.b32
; PTX:         bra

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @swap(ptr addrspace(1) %out, i32 %x, i32 %y, i32 %n) {
entry:
  br label %loop
loop:
  %a = phi i32 [ %x, %entry ], [ %b, %loop ]
  %b = phi i32 [ %y, %entry ], [ %a, %loop ]
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %i
  store i32 %a, ptr addrspace(1) %p
  %i.next = add i32 %i, 1
  %c = icmp ult i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  store i32 %b, ptr addrspace(1) %out
  ret void
}

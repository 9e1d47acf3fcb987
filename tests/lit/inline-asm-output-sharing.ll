; An inline asm output may share a register with the asm's inputs where the
; asm text reads every input before it writes that output: here one
; instruction, as CUDA's half-precision headers emit for each arithmetic
; operator. In replace-stock mode the plugin joins the accumulator's PHI
; copy through the asm, as stock LLVM does, and leaves no move in the loop;
; the same in the default mode, and when coloring.
; (An asm that writes an output before reading an input again keeps them
; apart: inline-asm-outputs.ll.)
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-coalesce=replace-stock -nvregalloc-color=off %s -o %t.ptx
; RUN: FileCheck %s < %t.ptx
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-coalesce=replace-stock %s -o - | FileCheck %s
; RUN: %llc_plugin -verify-machineinstrs %s -o - | FileCheck %s
; RUN: %if cuda %{ %ptxas -arch=sm_90 -c %t.ptx -o %t.o %}

; CHECK: {add.f16 [[S:%rs[0-9]+]],[[S]],%rs{{[0-9]+}};
; CHECK-NOT: mov.b16 %rs{{[0-9]+}}, %rs
; CHECK: ret;

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @sum(ptr addrspace(1) %p, i32 %n) {
entry:
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %s = phi half [ 0xH0000, %entry ], [ %s1, %loop ]
  %q = getelementptr half, ptr addrspace(1) %p, i32 %i
  %v = load half, ptr addrspace(1) %q
  %s1 = call half asm "{add.f16 $0,$1,$2;\0A}", "=h,h,h"(half %s, half %v)
  %i1 = add i32 %i, 1
  %done = icmp eq i32 %i1, %n
  br i1 %done, label %exit, label %loop

exit:
  store half %s1, ptr addrspace(1) %p
  ret void
}

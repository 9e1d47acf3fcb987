; Without CSSA coalescing, PHI elimination puts copies on the loop's back edge (%s = COPY %s.next,
; %i = COPY %i.next). With LLVM's coalescer replaced, ours must remove them:
; the loop ends up with no register move, as with stock LLVM.
; RUN: %llc_plugin -nvregalloc-cssa-coalesce=false -nvregalloc-coalesce=replace-stock -nvregalloc-color=off -verify-machineinstrs \
; RUN:   -print-before=nvregalloc-coalescer %s -o %t.ptx 2>%t.mir
; RUN: FileCheck %s --check-prefix=BEFORE < %t.mir
; RUN: %ptx_moves %t.ptx | FileCheck %s --check-prefix=MOVES
; RUN: %llc_nvptx %s -o %t.stock.ptx
; RUN: %ptx_moves %t.stock.ptx | FileCheck %s --check-prefix=MOVES
; BEFORE:      bb.1.loop:
; BEFORE:      COPY
; BEFORE:      COPY
; BEFORE:      CBranch
; MOVES: {{^0$}}

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @sum(ptr addrspace(1) %p, ptr addrspace(1) %q, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi float [ 1.0, %entry ], [ %s.next, %loop ]
  %pa = getelementptr float, ptr addrspace(1) %q, i32 %i
  %x = load float, ptr addrspace(1) %pa
  %s.next = fmul float %s, %x
  %i.next = add i32 %i, 1
  %done = icmp sge i32 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  store float %s.next, ptr addrspace(1) %p
  ret void
}

; replace-stock never leaves a function without coalescing: LLVM's
; RegisterCoalescer stays in the pipeline and stands aside only for the
; functions our coalescer takes. @asm_swap has inline assembly, which the
; passes refuse, so it must come out exactly as stock LLVM makes it, copies of
; the swapped loop values coalesced; @swap, which they take, is ours.
; RUN: %llc_nvptx -verify-machineinstrs %s -o %t.stock.ptx
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-coalesce=replace-stock %s -o %t.replace.ptx \
; RUN:   -pass-remarks-missed=nvregalloc-stock-coalescer-gate 2>&1 | FileCheck %s --check-prefix=GATE
; RUN: sed -n '/entry asm_swap/,/^}/p' %t.stock.ptx > %t.stock.txt
; RUN: sed -n '/entry asm_swap/,/^}/p' %t.replace.ptx > %t.replace.txt
; RUN: diff %t.stock.txt %t.replace.txt
; Without the gate (LLVM's coalescer off for the whole module) it would not be:
; RUN: %llc_nvptx -join-liveintervals=false %s -o %t.nojoin.ptx
; RUN: sed -n '/entry asm_swap/,/^}/p' %t.nojoin.ptx > %t.nojoin.txt
; RUN: not diff %t.stock.txt %t.nojoin.txt

; GATE: remark: <unknown>:0:0: function asm_swap: LLVM's RegisterCoalescer coalesces it: inline assembly
; GATE-NOT: function swap: LLVM's RegisterCoalescer

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @asm_swap(ptr addrspace(1) %p, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %a = phi i32 [ 1, %entry ], [ %b, %loop ]
  %b = phi i32 [ 2, %entry ], [ %a, %loop ]
  %r = call i32 asm "add.s32 $0, $1, $2;", "=r,r,r"(i32 %a, i32 %b)
  store volatile i32 %r, ptr addrspace(1) %p
  %i.next = add i32 %i, 1
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

define ptx_kernel void @swap(ptr addrspace(1) %p, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %a = phi i32 [ 1, %entry ], [ %b, %loop ]
  %b = phi i32 [ 2, %entry ], [ %a, %loop ]
  %r = add i32 %a, %b
  store volatile i32 %r, ptr addrspace(1) %p
  %i.next = add i32 %i, 1
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

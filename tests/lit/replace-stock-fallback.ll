; replace-stock never leaves a function without coalescing: LLVM's
; RegisterCoalescer stays in the pipeline and stands aside only for the
; functions our coalescer takes. With -nvregalloc-graph-limit=400, the gate
; before RegisterCoalescer finds @wide_swap's graph (over 1,000 entries) past half
; the limit, so our coalescer will not take it: it must come out exactly as
; stock LLVM makes it, the copies of its swapped loop values coalesced. @swap
; (44 entries) is ours.
; RUN: %llc_nvptx -verify-machineinstrs %s -o %t.stock.ptx
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-coalesce=replace-stock -nvregalloc-color=off \
; RUN:   -nvregalloc-graph-limit=400 %s -o %t.replace.ptx \
; RUN:   -pass-remarks-missed=nvregalloc-stock-coalescer-gate 2>&1 | FileCheck %s --check-prefix=GATE
; RUN: sed -n '/entry wide_swap/,/^}/p' %t.stock.ptx > %t.stock.txt
; RUN: sed -n '/entry wide_swap/,/^}/p' %t.replace.ptx > %t.replace.txt
; RUN: diff %t.stock.txt %t.replace.txt
; Without the gate (LLVM's coalescer off for the whole module) it would not be:
; RUN: %llc_nvptx -join-liveintervals=false %s -o %t.nojoin.ptx
; RUN: sed -n '/entry wide_swap/,/^}/p' %t.nojoin.ptx > %t.nojoin.txt
; RUN: not diff %t.stock.txt %t.nojoin.txt

; GATE:     remark: <unknown>:0:0: function wide_swap: LLVM's RegisterCoalescer coalesces it: its interference graph would take {{[0-9]+}} entries, over half of -nvregalloc-graph-limit=400
; GATE-NOT: function swap: LLVM's RegisterCoalescer

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @wide_swap(ptr addrspace(1) %p, i32 %n) {
entry:
  %q0 = getelementptr i32, ptr addrspace(1) %p, i32 1
  %v0 = load volatile i32, ptr addrspace(1) %q0
  %q1 = getelementptr i32, ptr addrspace(1) %p, i32 2
  %v1 = load volatile i32, ptr addrspace(1) %q1
  %q2 = getelementptr i32, ptr addrspace(1) %p, i32 3
  %v2 = load volatile i32, ptr addrspace(1) %q2
  %q3 = getelementptr i32, ptr addrspace(1) %p, i32 4
  %v3 = load volatile i32, ptr addrspace(1) %q3
  %q4 = getelementptr i32, ptr addrspace(1) %p, i32 5
  %v4 = load volatile i32, ptr addrspace(1) %q4
  %q5 = getelementptr i32, ptr addrspace(1) %p, i32 6
  %v5 = load volatile i32, ptr addrspace(1) %q5
  %q6 = getelementptr i32, ptr addrspace(1) %p, i32 7
  %v6 = load volatile i32, ptr addrspace(1) %q6
  %q7 = getelementptr i32, ptr addrspace(1) %p, i32 8
  %v7 = load volatile i32, ptr addrspace(1) %q7
  %q8 = getelementptr i32, ptr addrspace(1) %p, i32 9
  %v8 = load volatile i32, ptr addrspace(1) %q8
  %q9 = getelementptr i32, ptr addrspace(1) %p, i32 10
  %v9 = load volatile i32, ptr addrspace(1) %q9
  %q10 = getelementptr i32, ptr addrspace(1) %p, i32 11
  %v10 = load volatile i32, ptr addrspace(1) %q10
  %q11 = getelementptr i32, ptr addrspace(1) %p, i32 12
  %v11 = load volatile i32, ptr addrspace(1) %q11
  %q12 = getelementptr i32, ptr addrspace(1) %p, i32 13
  %v12 = load volatile i32, ptr addrspace(1) %q12
  %q13 = getelementptr i32, ptr addrspace(1) %p, i32 14
  %v13 = load volatile i32, ptr addrspace(1) %q13
  %q14 = getelementptr i32, ptr addrspace(1) %p, i32 15
  %v14 = load volatile i32, ptr addrspace(1) %q14
  %q15 = getelementptr i32, ptr addrspace(1) %p, i32 16
  %v15 = load volatile i32, ptr addrspace(1) %q15
  %q16 = getelementptr i32, ptr addrspace(1) %p, i32 17
  %v16 = load volatile i32, ptr addrspace(1) %q16
  %q17 = getelementptr i32, ptr addrspace(1) %p, i32 18
  %v17 = load volatile i32, ptr addrspace(1) %q17
  %q18 = getelementptr i32, ptr addrspace(1) %p, i32 19
  %v18 = load volatile i32, ptr addrspace(1) %q18
  %q19 = getelementptr i32, ptr addrspace(1) %p, i32 20
  %v19 = load volatile i32, ptr addrspace(1) %q19
  %q20 = getelementptr i32, ptr addrspace(1) %p, i32 21
  %v20 = load volatile i32, ptr addrspace(1) %q20
  %q21 = getelementptr i32, ptr addrspace(1) %p, i32 22
  %v21 = load volatile i32, ptr addrspace(1) %q21
  %q22 = getelementptr i32, ptr addrspace(1) %p, i32 23
  %v22 = load volatile i32, ptr addrspace(1) %q22
  %q23 = getelementptr i32, ptr addrspace(1) %p, i32 24
  %v23 = load volatile i32, ptr addrspace(1) %q23
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
  %s1 = add i32 %v0, %v1
  %s2 = add i32 %s1, %v2
  %s3 = add i32 %s2, %v3
  %s4 = add i32 %s3, %v4
  %s5 = add i32 %s4, %v5
  %s6 = add i32 %s5, %v6
  %s7 = add i32 %s6, %v7
  %s8 = add i32 %s7, %v8
  %s9 = add i32 %s8, %v9
  %s10 = add i32 %s9, %v10
  %s11 = add i32 %s10, %v11
  %s12 = add i32 %s11, %v12
  %s13 = add i32 %s12, %v13
  %s14 = add i32 %s13, %v14
  %s15 = add i32 %s14, %v15
  %s16 = add i32 %s15, %v16
  %s17 = add i32 %s16, %v17
  %s18 = add i32 %s17, %v18
  %s19 = add i32 %s18, %v19
  %s20 = add i32 %s19, %v20
  %s21 = add i32 %s20, %v21
  %s22 = add i32 %s21, %v22
  %s23 = add i32 %s22, %v23
  store volatile i32 %s23, ptr addrspace(1) %p
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

; -nvregalloc-function-options=FILE chooses the passes per function (the file
; nvregalloc-tune writes): a named function takes its line, the others the `*`
; line, or the command line's options without one. A bad file is a warning
; per function, which is then left as stock LLVM makes it.
;
; RUN: echo "invariant_product pressure=relieve color=off" > %t.one
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-function-options=%t.one -nvregalloc-pressure-target=1 %s -o - \
; RUN:   | FileCheck %s --check-prefix=ONE
; ONE-LABEL: .entry invariant_product(
; ONE:       $L__BB0_1:
; ONE:       mul.lo.s32
; ONE-LABEL: .entry other(
; ONE:       $L__BB1_1:
; ONE-NOT:   mul.lo.s32
; ONE:       ret;
;
; Renaming is off on the command line (the default) and on for one function.
; RUN: echo "other color=rename" > %t.rename
; RUN: %llc_plugin -nvregalloc-function-options=%t.rename -pass-remarks-analysis=nvregalloc-coloring %s -o /dev/null 2>&1 \
; RUN:   | FileCheck %s --check-prefix=RENAME
; RENAME-NOT: function invariant_product: vregs-before
; RENAME:     function other: vregs-before=7 vregs-after=7 max-live=7
;
; Everything off for every function: stock's PTX.
; RUN: echo "* coalesce=off color=off pressure=off" > %t.stock
; RUN: %llc_plugin -nvregalloc-function-options=%t.stock -nvregalloc-pressure-target=1 %s -o %t.stock.ptx
; RUN: %llc_nvptx %s -o %t.llc.ptx
; RUN: diff %t.llc.ptx %t.stock.ptx
;
; RUN: echo "other colour=off" > %t.bad
; RUN: %llc_plugin -nvregalloc-function-options=%t.bad -nvregalloc-coalesce=off %s -o %t.bad.ptx 2>&1 \
; RUN:   | FileCheck %s --check-prefix=BAD
; RUN: diff %t.llc.ptx %t.bad.ptx
; BAD: warning: nvregalloc-coloring: function 'invariant_product' left unchanged: -nvregalloc-function-options={{.*}}: line 1: unknown option 'colour' (known: coalesce, color, pressure, undefined, cap, lsr, unroll, sched, inline, promote, widen, rolled, spill, invariants)

target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @invariant_product(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %scaled = mul i32 %tid, 12
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %b = xor i32 %i, %scaled
  store volatile i32 %b, ptr addrspace(1) %out
  store volatile i32 %tid, ptr addrspace(1) %out
  %i.next = add i32 %i, 1
  %done = icmp eq i32 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

define ptx_kernel void @other(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %scaled = mul i32 %tid, 12
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %b = xor i32 %i, %scaled
  store volatile i32 %b, ptr addrspace(1) %out
  store volatile i32 %tid, ptr addrspace(1) %out
  %i.next = add i32 %i, 1
  %done = icmp eq i32 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

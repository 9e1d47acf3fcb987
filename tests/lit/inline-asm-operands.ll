; Inline assembly is renamed like any other instruction, keeping what its
; operand flags say. %r is early-clobber ("=&r"): written before %a and %b are
; read, so it may not share a register with %b even though the asm is %b's
; last read (CHECK-NOT: no input of the block is the output's register). The
; mad's accumulator is tied ("0"): one register, read and written. Each pass
; rewrites the function on its own, and the checker proves it (a rewrite
; that put %r in %b's register would be rejected with a warning).
; RUN: %llc_plugin -verify-machineinstrs %s -o %t.cssa.ptx -nvregalloc-cssa-coalesce -nvregalloc-coalesce=off -nvregalloc-color=off \
; RUN:   -pass-remarks=nvregalloc-cssa 2>&1 | FileCheck %s --check-prefix=REWROTE
; RUN: FileCheck %s < %t.cssa.ptx
; RUN: %llc_plugin -verify-machineinstrs %s -o %t.replace.ptx -nvregalloc-cssa-coalesce=false \
; RUN:   -nvregalloc-coalesce=replace-stock -nvregalloc-color=off -pass-remarks=nvregalloc-coalescer 2>&1 \
; RUN:   | FileCheck %s --check-prefix=REWROTE
; RUN: FileCheck %s < %t.replace.ptx
; RUN: %llc_plugin -nvregalloc-color=rename -verify-machineinstrs %s -o %t.color.ptx -join-liveintervals=false \
; RUN:   -nvregalloc-cssa-coalesce=false -nvregalloc-coalesce=off -pass-remarks=nvregalloc-coloring 2>&1 \
; RUN:   | FileCheck %s --check-prefix=REWROTE
; RUN: FileCheck %s < %t.color.ptx
; RUN: %llc_plugin -nvregalloc-color=rename -verify-machineinstrs %s -o %t.free.ptx -join-liveintervals=false -nvregalloc-graph-limit=0 \
; RUN:   -nvregalloc-cssa-coalesce=false -nvregalloc-coalesce=off -pass-remarks=nvregalloc-coloring 2>&1 \
; RUN:   | FileCheck %s --check-prefix=REWROTE
; RUN: FileCheck %s < %t.free.ptx
; RUN: %llc_plugin -verify-machineinstrs %s -o %t.budget.ptx -nvregalloc-max-regs=4 \
; RUN:   -pass-remarks=nvregalloc-coloring 2>&1 | FileCheck %s --check-prefix=REWROTE
; RUN: FileCheck %s < %t.budget.ptx
; RUN: %if cuda %{ %ptxas -arch=sm_90 %t.cssa.ptx -o /dev/null %}
; RUN: %if cuda %{ %ptxas -arch=sm_90 %t.replace.ptx -o /dev/null %}
; RUN: %if cuda %{ %ptxas -arch=sm_90 %t.color.ptx -o /dev/null %}
; RUN: %if cuda %{ %ptxas -arch=sm_90 %t.free.ptx -o /dev/null %}
; RUN: %if cuda %{ %ptxas -arch=sm_90 %t.budget.ptx -o /dev/null %}

; REWROTE: remark: <unknown>:0:0: rewrote function asm_loop

; CHECK:      begin inline asm
; CHECK:      mov.b32 [[R:%r[0-9]+]], 7;
; CHECK-NOT:  , [[R]];
; CHECK:      end inline asm
; CHECK:      begin inline asm
; CHECK-NEXT: mad.lo.s32 [[ACC:%r[0-9]+]], [[R]], {{%r[0-9]+}}, [[ACC]];

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @asm_loop(ptr addrspace(1) %p, i32 %x, i32 %y, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %a = phi i32 [ %x, %entry ], [ %acc, %loop ]
  %b = phi i32 [ %y, %entry ], [ %a, %loop ]
  %r = call i32 asm "{\0A\09mov.b32 $0, 7;\0A\09add.s32 $0, $0, $1;\0A\09mul.lo.s32 $0, $0, $2;\0A\09}", "=&r,r,r"(i32 %a, i32 %b)
  %t = xor i32 %a, %r
  %acc = call i32 asm "mad.lo.s32 $0, $1, $2, $0;", "=r,r,r,0"(i32 %r, i32 %a, i32 %t)
  store volatile i32 %acc, ptr addrspace(1) %p
  %i.next = add i32 %i, 1
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

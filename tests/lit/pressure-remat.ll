; nvregalloc-pressure-relief recomputes a cheap value in the block that reads it
; instead of keeping it in a register across the loop, where its input is
; live anyway. Forced here with a target of one register; otherwise the pass
; acts only where an occupancy step is crossed, which this 7-register kernel
; is far from, so it stays as stock LLVM makes it. The pass is off by default.
;
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-pressure=relieve -nvregalloc-pressure-target=1 \
; RUN:   -pass-remarks-missed=nvregalloc-pressure-relief %s -o %t.forced.ptx 2>%t.forced.log
; RUN: FileCheck %s --check-prefix=FORCED < %t.forced.ptx
; RUN: FileCheck %s --check-prefix=REMARK < %t.forced.log
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-pressure=relieve -pass-remarks-analysis=nvregalloc-pressure-relief \
; RUN:   %s -o %t.nostep.ptx 2>%t.nostep.log
; RUN: FileCheck %s --check-prefix=KEPT < %t.nostep.ptx
; RUN: FileCheck %s --check-prefix=NOSTEP < %t.nostep.log
; RUN: %llc_plugin -nvregalloc-pressure-target=1 -nvregalloc-pressure=analyze %s -o - | FileCheck %s --check-prefix=KEPT
; RUN: %llc_plugin -nvregalloc-pressure-target=1 %s -o - | FileCheck %s --check-prefix=KEPT
;
; FORCED:      mov.u32 [[TID:%r[0-9]+]], %tid.x;
; FORCED-NOT:  mul.lo
; FORCED:      $L__BB0_1:
; FORCED:      mul.lo.s32 [[P:%r[0-9]+]], [[TID]], 12;
; FORCED-NEXT: xor.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, [[P]];
; REMARK: modelled registers 7 -> 6, {{.*}} 1 values recomputed in 1 places
;
; KEPT:      mul.lo.s32
; KEPT:      $L__BB0_1:
; KEPT-NOT:  mul.lo
; KEPT:      ret;
; NOSTEP: pressure-before=7 pressure-after=7 {{.*}} values-recomputed=0

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

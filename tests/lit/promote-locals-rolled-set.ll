; nvregalloc-promote-locals-select on the locals a loop left rolled for
; selects steps: every small one is made selects, or none is.
; - sums: two `uint32_t[2]` accumulators zeroed by one 8-byte store each
;   (clang's `= {0, 0}`, a memset InstCombine makes one i64 store) and read
;   whole after the loop as an i64: those accesses cover whole elements and
;   are split into the elements' own, so both locals become selects and
;   SROA makes them scalars.
; - half: the same loop also steps a local read volatile at its counter,
;   which stays in memory; the other local is left as it is too, and no
;   nounroll mark is added (the loop is left as LLVM has it).
; (-nvregalloc-promote-rolled-insts-per-select=1: any loop no shorter than
; its selects counts as long, so that the bodies can be short.)
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-select -nvregalloc-promote-rolled-insts-per-select=1 \
; RUN:   %s -S -o - | FileCheck %s
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-select -nvregalloc-promote-rolled-insts-per-select=1 \
; RUN:   -pass-remarks=nvregalloc-promote-locals-select -pass-remarks-missed=nvregalloc-promote-locals-select \
; RUN:   %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

target triple = "nvptx64-nvidia-cuda"

; CHECK-LABEL: define ptx_kernel void @sums(
; CHECK-NOT:   alloca
; CHECK:       select
; CHECK:       br i1 %done, label %exit, label %loop, !llvm.loop [[ROLLED:![0-9]+]]
; CHECK:       ret void
; REMARK:      remark: {{.*}}function sums: local 'sum' of 8 bytes indexed by data or a loop's counter, 2 such accesses reaching 4 elements in all: each becomes selects among them, the local registers
; REMARK:      remark: {{.*}}function sums: local 'sq' of 8 bytes indexed by data or a loop's counter, 2 such accesses reaching 4 elements in all: each becomes selects among them, the local registers
define ptx_kernel void @sums(ptr %in, ptr %out) {
entry:
  %sum = alloca [2 x i32], align 8
  %sq = alloca [2 x i32], align 8
  store i64 0, ptr %sum, align 8
  store i64 0, ptr %sq, align 8
  br label %loop

loop:
  %c = phi i32 [ 0, %entry ], [ %next, %loop ]
  %at = getelementptr inbounds i32, ptr %in, i32 %c
  %x = load i32, ptr %at, align 4
  %s = getelementptr inbounds [2 x i32], ptr %sum, i32 0, i32 %c
  %old = load i32, ptr %s, align 4
  %new = add i32 %old, %x
  store i32 %new, ptr %s, align 4
  %q = getelementptr inbounds [2 x i32], ptr %sq, i32 0, i32 %c
  %oldq = load i32, ptr %q, align 4
  %xx = mul i32 %x, %x
  %newq = add i32 %oldq, %xx
  store i32 %newq, ptr %q, align 4
  %next = add nuw nsw i32 %c, 1
  %done = icmp eq i32 %next, 2
  br i1 %done, label %exit, label %loop

exit:
  %both = load i64, ptr %sum, align 8
  %bothq = load i64, ptr %sq, align 8
  %r = add i64 %both, %bothq
  store i64 %r, ptr %out, align 8
  ret void
}

; CHECK-LABEL: define ptx_kernel void @half(
; CHECK:       alloca [2 x i32]
; CHECK:       alloca [2 x i32]
; CHECK-NOT:   select
; CHECK:       br i1 %done, label %exit, label %loop{{$}}
; REMARK:      remark: {{.*}}function half: local 'sum' of 8 bytes indexed by data or a loop's counter, 2 such accesses reaching 4 elements in all: left in memory (a loop that steps it steps local 'seen' of 8 bytes too, which stays in memory: the loop is left as LLVM has it)
; REMARK:      remark: {{.*}}function half: local 'seen' of 8 bytes indexed by data or a loop's counter: left in memory (a volatile or atomic access)
define ptx_kernel void @half(ptr %in, ptr %out) {
entry:
  %sum = alloca [2 x i32], align 8
  %seen = alloca [2 x i32], align 8
  store i64 0, ptr %sum, align 8
  store i64 0, ptr %seen, align 8
  br label %loop

loop:
  %c = phi i32 [ 0, %entry ], [ %next, %loop ]
  %at = getelementptr inbounds i32, ptr %in, i32 %c
  %x = load i32, ptr %at, align 4
  %s = getelementptr inbounds [2 x i32], ptr %sum, i32 0, i32 %c
  %old = load i32, ptr %s, align 4
  %new = add i32 %old, %x
  store i32 %new, ptr %s, align 4
  %v = getelementptr inbounds [2 x i32], ptr %seen, i32 0, i32 %c
  store volatile i32 %x, ptr %v, align 4
  %next = add nuw nsw i32 %c, 1
  %done = icmp eq i32 %next, 2
  br i1 %done, label %exit, label %loop

exit:
  %both = load i64, ptr %sum, align 8
  %seen0 = load i32, ptr %seen, align 8
  %seen64 = zext i32 %seen0 to i64
  %r = add i64 %both, %seen64
  store i64 %r, ptr %out, align 8
  ret void
}

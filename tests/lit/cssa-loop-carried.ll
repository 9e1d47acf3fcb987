; Loop-carried PHIs whose copies disappear: %i and %acc are each redefined
; once per iteration after their last read, so nvregalloc-cssa gives each PHI
; result and its operands one register and deletes the PHIs. PHI elimination
; then has nothing to lower, and no COPY is ever created for them; without
; CSSA it puts two on the back edge (and two more on the entry edge).
; RUN: %llc_plugin -nvregalloc-cssa-coalesce -verify-machineinstrs %s -o %t.ptx -nvregalloc-cssa-verbosity=1 \
; RUN:   -print-before=nvregalloc-cssa -print-after=phi-node-elimination 2>%t.err
; RUN: FileCheck %s < %t.err
; RUN: %llc_plugin -nvregalloc-cssa-coalesce=false %s -o /dev/null \
; RUN:   -print-after=phi-node-elimination 2>&1 | FileCheck %s --check-prefix=NO-CSSA
; RUN: %llc_plugin -nvregalloc-cssa-coalesce -nvregalloc-dump-before-cssa %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUMP
; CHECK:      IR Dump Before nvregalloc: coalesce PHI operands (CSSA)
; CHECK:      bb.1.loop:
; CHECK-NEXT: predecessors
; CHECK-NEXT: successors
; CHECK-EMPTY:
; CHECK-NEXT: {{%[0-9]+}}:b32 = PHI {{%[0-9]+}}:b32, %bb.0, {{%[0-9]+}}:b32, %bb.1
; CHECK-NEXT: {{%[0-9]+}}:b32 = PHI {{%[0-9]+}}:b32, %bb.0, {{%[0-9]+}}:b32, %bb.1
; CHECK-COUNT-2: nvregalloc::cssa: sum i{{[0-9]+}} in bb1: eliminated, 3 classes joined
; CHECK:      IR Dump After Eliminate PHI nodes
; CHECK-NOT:  COPY
; CHECK:      bb.1.loop:
; CHECK-NOT:  COPY
; CHECK:      [[ACC:%[0-9]+]]:b32 = ADD32rr [[ACC]]:b32, [[I:%[0-9]+]]:b32
; CHECK-NEXT: [[I]]:b32 = ADD32ri [[I]]:b32, 1
; CHECK-NOT:  COPY
; CHECK:      End machine code
; DUMP:         # nvregalloc: sum before CSSA coalescing
; DUMP:         bb.1.loop:
; DUMP:         PHI
; NO-CSSA:      bb.1.loop:
; NO-CSSA:      COPY
; NO-CSSA:      COPY
; NO-CSSA:      CBranch

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @sum(ptr addrspace(1) %out, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi i32 [ 5, %entry ], [ %acc.next, %loop ]
  %acc.next = add i32 %acc, %i
  %i.next = add i32 %i, 1
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  store i32 %acc.next, ptr addrspace(1) %out
  ret void
}

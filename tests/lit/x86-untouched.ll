; Loading the plugin into a compile for another target changes nothing: the
; passes are added to NVPTX pipelines only.
; RUN: llc -mtriple=x86_64-unknown-linux-gnu -O2 %s -o %t.stock.s
; RUN: llc -load-pass-plugin=%plugin -mtriple=x86_64-unknown-linux-gnu -O2 %s -o %t.plugin.s
; RUN: diff %t.stock.s %t.plugin.s
; RUN: llc -load-pass-plugin=%plugin -mtriple=x86_64-unknown-linux-gnu -O2 -debug-pass=Structure %s \
; RUN:   -o /dev/null 2>&1 | FileCheck %s
; CHECK: Register Coalescer
; CHECK-NOT: nvregalloc

define i32 @sum(ptr %p, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i32 [ 0, %entry ], [ %s.next, %loop ]
  %q = getelementptr i32, ptr %p, i32 %i
  %v = load i32, ptr %q
  %s.next = add i32 %s, %v
  %i.next = add i32 %i, 1
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret i32 %s.next
}

; PHIs across a critical edge: the entry block branches to %join directly and
; through %mid. In @critical, %x dies at the PHI, so %x, %y and %r share one
; register and the PHI goes without any copy (no edge to split). In
; @critical_live %x is read after the PHI, so it interferes with %r: the PHI
; is left to PHI elimination.
; RUN: %llc_plugin -nvregalloc-cssa-coalesce -verify-machineinstrs %s -o /dev/null -nvregalloc-cssa-verbosity=1 \
; RUN:   -print-after=nvregalloc-cssa 2>&1 | FileCheck %s
; CHECK:      nvregalloc::cssa: critical i{{[0-9]+}} in bb2: eliminated, 3 classes joined
; CHECK:      Machine code for function critical:
; CHECK:      bb.0.entry:
; CHECK:      [[X:%[0-9]+]]:b32 = LD_i32 {{.*}}&critical_param_1
; CHECK:      bb.1.mid:
; CHECK-NEXT: predecessors
; CHECK-NEXT: successors
; CHECK-EMPTY:
; CHECK-NEXT: [[X]]:b32 = MULT32ri [[X]]:b32, 7
; CHECK:      bb.2.join:
; CHECK-NOT:  PHI
; CHECK:      ST_i32 [[X]]:b32
; CHECK:      nvregalloc::cssa: critical_live i{{[0-9]+}} in bb2: kept, v{{[0-9]+}} from bb0 interferes
; CHECK:      Machine code for function critical_live:
; CHECK:      bb.0.entry:
; CHECK:      [[X:%[0-9]+]]:b32 = LD_i32 {{.*}}&critical_live_param_1
; CHECK:      bb.1.mid:
; CHECK:      bb.2.join:
; CHECK:      PHI

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @critical(ptr addrspace(1) %out, i32 %x, i32 %c) {
entry:
  %t = icmp eq i32 %c, 0
  br i1 %t, label %join, label %mid
mid:
  %y = mul i32 %x, 7
  store i32 %y, ptr addrspace(1) %out
  br label %join
join:
  %r = phi i32 [ %x, %entry ], [ %y, %mid ]
  %p = getelementptr i32, ptr addrspace(1) %out, i32 1
  store i32 %r, ptr addrspace(1) %p
  ret void
}

define ptx_kernel void @critical_live(ptr addrspace(1) %out, i32 %x, i32 %c) {
entry:
  %t = icmp eq i32 %c, 0
  br i1 %t, label %join, label %mid
mid:
  %y = mul i32 %x, 7
  br label %join
join:
  %r = phi i32 [ %x, %entry ], [ %y, %mid ]
  %s = add i32 %r, %x
  store i32 %s, ptr addrspace(1) %out
  ret void
}

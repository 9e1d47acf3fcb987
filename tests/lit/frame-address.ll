; Two local arrays: NVPTX's peephole (after our passes) turns each
; `cvta.to.local` of a frame address into a direct %SPL address, but only
; while the frame-address instruction is its register's one def. The color
; pass must not give that register to other values, or the stack is
; addressed through generic %SP (`cvta.local.u64 %SP, %SPL` and generic
; address arithmetic: more SASS and local-memory traffic after ptxas).
; RUN: %llc_nvptx %s -o - | FileCheck %s
; RUN: %llc_plugin -verify-machineinstrs %s -o - | FileCheck %s
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-coalesce=replace-stock %s -o - | FileCheck %s
; Graph-free coloring too.
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-graph-limit=0 %s -o - | FileCheck %s
; CHECK-NOT: cvta.local.u64
; CHECK:     add.u64 %rd{{[0-9]+}}, %SPL, 0;
; CHECK-NEXT: add.u64 %rd{{[0-9]+}}, %SPL, 64;
; CHECK-NOT: cvta.local.u64

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr addrspace(1) %out, i32 %n, i32 %i, i32 %j) {
entry:
  %a = alloca [16 x i32], align 4
  %b = alloca [16 x i32], align 4
  br label %fill

fill:
  %k = phi i32 [ 0, %entry ], [ %k.next, %fill ]
  %pa = getelementptr inbounds [16 x i32], ptr %a, i32 0, i32 %k
  %va = mul i32 %k, %n
  store i32 %va, ptr %pa, align 4
  %pb = getelementptr inbounds [16 x i32], ptr %b, i32 0, i32 %k
  %vb = add i32 %k, %n
  store i32 %vb, ptr %pb, align 4
  %k.next = add nuw nsw i32 %k, 1
  %done = icmp eq i32 %k.next, 16
  br i1 %done, label %read, label %fill, !llvm.loop !0

read:
  %ra = getelementptr inbounds [16 x i32], ptr %a, i32 0, i32 %i
  %x = load i32, ptr %ra, align 4
  %rb = getelementptr inbounds [16 x i32], ptr %b, i32 0, i32 %j
  %y = load i32, ptr %rb, align 4
  %s = add i32 %x, %y
  store i32 %s, ptr addrspace(1) %out, align 4
  ret void
}

!0 = distinct !{!0, !1}
!1 = !{!"llvm.loop.unroll.disable"}

; nvregalloc-keep-rolled (in llc, the last IR pass before instruction
; selection; on by default): a loop with a constant trip count that LLVM's
; unrollers left rolled, and that would be over LLVM's full-unroll threshold
; (300 IR instructions) unrolled, is marked llvm.loop.unroll.disable, which
; NVPTX prints as .pragma "nounroll", so that ptxas leaves it rolled too.
; Left to ptxas: a loop within the threshold, a runtime trip count, a loop
; over a local array (ptxas's unrolling can make it registers), and a loop
; whose metadata already decides.
; RUN: %llc_plugin %s -o - | FileCheck %s
; RUN: %llc_nvptx %s -o - | FileCheck %s --check-prefix=STOCK
; RUN: %llc_plugin -nvregalloc-keep-loops-rolled=false %s -o - | FileCheck %s --check-prefix=STOCK
; Per function: rolled=ptxas gives its loops back to ptxas; rolled=kept
; marks them whatever the command line says.
; RUN: printf 'big rolled=ptxas\n' > %t.ptxas.nvra
; RUN: %llc_plugin -nvregalloc-function-options=%t.ptxas.nvra %s -o - | FileCheck %s --check-prefix=STOCK
; RUN: printf 'big rolled=kept\n' > %t.kept.nvra
; RUN: %llc_plugin -nvregalloc-keep-loops-rolled=false -nvregalloc-function-options=%t.kept.nvra %s -o - \
; RUN:   | FileCheck %s
; RUN: %llc_plugin -pass-remarks=nvregalloc-keep-rolled -pass-remarks-missed=nvregalloc-keep-rolled \
; RUN:   %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

target triple = "nvptx64-nvidia-cuda"

declare float @llvm.nvvm.sin.approx.f(float)
declare float @llvm.nvvm.cos.approx.f(float)

; 17 iterations of 24 instructions (as llc counts them at its end): 408
; unrolled, over LLVM's 300.
; CHECK-LABEL: .entry big(
; CHECK:       .pragma "nounroll";
; CHECK:       ret;
; STOCK-LABEL: .entry big(
; STOCK-NOT:   .pragma
; STOCK:       ret;
; REMARK:      function big: loop of 17 iterations of 24 instructions: LLVM left it rolled, and so does ptxas (about 408 instructions unrolled)
define ptx_kernel void @big(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %n) {
entry:
  br label %loop

loop:
  %k = phi i32 [ 0, %entry ], [ %k.next, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %acc.next, %loop ]
  %row = mul nsw i32 %k, %n
  %at = zext i32 %row to i64
  %p = getelementptr inbounds float, ptr addrspace(1) %in, i64 %at
  %v = load float, ptr addrspace(1) %p, align 4
  %m = fmul float %acc, %v
  %s = call float @llvm.nvvm.sin.approx.f(float %m)
  %a = fadd float %acc, %v
  %c = call float @llvm.nvvm.cos.approx.f(float %a)
  %sc = fmul float %s, %c
  %v1 = fadd float %v, 1.0
  %q = fdiv float %sc, %v1
  %t = fadd float %m, %q
  %d = fsub float %v, %acc
  %d2 = fmul float %d, %d
  %d3 = fmul float %d2, %t
  %u = fsub float %t, %d3
  %w = fmul float %u, %v1
  %acc.next = fadd float %w, %q
  %k.next = add nuw nsw i32 %k, 1
  %done = icmp eq i32 %k.next, 17
  br i1 %done, label %exit, label %loop

exit:
  store float %acc.next, ptr addrspace(1) %out, align 4
  ret void
}

; 4 iterations of 24 instructions: 96 unrolled, within LLVM's threshold.
; CHECK-LABEL: .entry small(
; CHECK-NOT:   .pragma
; CHECK:       ret;
define ptx_kernel void @small(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %n) {
entry:
  br label %loop

loop:
  %k = phi i32 [ 0, %entry ], [ %k.next, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %acc.next, %loop ]
  %row = mul nsw i32 %k, %n
  %at = zext i32 %row to i64
  %p = getelementptr inbounds float, ptr addrspace(1) %in, i64 %at
  %v = load float, ptr addrspace(1) %p, align 4
  %m = fmul float %acc, %v
  %s = call float @llvm.nvvm.sin.approx.f(float %m)
  %a = fadd float %acc, %v
  %c = call float @llvm.nvvm.cos.approx.f(float %a)
  %sc = fmul float %s, %c
  %v1 = fadd float %v, 1.0
  %q = fdiv float %sc, %v1
  %t = fadd float %m, %q
  %d = fsub float %v, %acc
  %d2 = fmul float %d, %d
  %d3 = fmul float %d2, %t
  %u = fsub float %t, %d3
  %w = fmul float %u, %v1
  %acc.next = fadd float %w, %q
  %k.next = add nuw nsw i32 %k, 1
  %done = icmp eq i32 %k.next, 4
  br i1 %done, label %exit, label %loop

exit:
  store float %acc.next, ptr addrspace(1) %out, align 4
  ret void
}

; A trip count from a parameter.
; CHECK-LABEL: .entry runtime(
; CHECK-NOT:   .pragma
; CHECK:       ret;
define ptx_kernel void @runtime(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %n, i32 %trips) {
entry:
  %any = icmp sgt i32 %trips, 0
  br i1 %any, label %loop, label %exit

loop:
  %k = phi i32 [ 0, %entry ], [ %k.next, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %acc.next, %loop ]
  %row = mul nsw i32 %k, %n
  %at = zext i32 %row to i64
  %p = getelementptr inbounds float, ptr addrspace(1) %in, i64 %at
  %v = load float, ptr addrspace(1) %p, align 4
  %m = fmul float %acc, %v
  %s = call float @llvm.nvvm.sin.approx.f(float %m)
  %a = fadd float %acc, %v
  %c = call float @llvm.nvvm.cos.approx.f(float %a)
  %sc = fmul float %s, %c
  %v1 = fadd float %v, 1.0
  %q = fdiv float %sc, %v1
  %t = fadd float %m, %q
  %d = fsub float %v, %acc
  %d2 = fmul float %d, %d
  %d3 = fmul float %d2, %t
  %u = fsub float %t, %d3
  %w = fmul float %u, %v1
  %acc.next = fadd float %w, %q
  %k.next = add nuw nsw i32 %k, 1
  %done = icmp eq i32 %k.next, %trips
  br i1 %done, label %exit, label %loop

exit:
  %r = phi float [ 0.0, %entry ], [ %acc.next, %loop ]
  store float %r, ptr addrspace(1) %out, align 4
  ret void
}

; A local array read at the counter (volatile, so that nothing before
; ptxas folds it): ptxas's unrolling makes it registers.
; CHECK-LABEL: .entry walks_local(
; CHECK-NOT:   .pragma
; CHECK:       ret;
; REMARK:      function walks_local: loop of 17 iterations of {{[0-9]+}} instructions: left to ptxas (it walks a local array, which ptxas's unrolling can make registers)
define ptx_kernel void @walks_local(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %n) {
entry:
  %table = alloca [17 x float], align 4
  br label %loop

loop:
  %k = phi i32 [ 0, %entry ], [ %k.next, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %acc.next, %loop ]
  %row = mul nsw i32 %k, %n
  %at = zext i32 %row to i64
  %p = getelementptr inbounds float, ptr addrspace(1) %in, i64 %at
  %v = load float, ptr addrspace(1) %p, align 4
  %kk = zext i32 %k to i64
  %slot = getelementptr inbounds float, ptr %table, i64 %kk
  %old = load volatile float, ptr %slot, align 4
  %m = fmul float %acc, %v
  %s = call float @llvm.nvvm.sin.approx.f(float %m)
  %a = fadd float %acc, %old
  %c = call float @llvm.nvvm.cos.approx.f(float %a)
  %sc = fmul float %s, %c
  %v1 = fadd float %v, 1.0
  %q = fdiv float %sc, %v1
  %t = fadd float %m, %q
  %d = fsub float %v, %acc
  %d2 = fmul float %d, %d
  %d3 = fmul float %d2, %t
  %u = fsub float %t, %d3
  %w = fmul float %u, %v1
  %acc.next = fadd float %w, %q
  store volatile float %acc.next, ptr %slot, align 4
  %k.next = add nuw nsw i32 %k, 1
  %done = icmp eq i32 %k.next, 17
  br i1 %done, label %exit, label %loop

exit:
  store float %acc.next, ptr addrspace(1) %out, align 4
  ret void
}

; The source asked for two copies (#pragma unroll 2): its decision holds,
; and no mark is added.
; CHECK-LABEL: .entry source_decides(
; CHECK-NOT:   .pragma
; CHECK:       ret;
define ptx_kernel void @source_decides(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %n) {
entry:
  br label %loop

loop:
  %k = phi i32 [ 0, %entry ], [ %k.next, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %acc.next, %loop ]
  %row = mul nsw i32 %k, %n
  %at = zext i32 %row to i64
  %p = getelementptr inbounds float, ptr addrspace(1) %in, i64 %at
  %v = load float, ptr addrspace(1) %p, align 4
  %m = fmul float %acc, %v
  %s = call float @llvm.nvvm.sin.approx.f(float %m)
  %a = fadd float %acc, %v
  %c = call float @llvm.nvvm.cos.approx.f(float %a)
  %sc = fmul float %s, %c
  %v1 = fadd float %v, 1.0
  %q = fdiv float %sc, %v1
  %t = fadd float %m, %q
  %d = fsub float %v, %acc
  %d2 = fmul float %d, %d
  %d3 = fmul float %d2, %t
  %u = fsub float %t, %d3
  %w = fmul float %u, %v1
  %acc.next = fadd float %w, %q
  %k.next = add nuw nsw i32 %k, 1
  %done = icmp eq i32 %k.next, 17
  br i1 %done, label %exit, label %loop, !llvm.loop !0

exit:
  store float %acc.next, ptr addrspace(1) %out, align 4
  ret void
}

!0 = distinct !{!0, !1}
!1 = !{!"llvm.loop.unroll.count", i32 2}

; A device function every call in its module inlines for locals keeps its
; body only for callers in other modules (external linkage, separate
; compilation): its marked calls get a private copy of it, internal and with
; its own marks, and the function keeps LLVM's own inlining. Without the
; copy, @mid would first inline @leaf, then be kept whole beside the kernel
; that inlines it (HeCBench's bonds: four such functions of 4,500 PTX
; instructions each, 2.1x stock's compile time; 1.25x with the copies).
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-calls -inline-threshold=0 \
; RUN:   -pass-remarks=nvregalloc-promote-locals-calls %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=REMARK
; RUN: FileCheck %s < %t.ll
; Through the O3 pipeline the copy is inlined and gone, the kernel calls nothing, and
; @mid still calls @leaf (at -inline-threshold=0 LLVM inlines neither).
; RUN: %opt_plugin -passes='default<O3>' -inline-threshold=0 %s -S | FileCheck %s --check-prefix=O3

; REMARK: function mid: every call to it here is inlined for locals, so they inline a private copy; the function itself, for callers in other modules, keeps LLVM's own inlining
; REMARK-NOT: function {{.*}} private copy

; The kernel's call goes to the copy, which inlines @leaf; @mid does not.
; Called out of line too (@mid_out_of_line), or discardable (LLVM drops it
; once inlined everywhere: @mid_discardable), a function keeps its marks.
; CHECK-LABEL: define void @mid(
; CHECK:         call void @leaf(ptr %t, float %x){{$}}
; CHECK-LABEL: define void @mid_out_of_line(
; CHECK:         call void @leaf(ptr %t, float %x) #[[ALWAYS:[0-9]+]]
; CHECK-LABEL: define linkonce_odr void @mid_discardable(
; CHECK:         call void @leaf(ptr %t, float %x) #[[ALWAYS]]
; CHECK-LABEL: define ptx_kernel void @kernel(
; CHECK:         call void @mid.inlined(ptr %r, float %x) #[[ALWAYS]]
; CHECK-LABEL: define ptx_kernel void @kernel_out_of_line(
; CHECK:         call void @mid_out_of_line(ptr %r, float %x) #[[ALWAYS]]
; CHECK:         call void @mid_out_of_line(ptr %g, float %x){{$}}
; CHECK-LABEL: define ptx_kernel void @kernel_discardable(
; CHECK:         call void @mid_discardable(ptr %r, float %x) #[[ALWAYS]]
; CHECK-LABEL: define internal void @mid.inlined(
; CHECK:         call void @leaf(ptr %t, float %x) #[[ALWAYS]]
; CHECK: attributes #[[ALWAYS]] = { alwaysinline }

; O3-LABEL: define void @mid(
; O3:         call void @leaf(
; O3-NOT:   @mid.inlined
; O3-LABEL: define ptx_kernel void @kernel(
; O3-NOT:     call
; O3:         ret void

target triple = "nvptx64-nvidia-cuda"

define void @leaf(ptr %p, float %x) {
  %a = fmul float %x, 2.0
  %b = fadd float %a, 1.0
  %c = fmul float %b, %x
  %d = fadd float %c, 3.0
  %p1 = getelementptr inbounds float, ptr %p, i64 1
  %p2 = getelementptr inbounds float, ptr %p, i64 2
  %p3 = getelementptr inbounds float, ptr %p, i64 3
  store float %a, ptr %p
  store float %b, ptr %p1
  store float %c, ptr %p2
  store float %d, ptr %p3
  %e = fmul float %d, %d
  %f = fadd float %e, %a
  %g = fmul float %f, %b
  %h = fadd float %g, %c
  %i = fmul float %h, %d
  %j = fadd float %i, %e
  %k = fmul float %j, %f
  %l = fadd float %k, %g
  store float %l, ptr %p
  store float %k, ptr %p1
  ret void
}

define void @mid(ptr %out, float %x) {
  %t = alloca [4 x float], align 4
  call void @leaf(ptr %t, float %x)
  %t1 = getelementptr inbounds float, ptr %t, i64 1
  %t2 = getelementptr inbounds float, ptr %t, i64 2
  %t3 = getelementptr inbounds float, ptr %t, i64 3
  %v0 = load float, ptr %t
  %v1 = load float, ptr %t1
  %v2 = load float, ptr %t2
  %v3 = load float, ptr %t3
  %s = fadd float %v0, %v1
  %u = fadd float %v2, %v3
  %o1 = getelementptr inbounds float, ptr %out, i64 1
  %o2 = getelementptr inbounds float, ptr %out, i64 2
  %o3 = getelementptr inbounds float, ptr %out, i64 3
  store float %s, ptr %out
  store float %u, ptr %o1
  store float %v0, ptr %o2
  store float %v3, ptr %o3
  ret void
}

define void @mid_out_of_line(ptr %out, float %x) {
  %t = alloca [4 x float], align 4
  call void @leaf(ptr %t, float %x)
  %t1 = getelementptr inbounds float, ptr %t, i64 1
  %t2 = getelementptr inbounds float, ptr %t, i64 2
  %t3 = getelementptr inbounds float, ptr %t, i64 3
  %v0 = load float, ptr %t
  %v1 = load float, ptr %t1
  %v2 = load float, ptr %t2
  %v3 = load float, ptr %t3
  %s = fadd float %v0, %v1
  %u = fadd float %v2, %v3
  %o1 = getelementptr inbounds float, ptr %out, i64 1
  %o2 = getelementptr inbounds float, ptr %out, i64 2
  %o3 = getelementptr inbounds float, ptr %out, i64 3
  store float %s, ptr %out
  store float %u, ptr %o1
  store float %v0, ptr %o2
  store float %v3, ptr %o3
  ret void
}

define linkonce_odr void @mid_discardable(ptr %out, float %x) {
  %t = alloca [4 x float], align 4
  call void @leaf(ptr %t, float %x)
  %t1 = getelementptr inbounds float, ptr %t, i64 1
  %t2 = getelementptr inbounds float, ptr %t, i64 2
  %t3 = getelementptr inbounds float, ptr %t, i64 3
  %v0 = load float, ptr %t
  %v1 = load float, ptr %t1
  %v2 = load float, ptr %t2
  %v3 = load float, ptr %t3
  %s = fadd float %v0, %v1
  %u = fadd float %v2, %v3
  %o1 = getelementptr inbounds float, ptr %out, i64 1
  %o2 = getelementptr inbounds float, ptr %out, i64 2
  %o3 = getelementptr inbounds float, ptr %out, i64 3
  store float %s, ptr %out
  store float %u, ptr %o1
  store float %v0, ptr %o2
  store float %v3, ptr %o3
  ret void
}


define ptx_kernel void @kernel(ptr %g, float %x) {
  %r = alloca [4 x float], align 4
  call void @mid(ptr %r, float %x)
  %w = load float, ptr %r
  store float %w, ptr %g
  ret void
}

define ptx_kernel void @kernel_out_of_line(ptr %g, float %x) {
  %r = alloca [4 x float], align 4
  call void @mid_out_of_line(ptr %r, float %x)
  call void @mid_out_of_line(ptr %g, float %x)
  %w = load float, ptr %r
  store float %w, ptr %g
  ret void
}

define ptx_kernel void @kernel_discardable(ptr %g, float %x) {
  %r = alloca [4 x float], align 4
  call void @mid_discardable(ptr %r, float %x)
  %w = load float, ptr %r
  store float %w, ptr %g
  ret void
}

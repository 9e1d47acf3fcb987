; nvregalloc-promote-locals-calls marks a call that takes a local's address
; always-inline while its caller's budget lasts. A callee counts at its size
; once the calls it inlines for its own locals are in it: an always-inline
; call site stays so in every copy of it, so inlining @mid brings @leaf too.
; Counted at @mid's own size (19 instructions), the kernel's call would fit
; a budget of 30; with @leaf in it (about 41) it does not. (HeCBench merkle's
; rescue_prime, six levels of such calls, went from 10,474 PTX lines to
; 321,320 and 100 s of compile while each call was counted at its own size.)
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-calls -inline-threshold=0 -nvregalloc-promote-inline-budget=30 \
; RUN:   -pass-remarks=nvregalloc -pass-remarks-missed=nvregalloc %s -S -o /dev/null 2>&1 | FileCheck %s
; With a budget that fits both, both are inlined.
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-calls -inline-threshold=0 -nvregalloc-promote-inline-budget=100 \
; RUN:   -pass-remarks=nvregalloc %s -S -o /dev/null 2>&1 | FileCheck %s --check-prefix=WIDE

; At LLVM's own threshold its inliner takes both calls, and each callee
; reaches the local at constant offsets only: the calls are left to it, not
; marked (inlined earlier, the code would only be optimized in another
; order).
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-calls \
; RUN:   -pass-remarks=nvregalloc -pass-remarks-missed=nvregalloc %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=ANYWAY
; RUN: FileCheck %s --check-prefix=ANYWAY-IR < %t.ll

; CHECK-DAG: call to leaf takes a local's address (16 bytes): inlined (22 instructions; caller 19 -> about 41)
; CHECK-DAG: call to mid takes a local's address (16 bytes): left to LLVM (over the caller's budget of 30 instructions)
; WIDE-DAG:  call to leaf takes a local's address (16 bytes): inlined
; WIDE-DAG:  call to mid takes a local's address (16 bytes): inlined (41 instructions;

; ANYWAY-DAG: call to leaf takes a local's address (16 bytes): left to LLVM (its inliner takes it by its own cost, and the callee reaches the local at constant offsets only)
; ANYWAY-DAG: call to mid takes a local's address (16 bytes): left to LLVM (its inliner takes it by its own cost, and the callee reaches the local at constant offsets only)
; ANYWAY-IR-NOT: alwaysinline

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

define ptx_kernel void @kernel(ptr %g, float %x) {
  %r = alloca [4 x float], align 4
  call void @mid(ptr %r, float %x)
  %w = load float, ptr %r
  store float %w, ptr %g
  ret void
}

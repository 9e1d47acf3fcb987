; nvregalloc-promote-locals-loops plans a full unroll late for a loop within
; what LLVM's unrollers take by themselves once the body has simplified (at
; most 10 iterations and 1,200 IR instructions unrolled): it marks the loop
; nvregalloc.loop.unroll.late, not llvm.loop.unroll.full, so that the full
; unroller right after the plan decides by its own cost as in stock LLVM;
; nvregalloc-promote-locals-loops-late, before the vectorizer, makes the
; mark llvm.loop.unroll.full, and LLVM's loop unroller and the SROA after it
; make the array registers there (CUTLASS's reference GEMM: unrolled early,
; 593 SASS instructions; late, as stock, 315). A loop over 1,200
; instructions is marked for the full unroller at once.
; RUN: %opt_plugin -passes='loop(nvregalloc-promote-locals-loops)' %s -S -o - | FileCheck %s --check-prefix=PLAN
; RUN: %opt_plugin -passes='loop(nvregalloc-promote-locals-loops),nvregalloc-promote-locals-loops-late' %s -S -o - \
; RUN:   | FileCheck %s --check-prefix=LATE
; RUN: %opt_plugin -passes='default<O3>' %s -S -o - | FileCheck %s --check-prefix=O3
; RUN: %opt_plugin -passes='loop(nvregalloc-promote-locals-loops)' -pass-remarks=nvregalloc-promote-locals-loops \
; RUN:   %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

target triple = "nvptx64-nvidia-cuda"

; PLAN-LABEL: define ptx_kernel void @tile(
; PLAN:       br i1 %done, label %exit, label %loop, !llvm.loop [[LOOP:![0-9]+]]
; PLAN:       [[LOOP]] = distinct !{[[LOOP]], [[MARK:![0-9]+]]}
; PLAN:       [[MARK]] = !{!"nvregalloc.loop.unroll.late"}
; LATE-LABEL: define ptx_kernel void @tile(
; LATE:       br i1 %done, label %exit, label %loop, !llvm.loop [[LOOP:![0-9]+]]
; LATE-NOT:   nvregalloc.loop.unroll.late
; LATE:       [[LOOP]] = distinct !{[[LOOP]], [[MARK:![0-9]+]]}
; LATE:       [[MARK]] = !{!"llvm.loop.unroll.full"}
; O3-LABEL:   define ptx_kernel void @tile(
; O3-NOT:     alloca
; O3:         ret void
; REMARK:     function tile: loop over a 80-byte local array, 4 iterations of {{[0-9]+}} instructions: unrolled fully by LLVM's loop unroller, after the function's simplification
define ptx_kernel void @tile(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %acc = alloca [20 x float], align 4
  call void @llvm.memset.p0.i64(ptr %acc, i8 0, i64 80, i1 false)
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %at = getelementptr inbounds float, ptr addrspace(1) %in, i32 %i
  %c0 = load float, ptr addrspace(1) %at, align 4
  %c1 = fmul float %c0, %c0
  %c2 = fmul float %c1, %c1
  %c3 = fmul float %c2, %c2
  %c4 = fmul float %c3, %c3
  %c5 = fmul float %c4, %c4
  %c6 = fmul float %c5, %c5
  %c7 = fmul float %c6, %c6
  %c8 = fmul float %c7, %c7
  %c9 = fmul float %c8, %c8
  %c10 = fmul float %c9, %c9
  %c11 = fmul float %c10, %c10
  %c12 = fmul float %c11, %c11
  %c13 = fmul float %c12, %c12
  %c14 = fmul float %c13, %c13
  %c15 = fmul float %c14, %c14
  %c16 = fmul float %c15, %c15
  %c17 = fmul float %c16, %c16
  %c18 = fmul float %c17, %c17
  %c19 = fmul float %c18, %c18
  %c20 = fmul float %c19, %c19
  %c21 = fmul float %c20, %c20
  %c22 = fmul float %c21, %c21
  %c23 = fmul float %c22, %c22
  %c24 = fmul float %c23, %c23
  %c25 = fmul float %c24, %c24
  %c26 = fmul float %c25, %c25
  %c27 = fmul float %c26, %c26
  %c28 = fmul float %c27, %c27
  %c29 = fmul float %c28, %c28
  %c30 = fmul float %c29, %c29
  %c31 = fmul float %c30, %c30
  %c32 = fmul float %c31, %c31
  %c33 = fmul float %c32, %c32
  %c34 = fmul float %c33, %c33
  %c35 = fmul float %c34, %c34
  %c36 = fmul float %c35, %c35
  %c37 = fmul float %c36, %c36
  %c38 = fmul float %c37, %c37
  %c39 = fmul float %c38, %c38
  %c40 = fmul float %c39, %c39
  %c41 = fmul float %c40, %c40
  %c42 = fmul float %c41, %c41
  %c43 = fmul float %c42, %c42
  %c44 = fmul float %c43, %c43
  %c45 = fmul float %c44, %c44
  %c46 = fmul float %c45, %c45
  %c47 = fmul float %c46, %c46
  %c48 = fmul float %c47, %c47
  %c49 = fmul float %c48, %c48
  %c50 = fmul float %c49, %c49
  %c51 = fmul float %c50, %c50
  %c52 = fmul float %c51, %c51
  %c53 = fmul float %c52, %c52
  %c54 = fmul float %c53, %c53
  %c55 = fmul float %c54, %c54
  %c56 = fmul float %c55, %c55
  %c57 = fmul float %c56, %c56
  %c58 = fmul float %c57, %c57
  %c59 = fmul float %c58, %c58
  %c60 = fmul float %c59, %c59
  %c61 = fmul float %c60, %c60
  %c62 = fmul float %c61, %c61
  %c63 = fmul float %c62, %c62
  %c64 = fmul float %c63, %c63
  %c65 = fmul float %c64, %c64
  %c66 = fmul float %c65, %c65
  %c67 = fmul float %c66, %c66
  %c68 = fmul float %c67, %c67
  %c69 = fmul float %c68, %c68
  %c70 = fmul float %c69, %c69
  %c71 = fmul float %c70, %c70
  %c72 = fmul float %c71, %c71
  %c73 = fmul float %c72, %c72
  %c74 = fmul float %c73, %c73
  %c75 = fmul float %c74, %c74
  %c76 = fmul float %c75, %c75
  %c77 = fmul float %c76, %c76
  %c78 = fmul float %c77, %c77
  %c79 = fmul float %c78, %c78
  %c80 = fmul float %c79, %c79
  %c81 = fmul float %c80, %c80
  %c82 = fmul float %c81, %c81
  %c83 = fmul float %c82, %c82
  %c84 = fmul float %c83, %c83
  %c85 = fmul float %c84, %c84
  %c86 = fmul float %c85, %c85
  %c87 = fmul float %c86, %c86
  %c88 = fmul float %c87, %c87
  %c89 = fmul float %c88, %c88
  %c90 = fmul float %c89, %c89
  %slot = getelementptr inbounds [20 x float], ptr %acc, i32 0, i32 %i
  %old = load float, ptr %slot, align 4
  %new = fadd float %old, %c90
  store float %new, ptr %slot, align 4
  %next = add nuw nsw i32 %i, 1
  %done = icmp eq i32 %next, 4
  br i1 %done, label %exit, label %loop

exit:
  %a0 = load float, ptr %acc, align 4
  %p3 = getelementptr inbounds [20 x float], ptr %acc, i32 0, i32 3
  %a3 = load float, ptr %p3, align 4
  %s = fadd float %a0, %a3
  store float %s, ptr addrspace(1) %out, align 4
  ret void
}

declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

; nvregalloc-promote-locals-select (part of nvregalloc-promote-locals, last
; in the middle end): a small local that some access indexes by data becomes
; scalars. Each data-dependent load becomes a select among the elements it
; may read, each store a select into each element it may write, and SROA
; then splits the local. ptxas keeps such an array in registers only while
; it is small and seldom accessed so; this one (HeCBench's s8n keeps the
; nearest points per octant so) stays in local memory in stock's PTX.
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-select %s -S -o - | FileCheck %s
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-select -nvregalloc-promote-locals=false %s -S -o - \
; RUN:   | FileCheck %s --check-prefix=OFF
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-select -nvregalloc-promote-max-selects=8 %s -S -o - \
; RUN:   -pass-remarks-missed=nvregalloc-promote-locals-select 2>&1 | FileCheck %s --check-prefix=LIMIT
; The PTX with the pass, and stock's.
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-select %s | %llc_nvptx -o - | FileCheck %s --check-prefix=PTX
; RUN: %llc_nvptx %s -o - | FileCheck %s --check-prefix=STOCK
; Remarks name the local, its accesses and the elements they reach.
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-select -pass-remarks=nvregalloc-promote-locals-select \
; RUN:   -pass-remarks-missed=nvregalloc-promote-locals-select %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

target triple = "nvptx64-nvidia-cuda"

declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare void @sink(ptr)

; Sixteen ints, zeroed, then per point a read and a write at an even index
; (the octant times two, from comparisons): 8 elements each, 16 in all.
; Each select compares the offset's low 32 bits, whatever its width: an
; offset outside the local is undefined, and a 64-bit compare would keep the
; offset's register pair live through the selects.
; CHECK-LABEL: define ptx_kernel void @nearest(
; CHECK-NOT:   alloca
; CHECK:       [[LOW:%.*]] = trunc i64 %{{.*}} to i32
; CHECK-NEXT:  icmp eq i32 [[LOW]], 8
; CHECK:       select
; CHECK:       ret void
; OFF-LABEL:   define ptx_kernel void @nearest(
; OFF:         alloca [16 x i32]
; LIMIT:       remark: {{.*}}function nearest: local 'best' of 64 bytes indexed by data, 2 such accesses reaching 16 elements in all: left in memory (over the limits)
; LIMIT-LABEL: define ptx_kernel void @nearest(
; LIMIT:       alloca [16 x i32]
; PTX-LABEL:   .entry nearest(
; PTX-NOT:     .local
; PTX-NOT:     ld.local
; PTX-NOT:     setp.{{[a-z]+}}.b64
; PTX:         ret;
; STOCK-LABEL: .entry nearest(
; STOCK:       .local .align 4 .b8 __local_depot0[64];
; STOCK:       ld.local.b32
; STOCK:       st.local.b32
; REMARK:      remark: {{.*}}function nearest: local 'best' of 64 bytes indexed by data, 2 such accesses reaching 16 elements in all: each becomes selects among them, the local registers
define ptx_kernel void @nearest(ptr %points, ptr %out, i32 %n) {
entry:
  %best = alloca [16 x i32], align 4
  call void @llvm.memset.p0.i64(ptr align 4 %best, i8 0, i64 64, i1 false)
  br label %loop

loop:
  %j = phi i32 [ 0, %entry ], [ %next, %loop ]
  %at = getelementptr inbounds i32, ptr %points, i32 %j
  %d = load i32, ptr %at, align 4
  %high = icmp sgt i32 %d, 100
  %odd = and i32 %d, 1
  %octant = select i1 %high, i32 4, i32 0
  %bucket = or i32 %octant, %odd
  %index = shl i32 %bucket, 1
  %slot = getelementptr inbounds [16 x i32], ptr %best, i32 0, i32 %index
  %old = load i32, ptr %slot, align 4
  %min = call i32 @llvm.smin.i32(i32 %old, i32 %d)
  store i32 %min, ptr %slot, align 4
  %next = add i32 %j, 1
  %done = icmp eq i32 %next, %n
  br i1 %done, label %exit, label %loop

exit:
  %first = load i32, ptr %best, align 4
  %last.at = getelementptr inbounds [16 x i32], ptr %best, i32 0, i32 10
  %last = load i32, ptr %last.at, align 4
  %sum = add i32 %first, %last
  store i32 %sum, ptr %out, align 4
  ret void
}

; A pointer chosen between two elements, one of them indexed by data: the
; select of the pointers becomes a select of their offsets.
; CHECK-LABEL: define ptx_kernel void @chosen(
; CHECK-NOT:   alloca
; CHECK:       ret void
; REMARK:      remark: {{.*}}function chosen: local 'a' of 32 bytes indexed by data, 1 such accesses reaching 8 elements in all: each becomes selects among them, the local registers
define ptx_kernel void @chosen(ptr %out, ptr %in, i32 %n, i1 %c, float %x) {
entry:
  %a = alloca [8 x float], align 4
  call void @llvm.memset.p0.i64(ptr align 4 %a, i8 0, i64 32, i1 false)
  %q = getelementptr inbounds [8 x float], ptr %a, i32 0, i32 3
  br label %loop

loop:
  %j = phi i32 [ 0, %entry ], [ %next, %loop ]
  %at = getelementptr inbounds i32, ptr %in, i32 %j
  %i = load i32, ptr %at, align 4
  %p = getelementptr inbounds [8 x float], ptr %a, i32 0, i32 %i
  %r = select i1 %c, ptr %p, ptr %q
  store float %x, ptr %r, align 4
  %next = add i32 %j, 1
  %done = icmp eq i32 %next, %n
  br i1 %done, label %exit, label %loop

exit:
  %v = load float, ptr %q, align 4
  store float %v, ptr %out, align 4
  ret void
}

; Left in memory: read at a data-dependent index only once, outside any
; loop, or filled and read in one pass of a loop (libdevice's sine reduces a
; huge argument so, on a path seldom taken: a few local accesses cost less
; than registers held across them).
; CHECK-LABEL: define ptx_kernel void @once(
; CHECK:       alloca [7 x i32]
; REMARK:      remark: {{.*}}function once: local 'a' of 28 bytes indexed by data, 1 such accesses reaching 7 elements in all: left in memory (no loop works on what was set before it)
define ptx_kernel void @once(ptr %out, i32 %i) {
  %a = alloca [7 x i32], align 4
  call void @llvm.memset.p0.i64(ptr align 4 %a, i8 1, i64 28, i1 false)
  %p = getelementptr inbounds [7 x i32], ptr %a, i32 0, i32 %i
  %v = load i32, ptr %p, align 4
  store i32 %v, ptr %out, align 4
  ret void
}

; A table of 30 ints, set before a loop that reads it at one data-dependent
; place: 30 selects a read where it was one local load, over the 16 a
; data-dependent access may select among on average. Left in memory.
; CHECK-LABEL: define ptx_kernel void @table(
; CHECK:       alloca [30 x i32]
; REMARK:      remark: {{.*}}function table: local 't' of 120 bytes indexed by data, 1 such accesses reaching 30 elements in all: left in memory (over the limits)
define ptx_kernel void @table(ptr %out, ptr %in, i32 %n) {
entry:
  %t = alloca [30 x i32], align 4
  call void @llvm.memset.p0.i64(ptr align 4 %t, i8 1, i64 120, i1 false)
  br label %loop

loop:
  %j = phi i32 [ 0, %entry ], [ %next, %loop ]
  %sum = phi i32 [ 0, %entry ], [ %add, %loop ]
  %at = getelementptr inbounds i32, ptr %in, i32 %j
  %k = load i32, ptr %at, align 4
  %index = urem i32 %k, 30
  %slot = getelementptr inbounds [30 x i32], ptr %t, i32 0, i32 %index
  %v = load i32, ptr %slot, align 4
  %add = add i32 %sum, %v
  %next = add i32 %j, 1
  %done = icmp eq i32 %next, %n
  br i1 %done, label %exit, label %loop

exit:
  store i32 %add, ptr %out, align 4
  ret void
}

; CHECK-LABEL: define ptx_kernel void @scratch(
; CHECK:       alloca [4 x i32]
; REMARK:      remark: {{.*}}function scratch: local 'a' of 16 bytes indexed by data, 1 such accesses reaching 4 elements in all: left in memory (no loop works on what was set before it)
define ptx_kernel void @scratch(ptr %out, ptr %in, i32 %n) {
entry:
  %a = alloca [4 x i32], align 4
  %a1 = getelementptr inbounds i8, ptr %a, i64 4
  %a2 = getelementptr inbounds i8, ptr %a, i64 8
  %a3 = getelementptr inbounds i8, ptr %a, i64 12
  br label %loop

loop:
  %j = phi i32 [ 0, %entry ], [ %next, %loop ]
  %at = getelementptr inbounds i32, ptr %in, i32 %j
  %d = load i32, ptr %at, align 4
  store i32 %j, ptr %a, align 4
  store i32 %d, ptr %a1, align 4
  store i32 %n, ptr %a2, align 4
  store i32 7, ptr %a3, align 4
  %k = and i32 %d, 3
  %p = getelementptr inbounds [4 x i32], ptr %a, i32 0, i32 %k
  %v = load i32, ptr %p, align 4
  %o = getelementptr inbounds i32, ptr %out, i32 %j
  store i32 %v, ptr %o, align 4
  %next = add i32 %j, 1
  %done = icmp eq i32 %next, %n
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

; Left in memory: a loop walks it (selects in every iteration would cost
; more), its address goes to a call, it is over 64 bytes, or it is read as
; two types.
; CHECK-LABEL: define ptx_kernel void @left(
; CHECK-COUNT-4: alloca
; REMARK:      remark: {{.*}}function left: local 'walked' of 32 bytes indexed by data or a loop's counter, 2 such accesses reaching 16 elements in all: left in memory (no loop works on what was set before it)
; REMARK:      remark: {{.*}}function left: local 'escapes' of 32 bytes indexed by data or a loop's counter: left in memory (its address goes to a call, or is stored, compared or made an integer)
; REMARK:      remark: {{.*}}function left: local 'big' of 68 bytes indexed by data, 1 such accesses reaching 17 elements in all: left in memory (over the limits)
; REMARK:      remark: {{.*}}function left: local 'mixed' of 32 bytes indexed by data or a loop's counter: left in memory (it is accessed as elements of two types, or in part of an element)
; REMARK-NOT:  function left:
define ptx_kernel void @left(ptr %out, i32 %i, i32 %n) {
entry:
  %walked = alloca [8 x i32], align 4
  %escapes = alloca [8 x i32], align 4
  %big = alloca [17 x i32], align 4
  %mixed = alloca [8 x i32], align 4
  call void @llvm.memset.p0.i64(ptr align 4 %walked, i8 0, i64 32, i1 false)
  %w = getelementptr inbounds [8 x i32], ptr %walked, i32 0, i32 %i
  store i32 1, ptr %w, align 4
  br label %loop

loop:
  %j = phi i32 [ 0, %entry ], [ %next, %loop ]
  %s = phi i32 [ 0, %entry ], [ %sum, %loop ]
  %at = getelementptr inbounds [8 x i32], ptr %walked, i32 0, i32 %j
  %v = load i32, ptr %at, align 4
  %sum = add i32 %s, %v
  %b = getelementptr inbounds [17 x i32], ptr %big, i32 0, i32 %v
  store i32 %sum, ptr %b, align 4
  %e = getelementptr inbounds [8 x i32], ptr %escapes, i32 0, i32 %v
  store i32 %sum, ptr %e, align 4
  %m = getelementptr inbounds [8 x i32], ptr %mixed, i32 0, i32 %v
  store i32 %sum, ptr %m, align 4
  %next = add i32 %j, 1
  %done = icmp eq i32 %next, %n
  br i1 %done, label %exit, label %loop

exit:
  call void @sink(ptr %escapes)
  %b0 = load i32, ptr %big, align 4
  %m0 = load float, ptr %mixed, align 4
  %m1 = bitcast float %m0 to i32
  %r = add i32 %b0, %m1
  store i32 %r, ptr %out, align 4
  ret void
}

; Left in memory: the pointer stored through may point into the local or
; elsewhere (a select of it and an argument).
; CHECK-LABEL: define ptx_kernel void @elsewhere(
; CHECK:       alloca [8 x i32]
; REMARK:      remark: {{.*}}function elsewhere: local 'a' of 32 bytes indexed by data or a loop's counter: left in memory (a phi or select merges its address with another pointer)
; REMARK-NOT:  function elsewhere:
define ptx_kernel void @elsewhere(ptr %out, ptr %in, i32 %n, i1 %c) {
entry:
  %a = alloca [8 x i32], align 4
  call void @llvm.memset.p0.i64(ptr align 4 %a, i8 0, i64 32, i1 false)
  br label %loop

loop:
  %j = phi i32 [ 0, %entry ], [ %next, %loop ]
  %at = getelementptr inbounds i32, ptr %in, i32 %j
  %i = load i32, ptr %at, align 4
  %p = getelementptr inbounds [8 x i32], ptr %a, i32 0, i32 %i
  %r = select i1 %c, ptr %p, ptr %out
  store i32 %j, ptr %r, align 4
  %next = add i32 %j, 1
  %done = icmp eq i32 %next, %n
  br i1 %done, label %exit, label %loop

exit:
  %v = load i32, ptr %a, align 4
  store i32 %v, ptr %out, align 4
  ret void
}

; A loop with a constant trip count that steps the offset, left rolled for
; its long iterations (nvregalloc-promote-locals-loops): its store becomes
; selects among the 4 elements once the loop's 4 selects an iteration are
; at most an eighth of it (-nvregalloc-promote-rolled-insts-per-select);
; read at constant offsets after it, the array needs no loop reusing it.
; A short iteration, or a runtime trip count, leaves the local as it was.
; The loop is then marked to stay rolled (NVPTX prints .pragma "nounroll"):
; ptxas unrolls a short loop by itself, making the copies the rule left out.
; CHECK-LABEL: define ptx_kernel void @filled_long(
; CHECK-NOT:   alloca
; CHECK:       select
; CHECK:       br i1 %done, label %exit, label %loop, !llvm.loop [[ROLLED:![0-9]+]]
; CHECK:       ret void
; PTX-LABEL:   .entry filled_long(
; PTX:         .pragma "nounroll";
; PTX:         ret;
; REMARK:      remark: {{.*}}function filled_long: local 'w' of 16 bytes indexed by data or a loop's counter, 1 such accesses reaching 4 elements in all: each becomes selects among them, the local registers
define ptx_kernel void @filled_long(ptr %in, ptr %out) {
entry:
  %w = alloca [4 x float], align 4
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %at = getelementptr inbounds float, ptr %in, i32 %i
  %x = load float, ptr %at, align 4
  %c0 = fmul float %x, %x
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
  %slot = getelementptr inbounds [4 x float], ptr %w, i32 0, i32 %i
  store float %c35, ptr %slot, align 4
  %next = add nuw nsw i32 %i, 1
  %done = icmp eq i32 %next, 4
  br i1 %done, label %exit, label %loop

exit:
  %w1p = getelementptr inbounds [4 x float], ptr %w, i32 0, i32 1
  %w3p = getelementptr inbounds [4 x float], ptr %w, i32 0, i32 3
  %w0 = load float, ptr %w, align 4
  %w1 = load float, ptr %w1p, align 4
  %w3 = load float, ptr %w3p, align 4
  %s = fadd float %w0, %w1
  %r = fadd float %s, %w3
  store float %r, ptr %out, align 4
  ret void
}

; CHECK-LABEL: define ptx_kernel void @filled_short(
; CHECK:       alloca [4 x float]
; REMARK:      remark: {{.*}}function filled_short: local 'w' of 16 bytes indexed by data or a loop's counter, 1 such accesses reaching 4 elements in all: left in memory (a loop that steps an offset has a runtime trip count, or is short beside its selects)
define ptx_kernel void @filled_short(ptr %in, ptr %out) {
entry:
  %w = alloca [4 x float], align 4
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %at = getelementptr inbounds float, ptr %in, i32 %i
  %x = load float, ptr %at, align 4
  %c0 = fmul float %x, %x
  %c1 = fmul float %c0, %c0
  %c2 = fmul float %c1, %c1
  %c3 = fmul float %c2, %c2
  %slot = getelementptr inbounds [4 x float], ptr %w, i32 0, i32 %i
  store float %c3, ptr %slot, align 4
  %next = add nuw nsw i32 %i, 1
  %done = icmp eq i32 %next, 4
  br i1 %done, label %exit, label %loop

exit:
  %w1p = getelementptr inbounds [4 x float], ptr %w, i32 0, i32 1
  %w3p = getelementptr inbounds [4 x float], ptr %w, i32 0, i32 3
  %w0 = load float, ptr %w, align 4
  %w1 = load float, ptr %w1p, align 4
  %w3 = load float, ptr %w3p, align 4
  %s = fadd float %w0, %w1
  %r = fadd float %s, %w3
  store float %r, ptr %out, align 4
  ret void
}

; CHECK-LABEL: define ptx_kernel void @filled_runtime(
; CHECK:       alloca [4 x float]
; REMARK:      remark: {{.*}}function filled_runtime: local 'w' of 16 bytes indexed by data or a loop's counter, 1 such accesses reaching 4 elements in all: left in memory (a loop that steps an offset has a runtime trip count, or is short beside its selects)
define ptx_kernel void @filled_runtime(ptr %in, ptr %out, i32 %n) {
entry:
  %w = alloca [4 x float], align 4
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %at = getelementptr inbounds float, ptr %in, i32 %i
  %x = load float, ptr %at, align 4
  %c0 = fmul float %x, %x
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
  %slot = getelementptr inbounds [4 x float], ptr %w, i32 0, i32 %i
  store float %c35, ptr %slot, align 4
  %next = add nuw nsw i32 %i, 1
  %done = icmp eq i32 %next, %n
  br i1 %done, label %exit, label %loop

exit:
  %w1p = getelementptr inbounds [4 x float], ptr %w, i32 0, i32 1
  %w3p = getelementptr inbounds [4 x float], ptr %w, i32 0, i32 3
  %w0 = load float, ptr %w, align 4
  %w1 = load float, ptr %w1p, align 4
  %w3 = load float, ptr %w3p, align 4
  %s = fadd float %w0, %w1
  %r = fadd float %s, %w3
  store float %r, ptr %out, align 4
  ret void
}

; Only the loop whose accesses were made selects is marked.
; CHECK-NOT:   !llvm.loop
; CHECK:       [[ROLLED]] = distinct !{[[ROLLED]], [[DISABLE:![0-9]+]]}
; CHECK:       [[DISABLE]] = !{!"llvm.loop.unroll.disable"}

; Budget mode must not put spill code between a block's terminators. A switch
; lowered to a jump table ends its block with several terminators, the last
; (brx.idx) reading the index; when the index is spilled its reload goes
; before the first terminator. (Reduced with llvm-reduce from HeCBench's
; md5hash, where -verify-machineinstrs found "Non-terminator instruction after
; the first terminator".)
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-max-regs=8 %s -o %t.ptx
; RUN: grep -B1 -A12 branchtargets %t.ptx | FileCheck %s
; RUN: %if cuda %{ %ptxas -arch=sm_90 %t.ptx -o /dev/null %}

; CHECK:      ld.local.b32 [[IDX:%r[0-9]+]], [%SPL{{[+0-9]*}}];
; CHECK-NEXT: $L_brx_0: .branchtargets
; CHECK:      brx.idx [[IDX]], $L_brx_0;

target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.fshl.i32(i32, i32, i32)

define ptx_kernel void @md5_switch(i32 noundef %0, i32 noundef %1, i32 noundef %2, i32 noundef %3, i32 noundef %4, i32 %5, i32 %6, i32 %7, i32 %8, i32 %9, i32 %10, i32 %11, i32 %12, i32 %13) {
  %15 = shl i32 %0, 1
  %16 = add i32 %5, 0
  %17 = add i32 %5, 0
  br label %18

18:                                               ; preds = %74, %14
  switch i32 %0, label %23 [
    i32 0, label %19
    i32 1, label %20
    i32 2, label %21
    i32 3, label %22
  ]

19:                                               ; preds = %18
  br label %23

20:                                               ; preds = %18
  br label %23

21:                                               ; preds = %18
  br label %23

22:                                               ; preds = %18
  br label %23

23:                                               ; preds = %22, %21, %20, %19, %18
  %24 = phi i32 [ 0, %18 ], [ 1, %19 ], [ 1, %20 ], [ 1, %21 ], [ 1, %22 ]
  %25 = add i32 %6, 0
  %26 = tail call i32 @llvm.fshl.i32(i32 %7, i32 0, i32 1)
  %27 = add i32 %26, 0
  %28 = add i32 %24, 0
  %29 = add i32 %28, %27
  %30 = tail call i32 @llvm.fshl.i32(i32 %29, i32 0, i32 0)
  %31 = add i32 1, %8
  %32 = add i32 %8, -405537848
  %33 = tail call i32 @llvm.fshl.i32(i32 %9, i32 0, i32 0)
  %34 = add i32 %10, 0
  %35 = and i32 %11, 1
  %36 = tail call i32 @llvm.fshl.i32(i32 %35, i32 0, i32 0)
  %37 = add i32 %36, 0
  %38 = and i32 1, %12
  %39 = add i32 %13, %30
  %40 = add i32 %39, %38
  %41 = tail call i32 @llvm.fshl.i32(i32 %40, i32 0, i32 0)
  %42 = add i32 %41, %37
  %43 = and i32 %42, %11
  %44 = add i32 %12, 0
  %45 = add i32 %44, %43
  %46 = tail call i32 @llvm.fshl.i32(i32 %45, i32 0, i32 0)
  %47 = add i32 %46, 0
  %48 = add i32 %47, 0
  %49 = tail call i32 @llvm.fshl.i32(i32 %48, i32 0, i32 0)
  %50 = add i32 %49, 0
  %51 = tail call i32 @llvm.fshl.i32(i32 %50, i32 0, i32 0)
  %52 = add i32 %51, 0
  %53 = tail call i32 @llvm.fshl.i32(i32 %52, i32 0, i32 0)
  %54 = add i32 %53, 0
  %55 = tail call i32 @llvm.fshl.i32(i32 %54, i32 0, i32 0)
  %56 = add i32 %24, 0
  %57 = add i32 %56, %55
  %58 = tail call i32 @llvm.fshl.i32(i32 %57, i32 0, i32 0)
  %59 = add i32 %58, 0
  %60 = tail call i32 @llvm.fshl.i32(i32 %59, i32 0, i32 0)
  %61 = add i32 %60, 0
  %62 = tail call i32 @llvm.fshl.i32(i32 %61, i32 0, i32 0)
  %63 = add i32 %62, 0
  %64 = tail call i32 @llvm.fshl.i32(i32 %63, i32 0, i32 0)
  %65 = add i32 %64, 0
  %66 = icmp eq i32 0, 0
  %67 = icmp eq i32 %65, 0
  %68 = select i1 true, i1 %67, i1 false
  %69 = icmp eq i32 0, 0
  %70 = select i1 %68, i1 true, i1 false
  %71 = icmp eq i32 0, 0
  %72 = select i1 %70, i1 true, i1 false
  br i1 %72, label %73, label %74

73:                                               ; preds = %23
  store <4 x i8> zeroinitializer, ptr null, align 1
  br label %74

74:                                               ; preds = %73, %23
  br label %18
}

; A value read by a jump table's index (brx.idx, a terminator after the first
; one, brx.start) is recomputed before the block's first terminator: nothing
; may sit between terminators (found by scripts/fuzz-ir --seed 1).
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-pressure=relieve -nvregalloc-pressure-target=1 %s -o - | FileCheck %s
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-pressure=relieve -nvregalloc-pressure-target=1 %s -o %t.ptx
; RUN: %if cuda %{ %ptxas -arch=sm_90 -c %t.ptx -o %t.o %}

target triple = "nvptx64-nvidia-cuda"

; CHECK-LABEL: .entry jump_table(
; CHECK: and.b32 [[IDX:%r[0-9]+]], [[A:%r[0-9]+]], 7;
; CHECK-NEXT: setp.gt.u32 {{%p[0-9]+}}, [[IDX]], 5;
; CHECK: // %bb.1:
; CHECK-NEXT: and.b32 [[CLONE:%r[0-9]+]], [[A]], 7;
; CHECK-NEXT: $L_brx_0: .branchtargets
; CHECK: brx.idx [[CLONE]], $L_brx_0;
define ptx_kernel void @jump_table(ptr %out, ptr %in, i32 %x) {
entry:
  %a = load i32, ptr %in
  %idx = and i32 %a, 7
  %b = load volatile i32, ptr %in
  switch i32 %idx, label %join [
    i32 0, label %case0
    i32 1, label %case1
    i32 2, label %case2
    i32 3, label %case3
    i32 5, label %case5
  ]

case0:
  br label %join
case1:
  br label %join
case2:
  br label %join
case3:
  br label %join
case5:
  br label %join

join:
  %v = phi i32 [ 9, %entry ], [ 10, %case0 ], [ 11, %case1 ], [ 12, %case2 ], [ 13, %case3 ], [ 15, %case5 ]
  store i32 %v, ptr %out
  store volatile i32 %a, ptr %out
  store volatile i32 %b, ptr %out
  store volatile i32 %x, ptr %out
  ret void
}

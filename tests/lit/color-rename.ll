; nvregalloc-coloring renames every virtual register to one PTX register per
; color. Eight values that are each dead right after their store need only
; MaxLive registers (the parameter, the pointer and one temporary) instead of
; one register each, and the pass reports MaxLive next to the colors it used.
; With -nvregalloc-reuse-within-block=false values defined in one block never
; share a register (ptxas schedules within blocks, and a reused name adds
; false dependences there), so the eight values of this one block keep eight.
; RUN: %llc_nvptx %s -o - | FileCheck %s --check-prefix=STOCK
; RUN: %llc_plugin -nvregalloc-color=rename -verify-machineinstrs -nvregalloc-reuse-within-block=false %s -o - | FileCheck %s --check-prefix=APART
; RUN: %llc_plugin -nvregalloc-color=rename -verify-machineinstrs -pass-remarks-analysis=nvregalloc-coloring %s -o %t.ptx 2>%t.remarks
; RUN: FileCheck %s --check-prefix=PLUGIN < %t.ptx
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
; Off (the default: ptxas re-allocates, and names shared in PTX move its
; register count both ways), and in analysis-only mode, the output is stock's.
; RUN: %llc_plugin %s -o - | FileCheck %s --check-prefix=STOCK
; RUN: %llc_plugin -nvregalloc-color=off -nvregalloc-coalesce=off %s -o - | FileCheck %s --check-prefix=STOCK
; RUN: %llc_plugin -nvregalloc-color=analyze %s -o - | FileCheck %s --check-prefix=STOCK
; STOCK:  .reg .b32 %r<10>;
; APART:  .reg .b32 %r<10>;
; PLUGIN: .reg .b32 %r<3>;
; PLUGIN: ld.param.b32 %r1, [k_param_1];
; PLUGIN: add.s32 %r2, %r1, 1;
; PLUGIN: st.volatile.global.b32 [%rd1], %r2;
; PLUGIN: mul.lo.s32 %r2, %r1, 3;
; REMARK: remark: <unknown>:0:0: function k: vregs-before=10 vregs-after=3 max-live=3 copies-deleted=0 classes-above-max-live=0 {{.*}}colors-B32=2 max-live-B32=2

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr addrspace(1) %p, i32 %a) {
  %x1 = add i32 %a, 1
  store volatile i32 %x1, ptr addrspace(1) %p
  %x2 = mul i32 %a, 3
  store volatile i32 %x2, ptr addrspace(1) %p
  %x3 = xor i32 %a, 5
  store volatile i32 %x3, ptr addrspace(1) %p
  %x4 = shl i32 %a, 7
  store volatile i32 %x4, ptr addrspace(1) %p
  %x5 = sub i32 %a, 11
  store volatile i32 %x5, ptr addrspace(1) %p
  %x6 = or i32 %a, 13
  store volatile i32 %x6, ptr addrspace(1) %p
  %x7 = and i32 %a, 17
  store volatile i32 %x7, ptr addrspace(1) %p
  %x8 = lshr i32 %a, 19
  store volatile i32 %x8, ptr addrspace(1) %p
  ret void
}

; nvregalloc-promote-locals-zext (part of nvregalloc-promote-locals, in llc
; right after NaryReassociate): NaryReassociate rebuilds &buf[zext(tid +
; ntid)] from &buf[tid] plus sext(ntid), while the swap's address was indexed
; with zext(ntid); the two are the same value, but stock's PTX computes it
; twice (mul.wide.s32 and mul.wide.u32) and ptxas keeps both. The pass makes
; each sign extension of a value known non-negative a zero extension where a
; zero extension of the same value is there to merge with, and the EarlyCSE
; after it merges the two.
; RUN: %llc_plugin %s -o - | FileCheck %s
; RUN: %llc_nvptx %s -o - | FileCheck %s --check-prefix=STOCK
; RUN: %llc_plugin -nvregalloc-promote-locals=false %s -o - | FileCheck %s --check-prefix=STOCK
; The IR right after it: the known non-negative extension is a zext, the
; possibly negative one keeps its sext.
; RUN: %llc_plugin -stop-after=nvregalloc-promote-locals-zext %s -o - | FileCheck %s --check-prefix=IR
; RUN: %llc_plugin -pass-remarks=nvregalloc-promote-locals-zext %s -o /dev/null 2>&1 \
; RUN:   | FileCheck %s --check-prefix=REMARK

target triple = "nvptx64-nvidia-cuda"

@buf = internal addrspace(3) global [1536 x <4 x float>] poison, align 16

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier0()

; CHECK-LABEL: .entry swap(
; CHECK-COUNT-2: mul.wide.u32 {{.*}}, 16;
; CHECK-NOT:   mul.wide
; CHECK:       ret;
; STOCK-LABEL: .entry swap(
; STOCK:       mul.wide.s32 [[S:%rd[0-9]+]], %r{{[0-9]+}}, 16;
; STOCK:       mul.wide.u32 [[U:%rd[0-9]+]], %r{{[0-9]+}}, 16;
; IR-LABEL:    define ptx_kernel void @swap(
; IR-NOT:      sext
; IR:          ret void
define ptx_kernel void @swap() {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %t64 = zext nneg i32 %tid to i64
  %a = getelementptr inbounds nuw <4 x float>, ptr addrspace(3) @buf, i64 %t64
  store <4 x float> zeroinitializer, ptr addrspace(3) %a, align 16
  %i1 = add nuw nsw i32 %tid, %ntid
  %i1w = zext nneg i32 %i1 to i64
  %b = getelementptr inbounds nuw <4 x float>, ptr addrspace(3) @buf, i64 %i1w
  store <4 x float> zeroinitializer, ptr addrspace(3) %b, align 16
  call void @llvm.nvvm.barrier0()
  %nw = zext nneg i32 %ntid to i64
  %c = getelementptr inbounds nuw <4 x float>, ptr addrspace(3) %a, i64 %nw
  %x = load <4 x float>, ptr addrspace(3) %a, align 16
  %y = load <4 x float>, ptr addrspace(3) %c, align 16
  store <4 x float> %x, ptr addrspace(3) %c, align 16
  store <4 x float> %y, ptr addrspace(3) %a, align 16
  ret void
}

; A value that may be negative keeps its sign extension.
; IR-LABEL:    define ptx_kernel void @signed(
; IR:          sext i32 %i to i64
define ptx_kernel void @signed(ptr addrspace(1) %out, i32 %i) {
  %w = sext i32 %i to i64
  %p = getelementptr inbounds float, ptr addrspace(1) %out, i64 %w
  store float 0.0, ptr addrspace(1) %p, align 4
  ret void
}

; A non-negative value that nothing zero-extends keeps its sign extension
; too: made a zero extension, it would merge with nothing, and would change
; only the PTX ptxas allocates from.
; IR-LABEL:    define ptx_kernel void @alone(
; IR:          sext i32 %tid to i64
define ptx_kernel void @alone(ptr addrspace(1) %out) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %w = sext i32 %tid to i64
  %p = getelementptr inbounds float, ptr addrspace(1) %out, i64 %w
  store float 0.0, ptr addrspace(1) %p, align 4
  ret void
}
; REMARK:      remark: {{.*}}function swap: 1 sign extensions of non-negative values made zero extensions
; REMARK-NOT:  function signed
; REMARK-NOT:  function alone

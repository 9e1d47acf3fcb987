; Copies of one value stay one register across blocks. PHI elimination turns
; the two PHIs below into two copies in each predecessor; the two PHI
; registers hold the same value on every path into %join (%x from %left, %y
; from %right), so they do not interfere, though both are live across the
; join. LLVM's RegisterCoalescer sees that through value numbers; so must
; replace-stock, which stands in for it: no move is left, as in stock's PTX.
; (Value numbers that stopped at block boundaries left two.)
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-coalesce=replace-stock -nvregalloc-color=off %s -o %t.ptx
; RUN: FileCheck %s < %t.ptx
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-coalesce=replace-stock %s -o - | FileCheck %s
; RUN: %if cuda %{ %ptxas -arch=sm_90 -c %t.ptx -o %t.o %}

; CHECK: add.s64 [[R:%rd[0-9]+]], %rd{{[0-9]+}}, 1;
; CHECK-NOT: mov.b64 %rd{{[0-9]+}}, %rd
; CHECK: mul.lo.s64 [[R]], %rd{{[0-9]+}}, 3;
; CHECK-NOT: mov.b64 %rd{{[0-9]+}}, %rd
; CHECK: st.volatile.global.b64 [{{%rd[0-9]+}}], [[R]];
; CHECK: st.volatile.global.b64 [{{%rd[0-9]+}}], [[R]];

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @two_phis(ptr addrspace(1) %p, i64 %a, i64 %b, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = icmp slt i32 %t, %n
  br i1 %c, label %left, label %right

left:
  %x = add i64 %a, 1
  br label %join

right:
  %y = mul i64 %b, 3
  br label %join

join:
  %u = phi i64 [ %x, %left ], [ %y, %right ]
  %v = phi i64 [ %x, %left ], [ %y, %right ]
  %q = getelementptr i64, ptr addrspace(1) %p, i32 %t
  store volatile i64 %u, ptr addrspace(1) %q
  store volatile i64 %v, ptr addrspace(1) %p
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

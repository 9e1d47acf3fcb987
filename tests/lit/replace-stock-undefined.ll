; An undefined value joins the value it stands beside. Both PHIs at %exit
; take the loop's sum; on the bypass path one takes 0.0 and the other
; `undef`, which PHI elimination turns into an IMPLICIT_DEF. LLVM's
; RegisterCoalescer gives all of them one register and erases the
; IMPLICIT_DEF, whose register holds 0.0 there; replace-stock, standing in
; for it, must do the same: no register move, one register stored twice, as
; in stock's PTX. (Taking the IMPLICIT_DEF as a value of its own left a move
; and two registers.)
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-coalesce=replace-stock -nvregalloc-color=off %s -o %t.ptx -pass-remarks-analysis=nvregalloc-coalescer 2>%t.remarks
; RUN: FileCheck %s < %t.ptx
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-coalesce=replace-stock %s -o - | FileCheck %s
; RUN: %if cuda %{ %ptxas -arch=sm_90 -c %t.ptx -o %t.o %}

; CHECK-NOT: mov.b32 %r{{[0-9]+}}, %r
; CHECK: add.rn.f32 [[S:%r[0-9]+]], [[S]], %r{{[0-9]+}};
; CHECK-NOT: mov.b32 %r{{[0-9]+}}, %r
; CHECK: st.volatile.global.b32 [{{%rd[0-9]+}}], [[S]];
; CHECK-NEXT: st.volatile.global.b32 [{{%rd[0-9]+}}], [[S]];

; REMARK: function bypass: {{.*}}implicit-defs-overtaken=1

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @bypass(ptr addrspace(1) %p, ptr addrspace(1) %out, i32 %n) {
entry:
  %skip = icmp eq i32 %n, 0
  br i1 %skip, label %exit, label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %s = phi float [ 0.0, %entry ], [ %s1, %loop ]
  %q = getelementptr float, ptr addrspace(1) %p, i32 %i
  %x = load float, ptr addrspace(1) %q
  %s1 = fadd float %s, %x
  %i1 = add i32 %i, 1
  %done = icmp eq i32 %i1, %n
  br i1 %done, label %exit, label %loop

exit:
  %last = phi float [ undef, %entry ], [ %s1, %loop ]
  %sum = phi float [ 0.0, %entry ], [ %s1, %loop ]
  store volatile float %sum, ptr addrspace(1) %out
  store volatile float %last, ptr addrspace(1) %out
  ret void
}

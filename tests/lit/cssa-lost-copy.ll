; The lost-copy problem: %i is read after the loop, where %i.next has
; already overwritten a register they shared if the PHI were merged. %i and
; %i.next interfere, so nvregalloc-cssa leaves the PHI to PHI elimination
; (whose temporary keeps the old value).
; RUN: %llc_plugin -nvregalloc-cssa-coalesce -verify-machineinstrs %s -o %t.ptx -nvregalloc-cssa-verbosity=2 \
; RUN:   -print-after=nvregalloc-cssa 2>&1 | FileCheck %s
; RUN: FileCheck %s --check-prefix=PTX < %t.ptx
; CHECK:   nvregalloc::cssa: lost_copy i{{[0-9]+}}: v[[NEXT:[0-9]+]] from bb1 interferes
; CHECK:   nvregalloc::cssa: lost_copy i{{[0-9]+}} in bb1: kept, v[[NEXT]] from bb1 interferes
; CHECK:   bb.1.loop:
; CHECK:   [[I:%[0-9]+]]:b32 = PHI {{%[0-9]+}}:b32, %bb.0, %[[NEXT]]:b32, %bb.1
; CHECK:   %[[NEXT]]:b32 = MULT32ri [[I]]:b32, 3
; CHECK:   bb.2.exit:
; CHECK:   ST_i32 {{.*}}[[I]]:b32
; The value stored is the one multiplied, not the product.
; PTX:     mul.lo.s32 {{%r[0-9]+}}, [[OLD:%r[0-9]+]], 3;
; PTX:     st.global.b32 [{{%rd[0-9]+}}], [[OLD]];

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @lost_copy(ptr addrspace(1) %out, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 1, %entry ], [ %i.next, %loop ]
  %i.next = mul i32 %i, 3
  %c = icmp ult i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  store i32 %i, ptr addrspace(1) %out
  ret void
}

; Register budget mode spills predicates. No load or store takes a predicate,
; so its 0 or 1 goes through a 16-bit register: selp.b16 before the store,
; setp.ne.b16 after the reload. The function has no 16-bit register of its
; own, so the pass adds the class (and counts it against the budget too).
; Six predicates are live at once across a block boundary; in four
; registers three go to local memory, each in a 2-byte slot.
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-max-regs=4 \
; RUN:   -pass-remarks-analysis=nvregalloc-coloring %s -o %t.ptx 2>%t.remarks
; RUN: FileCheck %s --check-prefix=PTX < %t.ptx
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
; RUN: %llc_plugin %s -o - | FileCheck %s --check-prefix=UNBOUNDED
; RUN: %if cuda %{ %ptxas -arch=sm_90 %t.ptx -o /dev/null %}
; PTX:      .local .align 4 .b8 __local_depot0[16];
; PTX:      .reg .pred %p<5>;
; PTX-NEXT: .reg .b16 %rs<2>;
; PTX-NEXT: .reg .b32 %r<5>;
; PTX:      setp.lt.s32 [[P:%p[0-9]]], %r{{[0-9]}}, 16;
; PTX-NEXT: selp.b16 [[W:%rs1]], 1, 0, [[P]];
; PTX-NEXT: st.local.b16 [%SPL+8], [[W]];
; PTX:      st.local.b16 [%SPL+10], %rs1;
; PTX:      st.local.b16 [%SPL+12], %rs1;
; PTX:      ld.local.b16 [[R:%rs1]], [%SPL+8];
; PTX-NEXT: setp.ne.b16 [[Q:%p[0-9]]], [[R]], 0;
; PTX-NEXT: selp.b32 %r{{[0-9]}}, %r{{[0-9]}}, 21, [[Q]];
; PTX:      ld.local.b16 %rs1, [%SPL+10];
; PTX:      ld.local.b16 %rs1, [%SPL+12];
; PTX:      ret;
; REMARK:   remark: <unknown>:0:0: function k: {{.*}}colors-B1=4 max-live-B1=4 vregs-B16=6 colors-B16=1 max-live-B16=1 max-regs=4 {{.*}}spill-slot-bytes=14
; UNBOUNDED-NOT: .local
; UNBOUNDED-NOT: .b16

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr addrspace(1) %p, ptr addrspace(1) %q) {
entry:
  %a1 = load volatile i32, ptr addrspace(1) %p
  %a2 = load volatile i32, ptr addrspace(1) %p
  %a3 = load volatile i32, ptr addrspace(1) %p
  %a4 = load volatile i32, ptr addrspace(1) %p
  %a5 = load volatile i32, ptr addrspace(1) %p
  %a6 = load volatile i32, ptr addrspace(1) %p
  %c1 = icmp slt i32 %a1, 11
  %c2 = icmp slt i32 %a2, 12
  %c3 = icmp slt i32 %a3, 13
  %c4 = icmp slt i32 %a4, 14
  %c5 = icmp slt i32 %a5, 15
  %c6 = icmp slt i32 %a6, 16
  br label %use

use:
  %x = load volatile i32, ptr addrspace(1) %p
  %s1 = select i1 %c6, i32 %x, i32 21
  %s2 = select i1 %c5, i32 %s1, i32 22
  %s3 = select i1 %c4, i32 %s2, i32 23
  %s4 = select i1 %c3, i32 %s3, i32 24
  %s5 = select i1 %c2, i32 %s4, i32 25
  %s6 = select i1 %c1, i32 %s5, i32 26
  store i32 %s6, ptr addrspace(1) %q
  ret void
}

; Register budget mode never spills a value nothing reads: an inline asm's
; second output is unused (LLVM marks its def dead), while four loaded values
; live across the asm. Spilling the dead output would only add a store after
; the def, which reads a register the machine verifier counts as undefined
; ("defs don't dominate all uses"); budget mode spills a live value instead.
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-max-regs=4 \
; RUN:   -pass-remarks-analysis=nvregalloc-coloring %s -o %t.ptx 2>%t.remarks
; RUN: FileCheck %s < %t.ptx
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
; RUN: %if cuda %{ %ptxas -arch=sm_90 %t.ptx -o /dev/null %}
; CHECK:      .reg .b32 %r<5>;
; CHECK:      // begin inline asm
; CHECK-NEXT: mov.b32 %r{{[0-9]}}, %r{{[0-9]}};
; CHECK-NEXT: mov.b32 [[DEAD:%r[0-9]]], 7;
; CHECK-NEXT: // end inline asm
; CHECK-NOT:  st.local.b32 [%SPL{{.*}}], [[DEAD]];
; CHECK:      ret;
; REMARK:     remark: <unknown>:0:0: function k: {{.*}}max-regs=4 {{.*}}spilled-values={{[1-9]}}

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr %p) {
  %a = load volatile i32, ptr %p
  %q1 = getelementptr i32, ptr %p, i64 1
  %b = load volatile i32, ptr %q1
  %q2 = getelementptr i32, ptr %p, i64 2
  %c = load volatile i32, ptr %q2
  %q3 = getelementptr i32, ptr %p, i64 3
  %d = load volatile i32, ptr %q3
  %r = call { i32, i32 } asm sideeffect "mov.b32 $0, $2;\0A\09mov.b32 $1, 7;", "=r,=r,r"(i32 %a)
  %x = extractvalue { i32, i32 } %r, 0
  store volatile i32 %x, ptr %p
  store volatile i32 %b, ptr %q1
  store volatile i32 %c, ptr %q2
  store volatile i32 %d, ptr %q3
  store volatile i32 %a, ptr %q3
  ret void
}

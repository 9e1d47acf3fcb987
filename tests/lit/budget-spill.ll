; Register budget mode: six loaded values are live at once, so in four B32
; registers some must go to local memory. Spilled values get a slot in the
; function's local depot, addressed from the local frame register %SPL (no
; generic %SP, no cvta), a store after their def and a reload right before
; their use. The PTX declares at most four registers per class, the verifier
; and ptxas accept it, and without a budget nothing is spilled.
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-max-regs=4 \
; RUN:   -pass-remarks-analysis=nvregalloc-coloring %s -o %t.ptx 2>%t.remarks
; RUN: FileCheck %s --check-prefix=PTX < %t.ptx
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
; RUN: %llc_plugin %s -o - | FileCheck %s --check-prefix=UNBOUNDED
; RUN: %if cuda %{ %ptxas -arch=sm_90 %t.ptx -o /dev/null %}
; PTX:      .local .align 4 .b8 __local_depot0[12];
; PTX:      .reg .b32 %r<5>;
; PTX-NEXT: .reg .b64 %rd<3>;
; PTX:      mov.b64 %SPL, __local_depot0;
; PTX-NOT:  cvta.local
; PTX:      mov.u32 [[T:%r[0-9]]], %tid.x;
; PTX-NEXT: st.local.b32 [%SPL], [[T]];
; PTX:      st.local.b32 [%SPL+4], %r{{[0-9]}};
; PTX:      st.local.b32 [%SPL+8], %r{{[0-9]}};
; PTX-COUNT-4: ld.volatile.global.b32
; PTX:      ld.local.b32 %r{{[0-9]}}, [%SPL+8];
; PTX:      ld.local.b32 %r{{[0-9]}}, [%SPL];
; PTX:      ld.local.b32 %r{{[0-9]}}, [%SPL+4];
; PTX:      ret;
; REMARK:   remark: <unknown>:0:0: function k: {{.*}}colors-B32=4 max-live-B32=4 max-regs=4 rounds=2 spilled-values=3 remat-values=0 spill-stores=3 reloads=3 remats=0 reloads-every-use=3 remats-every-use=0 spill-slots=3 spill-slot-bytes=12
; UNBOUNDED-NOT: .local
; UNBOUNDED-NOT: ld.local

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr addrspace(1) %p, ptr addrspace(1) %q) {
  %c = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %k = add i32 %c, 1000
  %a1 = load volatile i32, ptr addrspace(1) %p
  %a2 = load volatile i32, ptr addrspace(1) %p
  %a3 = load volatile i32, ptr addrspace(1) %p
  %a4 = load volatile i32, ptr addrspace(1) %p
  %a5 = load volatile i32, ptr addrspace(1) %p
  %a6 = load volatile i32, ptr addrspace(1) %p
  %s1 = mul i32 %a6, %a5
  %s2 = mul i32 %s1, %a4
  %s3 = mul i32 %s2, %a3
  %s4 = mul i32 %s3, %a2
  %s5 = mul i32 %s4, %a1
  %s6 = add i32 %s5, %k
  %s7 = mul i32 %s6, 1000
  store i32 %s7, ptr addrspace(1) %q
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

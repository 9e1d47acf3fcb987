; spill=shared in a function-options file (nvregalloc-shared-spills, the last
; IR pass in llc): the kernel's PTX gets .pragma "enable_smem_spilling" at its
; entry, and ptxas puts the spills it must make in shared memory. A kernel
; that calls a function or uses dynamic shared memory, and PTX older than ISA
; 8.7, keep their spills in local memory, with a missed remark saying why.
; RUN: printf '* spill=shared cap=24\n' > %t.shared.nvra
; RUN: printf '* spill=local cap=24\n' > %t.local.nvra
; RUN: %llc_plugin -mattr=+ptx88 -nvregalloc-function-options=%t.shared.nvra %s -o %t.shared.ptx \
; RUN:   -pass-remarks=nvregalloc-shared-spills -pass-remarks-missed=nvregalloc-shared-spills 2>&1 \
; RUN:   | FileCheck %s --check-prefix=REMARK
; RUN: FileCheck %s < %t.shared.ptx
; RUN: %llc_plugin -mattr=+ptx88 -nvregalloc-function-options=%t.local.nvra %s -o %t.local.ptx
; RUN: FileCheck %s --check-prefix=LOCAL < %t.local.ptx
; RUN: %llc_plugin -mattr=+ptx86 -nvregalloc-function-options=%t.shared.nvra %s -o %t.old.ptx \
; RUN:   -pass-remarks-missed=nvregalloc-shared-spills 2>&1 | FileCheck %s --check-prefix=OLD
; RUN: FileCheck %s --check-prefix=LOCAL < %t.old.ptx
; Under .maxnreg 24 the kernel spills: 68 bytes to local memory, and with
; the pragma most of it to 72 bytes a thread of shared memory (128 threads).
; RUN: %if cuda %{ %ptxas -arch=sm_90 -v %t.local.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS-LOCAL %}
; RUN: %if cuda %{ %ptxas -arch=sm_90 -v %t.shared.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS-SHARED %}

; REMARK-DAG: remark: <unknown>:0:0: function spills: ptxas may spill to shared memory (.pragma "enable_smem_spilling")
; REMARK-DAG: remark: <unknown>:0:0: function dynamic: spills left in local memory (it uses dynamic shared memory (dyn))
; REMARK-DAG: remark: <unknown>:0:0: function calls: spills left in local memory (it calls twice)
; REMARK-NOT: function twice
; OLD-COUNT-3: spills left in local memory (its PTX ISA is older than 8.7, the first with the pragma)

; CHECK-LABEL: .entry spills(
; CHECK:       .pragma "enable_smem_spilling";
; CHECK-LABEL: .entry dynamic(
; CHECK-NOT:   .pragma
; CHECK:       ret;
; CHECK-LABEL: .entry calls(
; CHECK-NOT:   .pragma
; CHECK:       ret;
; LOCAL-NOT:   .pragma

; PTXAS-LOCAL-LABEL: Compiling entry function 'spills'
; PTXAS-LOCAL:       68 bytes spill stores
; PTXAS-LOCAL-NOT:   smem
; PTXAS-LOCAL:       Used 24 registers
; PTXAS-SHARED-LABEL: Compiling entry function 'spills'
; PTXAS-SHARED:       8 bytes spill stores
; PTXAS-SHARED:       Used 24 registers, {{.*}}, 9216 bytes smem

target triple = "nvptx64-nvidia-cuda"

@dyn = external addrspace(3) global [0 x float]

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare float @llvm.vector.reduce.fadd.v4f32(float, <4 x float>)
declare void @llvm.nvvm.barrier0()

; Twelve 16-byte volatile loads, each multiplied with one loaded later: 48
; floats live at once.
define ptx_kernel void @spills(ptr addrspace(1) %in, ptr addrspace(1) %out) "nvvm.maxntid"="128" {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t = zext i32 %tid to i64
  %base = getelementptr <4 x float>, ptr addrspace(1) %in, i64 %t
  %p0 = getelementptr <4 x float>, ptr addrspace(1) %base, i64 0
  %v0 = load volatile <4 x float>, ptr addrspace(1) %p0, align 16
  %p1 = getelementptr <4 x float>, ptr addrspace(1) %base, i64 128
  %v1 = load volatile <4 x float>, ptr addrspace(1) %p1, align 16
  %p2 = getelementptr <4 x float>, ptr addrspace(1) %base, i64 256
  %v2 = load volatile <4 x float>, ptr addrspace(1) %p2, align 16
  %p3 = getelementptr <4 x float>, ptr addrspace(1) %base, i64 384
  %v3 = load volatile <4 x float>, ptr addrspace(1) %p3, align 16
  %p4 = getelementptr <4 x float>, ptr addrspace(1) %base, i64 512
  %v4 = load volatile <4 x float>, ptr addrspace(1) %p4, align 16
  %p5 = getelementptr <4 x float>, ptr addrspace(1) %base, i64 640
  %v5 = load volatile <4 x float>, ptr addrspace(1) %p5, align 16
  %p6 = getelementptr <4 x float>, ptr addrspace(1) %base, i64 768
  %v6 = load volatile <4 x float>, ptr addrspace(1) %p6, align 16
  %p7 = getelementptr <4 x float>, ptr addrspace(1) %base, i64 896
  %v7 = load volatile <4 x float>, ptr addrspace(1) %p7, align 16
  %p8 = getelementptr <4 x float>, ptr addrspace(1) %base, i64 1024
  %v8 = load volatile <4 x float>, ptr addrspace(1) %p8, align 16
  %p9 = getelementptr <4 x float>, ptr addrspace(1) %base, i64 1152
  %v9 = load volatile <4 x float>, ptr addrspace(1) %p9, align 16
  %p10 = getelementptr <4 x float>, ptr addrspace(1) %base, i64 1280
  %v10 = load volatile <4 x float>, ptr addrspace(1) %p10, align 16
  %p11 = getelementptr <4 x float>, ptr addrspace(1) %base, i64 1408
  %v11 = load volatile <4 x float>, ptr addrspace(1) %p11, align 16
  %m0 = fmul <4 x float> %v0, %v11
  %m1 = fmul <4 x float> %v1, %v10
  %m2 = fmul <4 x float> %v2, %v9
  %m3 = fmul <4 x float> %v3, %v8
  %m4 = fmul <4 x float> %v4, %v7
  %m5 = fmul <4 x float> %v5, %v6
  %s1 = fadd <4 x float> %m0, %m1
  %s2 = fadd <4 x float> %s1, %m2
  %s3 = fadd <4 x float> %s2, %m3
  %s4 = fadd <4 x float> %s3, %m4
  %s5 = fadd <4 x float> %s4, %m5
  %r = call float @llvm.vector.reduce.fadd.v4f32(float 0.0, <4 x float> %s5)
  %o = getelementptr float, ptr addrspace(1) %out, i64 %t
  store float %r, ptr addrspace(1) %o, align 4
  ret void
}

define ptx_kernel void @dynamic(ptr addrspace(1) %out) "nvvm.maxntid"="128" {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t = zext i32 %tid to i64
  %v = load float, ptr addrspace(1) %out, align 4
  %d = getelementptr float, ptr addrspace(3) @dyn, i64 %t
  store float %v, ptr addrspace(3) %d, align 4
  call void @llvm.nvvm.barrier0()
  %x = xor i64 %t, 1
  %e = getelementptr float, ptr addrspace(3) @dyn, i64 %x
  %w = load float, ptr addrspace(3) %e, align 4
  %o = getelementptr float, ptr addrspace(1) %out, i64 %t
  store float %w, ptr addrspace(1) %o, align 4
  ret void
}

define float @twice(float %x) noinline {
  %y = fmul float %x, 2.0
  ret float %y
}

define ptx_kernel void @calls(ptr addrspace(1) %out) "nvvm.maxntid"="128" {
entry:
  %v = load float, ptr addrspace(1) %out, align 4
  %w = call float @twice(float %v)
  store float %w, ptr addrspace(1) %out, align 4
  ret void
}

; `lsr=off` in a function-options file keeps LLVM's loop strength reduction
; off that function. On NVPTX, LSR gives each array a loop reads its own
; 64-bit pointer, advanced every iteration (three here: two registers each
; through the loop); without it the loop carries the one 32-bit index and
; computes each address from it (mul.wide, add). Which pays is ptxas's to
; say, so nvregalloc-tune decides it per function. LSR has no per-function
; switch but skips optnone functions: nvregalloc-lsr-gate marks the named
; functions optnone (and noinline) right before it, nvregalloc-lsr-gate-end
; takes back exactly that right after it.
;
; RUN: printf 'k_off lsr=off\nk_noinline lsr=off\nk_on lsr=on\n' > %t.nvra
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-function-options=%t.nvra %s -o %t.ptx \
; RUN:   -pass-remarks=nvregalloc-lsr-gate 2>&1 | FileCheck %s --check-prefix=REMARK
; RUN: FileCheck %s < %t.ptx
; RUN: %if cuda %{ %ptxas -arch=sm_90 -c %t.ptx -o %t.o %}
;
; Inside the bracket the marks are there; after it, only what was there before.
; RUN: %llc_plugin -nvregalloc-function-options=%t.nvra -stop-after=nvregalloc-lsr-gate %s -o - \
; RUN:   | FileCheck %s --check-prefix=MARKED
; RUN: %llc_plugin -nvregalloc-function-options=%t.nvra -stop-after=nvregalloc-lsr-gate-end %s -o - \
; RUN:   | FileCheck %s --check-prefix=RESTORED
;
; The gate is in the loop pass manager that runs LSR (it also copies the
; functions the LSR judge judges: tests/lit/lsr-judge.ll); with `lsr=on`
; everywhere the PTX is stock's
; (and with promote=off, whose nvregalloc-promote-locals-zext runs in llc:
; it makes k_off's index a zero extension; widen=off, whose
; nvregalloc-mul-wide runs in llc too; and rolled=ptxas, for
; nvregalloc-keep-rolled).
; RUN: %llc_plugin -nvregalloc-function-options=%t.nvra -debug-pass=Structure %s -o /dev/null 2>&1 \
; RUN:   | FileCheck %s --check-prefix=PIPELINE
; RUN: echo "* coalesce=off color=off pressure=off lsr=on promote=off widen=off rolled=ptxas" > %t.stock
; RUN: %llc_plugin -nvregalloc-function-options=%t.stock %s -o %t.stock.ptx
; RUN: %llc_nvptx %s -o %t.llc.ptx
; RUN: diff %t.llc.ptx %t.stock.ptx

; REMARK-NOT:  function k_on
; REMARK:      remark: <unknown>:0:0: function k_off: loop strength reduction off for this loop (lsr=off)
; REMARK-NEXT: remark: <unknown>:0:0: function k_noinline: loop strength reduction off for this loop (lsr=off)
; REMARK-NOT:  function k_on

; CHECK-LABEL: .entry k_on(
; CHECK:       mul.wide.u32
; CHECK:       $L__BB0_2:
; CHECK-NOT:   mul.wide
; CHECK-COUNT-3: add.s64 {{.*}}, 1024;
; CHECK-LABEL: .entry k_off(
; CHECK:       $L__BB1_2:
; CHECK:       mul.wide.{{[su]}}32 [[OFFSET:%rd[0-9]+]], %r{{[0-9]+}}, 4;
; CHECK-COUNT-3: add.s64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, [[OFFSET]];
; CHECK-NOT:   1024
; CHECK:       ret;
; CHECK-LABEL: .entry k_noinline(
; CHECK:       mul.wide.{{[su]}}32
; CHECK-NOT:   1024
; CHECK:       ret;

; MARKED:      define ptx_kernel void @k_on({{.*}}) #[[ON:[0-9]+]]
; MARKED:      define ptx_kernel void @k_off({{.*}}) #[[OFF:[0-9]+]]
; MARKED:      define ptx_kernel void @k_noinline({{.*}}) #[[KEPT:[0-9]+]]
; MARKED-DAG:  attributes #[[ON]] = { "target-cpu"="sm_90" }
; MARKED-DAG:  attributes #[[OFF]] = { noinline optnone "nvregalloc-lsr-off"="noinline" "target-cpu"="sm_90" }
; MARKED-DAG:  attributes #[[KEPT]] = { noinline optnone "nvregalloc-lsr-off" "target-cpu"="sm_90" }

; RESTORED:     define ptx_kernel void @k_off({{.*}}) #[[OFF:[0-9]+]]
; RESTORED:     define ptx_kernel void @k_noinline({{.*}}) #[[KEPT:[0-9]+]]
; RESTORED-DAG: attributes #[[OFF]] = { "target-cpu"="sm_90" }
; RESTORED-DAG: attributes #[[KEPT]] = { noinline "target-cpu"="sm_90" }

; PIPELINE:      Loop Pass Manager
; PIPELINE-NEXT:   Canonicalize Freeze Instructions in Loops
; PIPELINE-NEXT:   nvregalloc: keep loop strength reduction off the functions marked lsr=off, copy the others for the LSR judge
; PIPELINE-NEXT:   Induction Variable Users
; PIPELINE-NEXT:   Loop Strength Reduction
; PIPELINE-NEXT:   nvregalloc: take back the lsr=off marks

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k_on(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %go = icmp slt i32 %tid, %n
  br i1 %go, label %loop, label %exit
loop:
  %i = phi i32 [ %tid, %entry ], [ %next, %loop ]
  %idx = sext i32 %i to i64
  %pb = getelementptr inbounds float, ptr addrspace(1) %b, i64 %idx
  %pc = getelementptr inbounds float, ptr addrspace(1) %c, i64 %idx
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i64 %idx
  %vb = load float, ptr addrspace(1) %pb
  %vc = load float, ptr addrspace(1) %pc
  %s = fadd float %vb, %vc
  store float %s, ptr addrspace(1) %pa
  %next = add nsw i32 %i, 256
  %more = icmp slt i32 %next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}

define ptx_kernel void @k_off(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %go = icmp slt i32 %tid, %n
  br i1 %go, label %loop, label %exit
loop:
  %i = phi i32 [ %tid, %entry ], [ %next, %loop ]
  %idx = sext i32 %i to i64
  %pb = getelementptr inbounds float, ptr addrspace(1) %b, i64 %idx
  %pc = getelementptr inbounds float, ptr addrspace(1) %c, i64 %idx
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i64 %idx
  %vb = load float, ptr addrspace(1) %pb
  %vc = load float, ptr addrspace(1) %pc
  %s = fadd float %vb, %vc
  store float %s, ptr addrspace(1) %pa
  %next = add nsw i32 %i, 256
  %more = icmp slt i32 %next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}

; A function that is noinline already stays noinline.
define ptx_kernel void @k_noinline(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c, i32 %n) noinline {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %go = icmp slt i32 %tid, %n
  br i1 %go, label %loop, label %exit
loop:
  %i = phi i32 [ %tid, %entry ], [ %next, %loop ]
  %idx = sext i32 %i to i64
  %pb = getelementptr inbounds float, ptr addrspace(1) %b, i64 %idx
  %pc = getelementptr inbounds float, ptr addrspace(1) %c, i64 %idx
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i64 %idx
  %vb = load float, ptr addrspace(1) %pb
  %vc = load float, ptr addrspace(1) %pc
  %s = fadd float %vb, %vc
  store float %s, ptr addrspace(1) %pa
  %next = add nsw i32 %i, 256
  %more = icmp slt i32 %next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

; `sched=pressure` in a function-options file makes instruction selection
; schedule that function's blocks with LLVM's bottom-up register-reduction
; list scheduler (list-burr, what -nvptx-sched4reg picks for a whole run)
; instead of NVPTX's source order: here each load goes next to its multiply
; and add, where source order issues all four loads first and keeps four
; values live. ptxas schedules again, so nvregalloc-tune decides it per
; function. The scheduler is LLVM's -pre-RA-sched option, read by
; instruction selection for every function; nvregalloc-sched-gate, ahead of
; it in the same function pass manager, sets it per function, and the
; function after a sched=pressure one is scheduled in source order again.
;
; RUN: printf 'k_pressure sched=pressure\nk_after sched=source\nk_i1 sched=pressure\n' > %t.nvra
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-function-options=%t.nvra %s -o %t.ptx \
; RUN:   -pass-remarks=nvregalloc-sched-gate -pass-remarks-missed=nvregalloc-sched-gate 2>&1 \
; RUN:   | FileCheck %s --check-prefix=REMARK
; RUN: FileCheck %s < %t.ptx
; RUN: %if cuda %{ %ptxas -arch=sm_90 -c %t.ptx -o %t.o %}
;
; The gate is in the pipeline only with a function-options file, after the
; LSR gates and before instruction selection, in one function pass manager;
; with `sched=source` everywhere the PTX is stock's.
; RUN: %llc_plugin -nvregalloc-function-options=%t.nvra -debug-pass=Structure %s -o /dev/null 2>&1 \
; RUN:   | FileCheck %s --check-prefix=PIPELINE
; RUN: %llc_plugin -debug-pass=Structure %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NO-GATE
; RUN: echo "* sched=source" > %t.source
; RUN: %llc_plugin -nvregalloc-function-options=%t.source %s -o %t.source.ptx
; RUN: %llc_nvptx %s -o %t.llc.ptx
; RUN: diff %t.llc.ptx %t.source.ptx

; REMARK-NOT:  function k_before
; REMARK:      remark: <unknown>:0:0: function k_pressure: instruction selection schedules for register pressure (sched=pressure)
; REMARK-NOT:  function k_after
; REMARK:      remark: <unknown>:0:0: function k_i1: sched=pressure refused, source order kept: the function loads an i1, whose NVPTX lowering only source order schedules safely

; CHECK-LABEL: .entry k_before(
; CHECK:       ld.global.b32
; CHECK-NEXT:  ld.global.b32
; CHECK-NEXT:  ld.global.b32
; CHECK-NEXT:  ld.global.b32
; CHECK-LABEL: .entry k_pressure(
; CHECK:       ld.global.b32
; CHECK-NEXT:  mul.rn.f32
; CHECK-NEXT:  ld.global.b32
; CHECK-NEXT:  mul.rn.f32
; CHECK-NEXT:  add.rn.f32
; CHECK-LABEL: .entry k_after(
; CHECK:       ld.global.b32
; CHECK-NEXT:  ld.global.b32
; CHECK-NEXT:  ld.global.b32
; CHECK-NEXT:  ld.global.b32

; A function that loads an i1 keeps source order: LLVM 22's NVPTX lowering
; of an i1 load drops the load from the chain, and list-burr would store 1
; to @flag before loading its old value (a csmith program's miscompile).
; CHECK-LABEL: .entry k_i1(
; CHECK:       ld.global.b8 {{%rs[0-9]+}}, [flag];
; CHECK:       st.global.b8 [flag], 1;

; PIPELINE:      nvregalloc: take back the lsr=off marks
; PIPELINE-NEXT: nvregalloc: loop strength reduction kept where it costs no occupancy step
; PIPELINE-NEXT: nvregalloc: values hoisted out of loops recomputed in them where they cost an occupancy step
; PIPELINE-NEXT: nvregalloc: schedule the functions marked sched=pressure for register pressure in instruction selection
; PIPELINE-NOT:  FunctionPass Manager
; PIPELINE:      NVPTX DAG->DAG Pattern Instruction Selection
; NO-GATE-NOT:   sched=pressure

target triple = "nvptx64-nvidia-cuda"

@flag = global i1 false, align 8

define ptx_kernel void @k_before(ptr %p, ptr %q) {
entry:
  %a0 = load float, ptr %p
  %p1 = getelementptr float, ptr %p, i32 1
  %a1 = load float, ptr %p1
  %p2 = getelementptr float, ptr %p, i32 2
  %a2 = load float, ptr %p2
  %p3 = getelementptr float, ptr %p, i32 3
  %a3 = load float, ptr %p3
  %m0 = fmul float %a0, %a0
  %m1 = fmul float %a1, %a1
  %m2 = fmul float %a2, %a2
  %m3 = fmul float %a3, %a3
  %s0 = fadd float %m0, %m1
  %s1 = fadd float %s0, %m2
  %s2 = fadd float %s1, %m3
  store float %s2, ptr %q
  ret void
}

define ptx_kernel void @k_pressure(ptr %p, ptr %q) {
entry:
  %a0 = load float, ptr %p
  %p1 = getelementptr float, ptr %p, i32 1
  %a1 = load float, ptr %p1
  %p2 = getelementptr float, ptr %p, i32 2
  %a2 = load float, ptr %p2
  %p3 = getelementptr float, ptr %p, i32 3
  %a3 = load float, ptr %p3
  %m0 = fmul float %a0, %a0
  %m1 = fmul float %a1, %a1
  %m2 = fmul float %a2, %a2
  %m3 = fmul float %a3, %a3
  %s0 = fadd float %m0, %m1
  %s1 = fadd float %s0, %m2
  %s2 = fadd float %s1, %m3
  store float %s2, ptr %q
  ret void
}

define ptx_kernel void @k_after(ptr %p, ptr %q) {
entry:
  %a0 = load float, ptr %p
  %p1 = getelementptr float, ptr %p, i32 1
  %a1 = load float, ptr %p1
  %p2 = getelementptr float, ptr %p, i32 2
  %a2 = load float, ptr %p2
  %p3 = getelementptr float, ptr %p, i32 3
  %a3 = load float, ptr %p3
  %m0 = fmul float %a0, %a0
  %m1 = fmul float %a1, %a1
  %m2 = fmul float %a2, %a2
  %m3 = fmul float %a3, %a3
  %s0 = fadd float %m0, %m1
  %s1 = fadd float %s0, %m2
  %s2 = fadd float %s1, %m3
  store float %s2, ptr %q
  ret void
}

define ptx_kernel void @k_i1(ptr %q) {
  %old = load i1, ptr @flag, align 8
  store i1 true, ptr @flag, align 8
  br i1 %old, label %set, label %done
set:
  store i32 1, ptr %q
  br label %done
done:
  ret void
}

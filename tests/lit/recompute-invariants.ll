; nvregalloc-recompute-invariants (in llc): values hoisted out of a loop
; stay live across it, and ptxas does not sink them back. For a function
; marked invariants=recomputed (the tuner's choice) the pass computes them
; again in each block of the loop that reads them (here h1 to h5, from sq,
; from the kernel argument x), with the values they are computed from. A
; load and a freeze are never computed again (memory may change; each
; freeze may choose its own value). The default leaves the function as
; stock.
;
; RUN: %llc_plugin -verify-machineinstrs %s -o - -pass-remarks=nvregalloc-recompute-invariants \
; RUN:   -pass-remarks-analysis=nvregalloc-recompute-invariants 2>%t.default.txt | FileCheck %s --check-prefix=HOISTED
; RUN: not grep remark %t.default.txt
; RUN: printf 'k invariants=recomputed\n' > %t.recomputed.nvra
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-function-options=%t.recomputed.nvra %s -o %t.recomputed.ptx \
; RUN:   -pass-remarks=nvregalloc-recompute-invariants 2>&1 | FileCheck %s --check-prefix=UNJUDGED-REMARK
; RUN: FileCheck %s --check-prefix=RECOMPUTED < %t.recomputed.ptx
; RUN: %if cuda %{ %ptxas -arch=sm_90 -c %t.recomputed.ptx -o %t.o %}
; RUN: printf 'k invariants=hoisted\n' > %t.hoisted.nvra
; RUN: %llc_plugin -nvregalloc-function-options=%t.hoisted.nvra -nvregalloc-judge-invariants -nvregalloc-lsr-slack=24 %s -o - \
; RUN:   | FileCheck %s --check-prefix=HOISTED
;
; The function llc goes on with is valid IR, with the load and the freeze
; where they were, and no copy is left in the module.
; RUN: %llc_plugin -nvregalloc-function-options=%t.recomputed.nvra -stop-after=nvregalloc-recompute-invariants %s -o - \
; RUN:   | sed -n '/^--- |/,/^\.\.\./p' | sed '1d;$d;s/^  //' > %t.ll
; RUN: opt -passes=verify -disable-output %t.ll
; RUN: FileCheck %s --check-prefix=IR < %t.ll
;
; A value whose computation takes more than -nvregalloc-invariant-tree-limit
; instructions (h1: sq and h1) stays hoisted.
; RUN: %llc_plugin -nvregalloc-function-options=%t.recomputed.nvra -nvregalloc-invariant-tree-limit=1 %s -o - \
; RUN:   | FileCheck %s --check-prefix=HOISTED
;
; Judged (-nvregalloc-judge-invariants, or invariants=judged): the core
; judges the copy against the function by estimated pressure (10 registers
; hoisted, 7 recomputed) and the copy's body goes on only where the hoisted
; form, with -nvregalloc-lsr-slack registers added to each, runs fewer warps
; (7 + 24 = 31 registers hold 64 warps on sm_90, 10 + 24 = 34 only 48) and
; is -nvregalloc-invariant-min-growth percent over the other (50 by
; default, which keeps it hoisted here: 10 is 7 + 42%).
; RUN: %llc_plugin -nvregalloc-judge-invariants %s -o - -pass-remarks-analysis=nvregalloc-recompute-invariants \
; RUN:   2>%t.kept.txt | FileCheck %s --check-prefix=HOISTED
; RUN: FileCheck %s --check-prefix=KEPT-REMARK < %t.kept.txt
; RUN: %llc_plugin -nvregalloc-judge-invariants -nvregalloc-lsr-slack=24 %s -o - | FileCheck %s --check-prefix=HOISTED
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-judge-invariants -nvregalloc-lsr-slack=24 -nvregalloc-invariant-min-growth=42 %s -o - \
; RUN:   -pass-remarks=nvregalloc-recompute-invariants 2>%t.judged.txt | FileCheck %s --check-prefix=RECOMPUTED
; RUN: FileCheck %s --check-prefix=RECOMPUTED-REMARK < %t.judged.txt
; RUN: %llc_plugin -nvregalloc-judge-invariants -nvregalloc-lsr-slack=24 -nvregalloc-invariant-min-growth=43 %s -o - \
; RUN:   | FileCheck %s --check-prefix=HOISTED
; RUN: printf 'k invariants=judged\n' > %t.judged.nvra
; RUN: %llc_plugin -nvregalloc-function-options=%t.judged.nvra -nvregalloc-lsr-slack=24 -nvregalloc-invariant-min-growth=42 %s -o - \
; RUN:   | FileCheck %s --check-prefix=RECOMPUTED
;
; In the pipeline: right after the LSR judge.
; RUN: %llc_plugin -debug-pass=Structure %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE

; KEPT-REMARK:       remark: <unknown>:0:0: function k: 5 values hoisted out of loops: about 10 registers hoisted, 7 recomputed (estimated): kept hoisted
; RECOMPUTED-REMARK: remark: <unknown>:0:0: function k: 5 values hoisted out of loops: about 10 registers hoisted, 7 recomputed (estimated): recomputed in the loops, for an occupancy step
; UNJUDGED-REMARK:   remark: <unknown>:0:0: function k: 5 values hoisted out of loops: recomputed in the loops (invariants=recomputed)

; HOISTED-LABEL:     .entry k(
; HOISTED:           add.rn.f32 {{.*}}, 0f3F800000;
; HOISTED:           $L__BB0_1:
; HOISTED-NOT:       add.rn.f32
; HOISTED:           bra
; RECOMPUTED-LABEL:  .entry k(
; RECOMPUTED-NOT:    0f3F800000
; RECOMPUTED:        add.rn.f32 {{.*}}, 0f40C00000;
; RECOMPUTED-NOT:    0f3F800000
; RECOMPUTED:        $L__BB0_1:
; RECOMPUTED-COUNT-5: add.rn.f32
; RECOMPUTED:        bra

; IR:                define ptx_kernel void @k(
; IR:                entry:
; IR:                load float
; IR:                freeze float
; IR:                loop:
; IR:                fadd float %sq{{[0-9]*}}, 1.0
; IR-NOT:            define

; PIPELINE:      nvregalloc: loop strength reduction kept where it costs no occupancy step
; PIPELINE-NEXT: nvregalloc: values hoisted out of loops recomputed in them where they cost an occupancy step

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in, float %x, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %sq = fmul float %x, %x
  %h1 = fadd float %sq, 1.0
  %h2 = fadd float %sq, 2.0
  %h3 = fadd float %sq, 3.0
  %h4 = fadd float %sq, 4.0
  %h5 = fadd float %sq, 5.0
  %h6 = fadd float %sq, 6.0
  %ld = load float, ptr addrspace(1) %in
  %fr = freeze float %h6
  br label %loop

loop:
  %i = phi i32 [ %tid, %entry ], [ %next, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %a7, %loop ]
  %f = sitofp i32 %i to float
  %a1 = call float @llvm.fma.f32(float %f, float %h1, float %acc)
  %a2 = call float @llvm.fma.f32(float %a1, float %h2, float %f)
  %a3 = call float @llvm.fma.f32(float %a2, float %h3, float %a1)
  %a4 = call float @llvm.fma.f32(float %a3, float %h4, float %a2)
  %a5 = call float @llvm.fma.f32(float %a4, float %h5, float %a3)
  %a6 = call float @llvm.fma.f32(float %a5, float %fr, float %a4)
  %a7 = call float @llvm.fma.f32(float %a6, float %ld, float %a5)
  %next = add nsw i32 %i, 32
  %more = icmp slt i32 %next, %n
  br i1 %more, label %loop, label %exit

exit:
  store float %a7, ptr addrspace(1) %out
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare float @llvm.fma.f32(float, float, float)

; nvregalloc-lsr-judge (in llc, on by default): LLVM's loop strength
; reduction gives each array the loop walks a 64-bit pointer of its own
; (three here), where the loop without it carries one 32-bit index. The
; gate right before LSR copies the function; the judge right after LSR
; estimates both forms' peak register pressure (9 and 7 here) and puts the
; copy back only where LSR's form, with -nvregalloc-lsr-slack registers
; added to each, runs fewer warps (7 + 24 = 31 registers hold 64 warps on
; sm_90, 9 + 24 = 33 only 48) and LSR raised the estimate by at least
; -nvregalloc-lsr-min-growth percent (50 by default; 9 is 7 + 29%).
; Otherwise LSR's form stays.
;
; RUN: %llc_plugin -verify-machineinstrs %s -o %t.kept.ptx -pass-remarks-analysis=nvregalloc-lsr-judge \
; RUN:   2>&1 | FileCheck %s --check-prefix=KEPT-REMARK
; RUN: FileCheck %s --check-prefix=LSR < %t.kept.ptx
; RUN: %llc_plugin -nvregalloc-lsr-slack=24 %s -o - | FileCheck %s --check-prefix=LSR
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-lsr-slack=24 -nvregalloc-lsr-min-growth=25 %s -o %t.undone.ptx \
; RUN:   -pass-remarks=nvregalloc-lsr-judge 2>&1 | FileCheck %s --check-prefix=UNDONE-REMARK
; RUN: FileCheck %s --check-prefix=NO-LSR < %t.undone.ptx
; RUN: %if cuda %{ %ptxas -arch=sm_90 -c %t.undone.ptx -o %t.o %}
;
; The copy put back is valid IR, and no copy is left in the module (the IR
; llc writes, taken out of its MIR file).
; RUN: %llc_plugin -nvregalloc-lsr-slack=24 -nvregalloc-lsr-min-growth=25 -stop-after=nvregalloc-lsr-judge %s -o - \
; RUN:   | sed -n '/^--- |/,/^\.\.\./p' | sed '1d;$d;s/^  //' > %t.ll
; RUN: opt -passes=verify -disable-output %t.ll
; RUN: FileCheck %s --check-prefix=IR < %t.ll
;
; The judge off (-nvregalloc-judge-lsr=false, or lsr=on for the function):
; LSR's form, as stock; lsr=judged judges whatever the command line says.
; RUN: %llc_plugin -nvregalloc-judge-lsr=false -nvregalloc-lsr-slack=24 -nvregalloc-lsr-min-growth=25 %s -o - \
; RUN:   | FileCheck %s --check-prefix=LSR
; RUN: printf 'k lsr=on\n' > %t.on.nvra
; RUN: %llc_plugin -nvregalloc-function-options=%t.on.nvra -nvregalloc-lsr-slack=24 -nvregalloc-lsr-min-growth=25 %s -o - \
; RUN:   | FileCheck %s --check-prefix=LSR
; RUN: printf 'k lsr=judged\n' > %t.judged.nvra
; RUN: %llc_plugin -nvregalloc-judge-lsr=false -nvregalloc-function-options=%t.judged.nvra \
; RUN:   -nvregalloc-lsr-slack=24 -nvregalloc-lsr-min-growth=25 %s -o - | FileCheck %s --check-prefix=NO-LSR
;
; In the pipeline: the gate, LSR and the gate's end share LSR's loop pass
; manager; the judge follows it.
; RUN: %llc_plugin -debug-pass=Structure %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE

; KEPT-REMARK:   remark: <unknown>:0:0: function k: about 9 registers with loop strength reduction, 7 without (estimated, 0 added for ptxas): kept
; UNDONE-REMARK: remark: <unknown>:0:0: function k: about 9 registers with loop strength reduction, 7 without (estimated, 24 added for ptxas): undone, for an occupancy step

; LSR-LABEL:     .entry k(
; LSR:           $L__BB0_2:
; LSR-NOT:       mul.wide
; LSR-COUNT-3:   add.s64 {{.*}}, 1024;
; NO-LSR-LABEL:  .entry k(
; NO-LSR:        $L__BB0_2:
; NO-LSR:        mul.wide.{{[su]}}32 [[OFFSET:%rd[0-9]+]], %r{{[0-9]+}}, 4;
; NO-LSR-COUNT-3: add.s64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, [[OFFSET]];
; NO-LSR-NOT:    1024
; NO-LSR:        ret;

; IR:            define ptx_kernel void @k(
; IR:            getelementptr inbounds float, ptr addrspace(1) %b, i64 %idx
; IR-NOT:        define

; PIPELINE:      Loop Pass Manager
; PIPELINE-NEXT:   Canonicalize Freeze Instructions in Loops
; PIPELINE-NEXT:   nvregalloc: keep loop strength reduction off the functions marked lsr=off, copy the others for the LSR judge
; PIPELINE-NEXT:   Induction Variable Users
; PIPELINE-NEXT:   Loop Strength Reduction
; PIPELINE-NEXT:   nvregalloc: take back the lsr=off marks
; PIPELINE-NEXT: nvregalloc: loop strength reduction kept where it costs no occupancy step

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c, i32 %n) {
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

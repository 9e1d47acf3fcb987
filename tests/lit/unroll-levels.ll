; `unroll=off` in a function-options file keeps LLVM's loop unrollers off
; that function's loops, as clang's -fno-unroll-loops does for a whole file:
; a loop whose source asks for unrolling (`#pragma unroll`, here
; llvm.loop.unroll.full) is unrolled all the same. `unroll=full` keeps
; rolled what the unrollers would not unroll fully within 300 IR
; instructions (a trip count known at run time: no runtime unrolling),
; `unroll=small` within 75: 16 trips of this loop's 9 instructions (as the
; gate counts them), 144, are unrolled at `full` and not at `small`. An unrolled body keeps several
; iterations' values live at once, which can cost an occupancy step;
; nvregalloc-tune takes the choice only where ptxas shows it gains warps.
; nvregalloc-unroll-gate, at the end of the middle end's loop simplification,
; marks the loops a function's level keeps rolled llvm.loop.unroll.disable
; beside a mark of its own; nvregalloc-unroll-gate-end, last in the
; optimization pipeline, takes both back, so NVPTX prints no
; `.pragma "nounroll"` and ptxas unrolls as it would have. They run where
; the middle end runs (clang -fpass-plugin).
;
; RUN: printf 'k_off unroll=off\nk_pragma unroll=off\nk_on unroll=on\nk_small16 unroll=small\nk_full16 unroll=full\nk_runtime unroll=full\n' > %t.nvra
; RUN: %llvm_clang --target=nvptx64-nvidia-cuda -O3 -S -emit-llvm %s -o - -fpass-plugin=%plugin \
; RUN:   -mllvm -nvregalloc-function-options=%t.nvra -Rpass=nvregalloc-unroll-gate 2>%t.remarks \
; RUN:   | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
;
; opt runs the same gates in its -O3 pipeline. It loads the plugin at all
; only because no pass of ours is named like one of our options: opt makes
; every legacy pass name an option, and a second option of a name aborts it.
; RUN: %opt_plugin -passes='default<O3>' -nvregalloc-function-options=%t.nvra %s -S -o - | FileCheck %s
;
; Each pass alone, by name: the gate marks only k_off's loop, beside the
; metadata it had; the end pass takes both marks back and leaves the rest.
; RUN: %opt_plugin -passes='loop(nvregalloc-unroll-gate)' -nvregalloc-function-options=%t.nvra %s -S -o %t.gated.ll
; RUN: FileCheck %s --check-prefix=GATE < %t.gated.ll
; RUN: %opt_plugin -passes=nvregalloc-unroll-gate-end -nvregalloc-function-options=%t.nvra %t.gated.ll -S -o - \
; RUN:   | FileCheck %s --check-prefix=END
;
; In PTX the loop stays a loop, without a pragma for ptxas.
; RUN: %llvm_clang --target=nvptx64-nvidia-cuda -march=sm_90 -Xclang -target-feature -Xclang +ptx80 -O3 -S %s -o %t.ptx -fpass-plugin=%plugin \
; RUN:   -mllvm -nvregalloc-function-options=%t.nvra
; RUN: FileCheck %s --check-prefix=PTX < %t.ptx
; RUN: %if cuda %{ %ptxas -arch=sm_90 -c %t.ptx -o %t.o %}
;
; With unroll=on everywhere, or for another target, the IR is stock clang's.
; RUN: %llvm_clang --target=nvptx64-nvidia-cuda -O3 -S -emit-llvm %s -o %t.stock.ll
; RUN: echo "* unroll=on" > %t.on
; RUN: %llvm_clang --target=nvptx64-nvidia-cuda -O3 -S -emit-llvm %s -o %t.on.ll -fpass-plugin=%plugin \
; RUN:   -mllvm -nvregalloc-function-options=%t.on
; RUN: diff %t.stock.ll %t.on.ll
; RUN: %llvm_clang --target=x86_64-unknown-linux-gnu -O3 -S -emit-llvm %s -o - -fpass-plugin=%plugin \
; RUN:   -mllvm -nvregalloc-function-options=%t.nvra 2>/dev/null | FileCheck %s --check-prefix=HOST

target triple = "nvptx64-nvidia-cuda"

; CHECK-LABEL: define ptx_kernel void @k_off(
; CHECK:       %i = phi i32
; CHECK:       br i1 %{{.*}}, label %exit, label %loop, !llvm.loop [[ID:![0-9]+]]
; CHECK-LABEL: define ptx_kernel void @k_on(
; CHECK-NOT:   phi
; CHECK:       %w.7 = mul
; CHECK-LABEL: define ptx_kernel void @k_pragma(
; CHECK-NOT:   phi
; CHECK:       %w.7 = mul
; CHECK-LABEL: define ptx_kernel void @k_small16(
; CHECK:       %i = phi i32
; CHECK-LABEL: define ptx_kernel void @k_full16(
; CHECK-NOT:   phi
; CHECK:       %w.15 = mul
; CHECK-LABEL: define ptx_kernel void @k_runtime(
; CHECK:       load
; CHECK-NOT:   load
; CHECK:       ret void
; CHECK:       [[ID]] = distinct !{[[ID]], [[PROGRESS:![0-9]+]]}
; CHECK:       [[PROGRESS]] = !{!"llvm.loop.mustprogress"}
; CHECK-NOT:   nvregalloc
; CHECK-NOT:   llvm.loop.unroll.disable

; GATE-LABEL:  define ptx_kernel void @k_off(
; GATE:        !llvm.loop [[OFF:![0-9]+]]
; GATE-LABEL:  define ptx_kernel void @k_on(
; GATE-NOT:    !llvm.loop
; GATE-LABEL:  define ptx_kernel void @k_pragma(
; GATE:        !llvm.loop [[FULL:![0-9]+]]
; GATE:        [[OFF]] = distinct !{[[OFF]], [[PROGRESS:![0-9]+]], [[DISABLE:![0-9]+]], [[OURS:![0-9]+]]}
; GATE:        [[PROGRESS]] = !{!"llvm.loop.mustprogress"}
; GATE:        [[DISABLE]] = !{!"llvm.loop.unroll.disable"}
; GATE:        [[OURS]] = !{!"nvregalloc.unroll.off"}
; GATE:        [[FULL]] = distinct !{[[FULL]], [[UNROLL:![0-9]+]]}
; GATE:        [[UNROLL]] = !{!"llvm.loop.unroll.full"}

; END:         [[ID:![0-9]+]] = distinct !{[[ID]], [[PROGRESS:![0-9]+]]}
; END:         [[PROGRESS]] = !{!"llvm.loop.mustprogress"}
; END-NOT:     unroll.disable
; END-NOT:     nvregalloc

; REMARK-DAG:  remark: <unknown>:0:0: function k_off: loop of 9 instructions, 8 iterations: left rolled (unroll=off)
; REMARK-DAG:  remark: <unknown>:0:0: function k_small16: loop of 9 instructions, 16 iterations: left rolled (unroll=small)
; REMARK-DAG:  remark: <unknown>:0:0: function k_runtime: loop of 9 instructions, a trip count not constant: left rolled (unroll=full)
; REMARK-NOT:  remark:

; PTX-LABEL:   .entry k_off(
; PTX-NOT:     .pragma
; PTX:         @%p{{[0-9]+}} bra $L__BB0_1;
; PTX-LABEL:   .entry k_on(

; HOST-LABEL:  define ptx_kernel void @k_off(
; HOST-NOT:    phi
; HOST:        ret void

define ptx_kernel void @k_off(ptr %p, i32 %x) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %a = getelementptr i32, ptr %p, i32 %i
  %v = load i32, ptr %a
  %w = mul i32 %v, %x
  store i32 %w, ptr %a
  %i.next = add i32 %i, 1
  %c = icmp ult i32 %i.next, 8
  br i1 %c, label %loop, label %exit, !llvm.loop !0
exit:
  ret void
}

define ptx_kernel void @k_on(ptr %p, i32 %x) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %a = getelementptr i32, ptr %p, i32 %i
  %v = load i32, ptr %a
  %w = mul i32 %v, %x
  store i32 %w, ptr %a
  %i.next = add i32 %i, 1
  %c = icmp ult i32 %i.next, 8
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

define ptx_kernel void @k_pragma(ptr %p, i32 %x) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %a = getelementptr i32, ptr %p, i32 %i
  %v = load i32, ptr %a
  %w = mul i32 %v, %x
  store i32 %w, ptr %a
  %i.next = add i32 %i, 1
  %c = icmp ult i32 %i.next, 8
  br i1 %c, label %loop, label %exit, !llvm.loop !2
exit:
  ret void
}

define ptx_kernel void @k_small16(ptr %p, i32 %x) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %a = getelementptr i32, ptr %p, i32 %i
  %v = load i32, ptr %a
  %w = mul i32 %v, %x
  store i32 %w, ptr %a
  %i.next = add i32 %i, 1
  %c = icmp ult i32 %i.next, 16
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

define ptx_kernel void @k_full16(ptr %p, i32 %x) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %a = getelementptr i32, ptr %p, i32 %i
  %v = load i32, ptr %a
  %w = mul i32 %v, %x
  store i32 %w, ptr %a
  %i.next = add i32 %i, 1
  %c = icmp ult i32 %i.next, 16
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

define ptx_kernel void @k_runtime(ptr %p, i32 %x, i32 %n) {
entry:
  %any = icmp sgt i32 %n, 0
  br i1 %any, label %loop, label %exit
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %a = getelementptr i32, ptr %p, i32 %i
  %v = load i32, ptr %a
  %w = mul i32 %v, %x
  store i32 %w, ptr %a
  %i.next = add i32 %i, 1
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

!0 = distinct !{!0, !1}
!1 = !{!"llvm.loop.mustprogress"}
!2 = distinct !{!2, !3}
!3 = !{!"llvm.loop.unroll.full"}

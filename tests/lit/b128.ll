; 128-bit registers (B128, LLVM 22's class for i128 inline-asm operands and
; some 128-bit atomics and vectors) are a register class like the others:
; counted, colored and renamed, in straight and graph-free coloring. The asm's
; early-clobber "=&q" output may not take its input's register.
; RUN: %llc_plugin -nvregalloc-color=rename -mattr=+ptx83 -verify-machineinstrs %s -o %t.ptx -join-liveintervals=false \
; RUN:   -pass-remarks=nvregalloc-coloring -pass-remarks-analysis=nvregalloc-coloring 2>&1 | FileCheck %s --check-prefix=REMARK
; RUN: FileCheck %s < %t.ptx
; RUN: %llc_plugin -nvregalloc-color=rename -mattr=+ptx83 -verify-machineinstrs %s -o %t.free.ptx -join-liveintervals=false \
; RUN:   -nvregalloc-graph-limit=0 -pass-remarks-analysis=nvregalloc-coloring 2>&1 | FileCheck %s --check-prefix=REMARK
; RUN: FileCheck %s < %t.free.ptx
; RUN: %if cuda %{ %ptxas -arch=sm_90 %t.ptx -o /dev/null %}
; RUN: %if cuda %{ %ptxas -arch=sm_90 %t.free.ptx -o /dev/null %}

; REMARK: function b128_swap: {{.*}} vregs-B128=2 colors-B128=2 max-live-B128=2

; CHECK:      .reg .b128 %rq<{{[0-9]+}}>;
; CHECK:      mov.b128 {lo, hi}, [[IN:%rq[0-9]+]];
; CHECK-NOT:  mov.b128 [[IN]], {hi, lo};
; CHECK:      mov.b128 %rq{{[0-9]+}}, {hi, lo};

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @b128_swap(ptr addrspace(1) %p, i64 %a, i64 %b, i32 %n) {
entry:
  %x0 = zext i64 %a to i128
  %y0 = zext i64 %b to i128
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %x = phi i128 [ %x0, %entry ], [ %y, %loop ]
  %y = phi i128 [ %y0, %entry ], [ %z, %loop ]
  %z = call i128 asm "{\0A\09.reg .b64 lo, hi;\0A\09mov.b128 {lo, hi}, $1;\0A\09add.s64 lo, lo, hi;\0A\09mov.b128 $0, {hi, lo};\0A\09}", "=&q,q"(i128 %x)
  %i.next = add i32 %i, 1
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  store i128 %z, ptr addrspace(1) %p
  store i128 %y, ptr addrspace(1) %p
  ret void
}

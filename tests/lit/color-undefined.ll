; A value undefined on entry to a loop (an IMPLICIT_DEF from `phi [undef, ...]`)
; keeps a PTX register no defined value writes. ptxas takes an undefined
; register as any value it likes; sharing one with a value computed before
; the loop makes it a real loop-carried input, and ptxas then needs more
; registers (HeCBench ssm: 32 -> 38 from one such register).
; RUN: %llc_plugin -nvregalloc-color=rename -verify-machineinstrs %s -o - | FileCheck %s
; Graph-free coloring too.
; RUN: %llc_plugin -nvregalloc-color=rename -verify-machineinstrs -nvregalloc-graph-limit=0 %s -o - | FileCheck %s
; RUN: %llc_plugin -nvregalloc-color=rename -verify-machineinstrs %s -o %t.ptx
; -nvregalloc-undefined-apart=false lets it share one (as before).
; RUN: %llc_plugin -nvregalloc-color=rename -verify-machineinstrs -nvregalloc-undefined-apart=false %s -o - | FileCheck %s --check-prefix=SHARED
; RUN: %if cuda %{ %ptxas -arch=sm_90 -c %t.ptx -o %t.o %}

; CHECK: mul.lo.s32 [[B:%r[0-9]+]],
; CHECK-NOT: // implicit-def: [[B]]{{$}}
; CHECK: // %loop
; CHECK: selp.b32 [[U:%r[0-9]+]], {{%r[0-9]+}}, [[U]], %p{{[0-9]+}};
; CHECK: st.global.b32 [{{%rd[0-9]+}}+4], [[U]];
; SHARED: mul.lo.s32 [[B:%r[0-9]+]],
; SHARED: // implicit-def: [[B]]{{$}}

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %n) {
entry:
  %a = load i32, ptr addrspace(1) %in
  %b = mul i32 %a, %n
  store i32 %b, ptr addrspace(1) %out
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %last = phi i32 [ undef, %entry ], [ %sel, %loop ]
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %i
  %v = load i32, ptr addrspace(1) %p
  %c = icmp sgt i32 %v, 0
  %sel = select i1 %c, i32 %v, i32 %last
  %i.next = add i32 %i, 1
  %done = icmp eq i32 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  %q = getelementptr i32, ptr addrspace(1) %out, i32 1
  store i32 %sel, ptr addrspace(1) %q
  ret void
}

; An instruction that defines several registers may be expanded by ptxas into
; several SASS instructions, the first writing part of the result before the
; last has read its inputs: wmma.mma m16n16k16 becomes two HMMAs that both
; read the A fragment. With the result colored onto A's registers (A dies at
; the mma), HeCBench wmma computed wrong products on an H200 (scripts/gpu-corpus)
; while ptxas counted fewer registers. So none of D's registers is one of A, B
; or C's (CHECK-NOT between the D line and the end of the instruction).
; RUN: %llc_plugin -verify-machineinstrs %s -o %t.ptx
; RUN: FileCheck %s < %t.ptx
; Graph-free coloring and budget mode keep them apart too.
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-graph-limit=0 %s -o - | FileCheck %s
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-max-regs=32 %s -o - | FileCheck %s
; RUN: %if cuda %{ %ptxas -arch=sm_90 -c %t.ptx -o %t.o %}

; CHECK: wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32
; CHECK-NEXT: {{[{]}}[[D0:%r[0-9]+]], [[D1:%r[0-9]+]], [[D2:%r[0-9]+]], [[D3:%r[0-9]+]], [[D4:%r[0-9]+]], [[D5:%r[0-9]+]], [[D6:%r[0-9]+]], [[D7:%r[0-9]+]]},
; CHECK-NOT: [[D0]]{{[,}]}}
; CHECK-NOT: [[D1]]{{[,}]}}
; CHECK-NOT: [[D2]]{{[,}]}}
; CHECK-NOT: [[D3]]{{[,}]}}
; CHECK-NOT: [[D4]]{{[,}]}}
; CHECK-NOT: [[D5]]{{[,}]}}
; CHECK-NOT: [[D6]]{{[,}]}}
; CHECK-NOT: [[D7]]{{[,}]}}
; CHECK: };

target triple = "nvptx64-nvidia-cuda"

declare { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } @llvm.nvvm.wmma.m16n16k16.load.a.row.stride.f16.p0(ptr, i32)
declare { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } @llvm.nvvm.wmma.m16n16k16.load.b.col.stride.f16.p0(ptr, i32)
declare { float, float, float, float, float, float, float, float } @llvm.nvvm.wmma.m16n16k16.mma.row.col.f32.f32(<2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, float, float, float, float, float, float, float, float)
declare void @llvm.nvvm.wmma.m16n16k16.store.d.row.stride.f32.p0(ptr, float, float, float, float, float, float, float, float, i32)

define ptx_kernel void @mma(ptr %a, ptr %b, ptr %d, i32 %s) {
entry:
  %fa = call { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } @llvm.nvvm.wmma.m16n16k16.load.a.row.stride.f16.p0(ptr %a, i32 %s)
  %fb = call { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } @llvm.nvvm.wmma.m16n16k16.load.b.col.stride.f16.p0(ptr %b, i32 %s)
  %a0 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fa, 0
  %a1 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fa, 1
  %a2 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fa, 2
  %a3 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fa, 3
  %a4 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fa, 4
  %a5 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fa, 5
  %a6 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fa, 6
  %a7 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fa, 7
  %b0 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fb, 0
  %b1 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fb, 1
  %b2 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fb, 2
  %b3 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fb, 3
  %b4 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fb, 4
  %b5 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fb, 5
  %b6 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fb, 6
  %b7 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fb, 7
  %r = call { float, float, float, float, float, float, float, float } @llvm.nvvm.wmma.m16n16k16.mma.row.col.f32.f32(<2 x half> %a0, <2 x half> %a1, <2 x half> %a2, <2 x half> %a3, <2 x half> %a4, <2 x half> %a5, <2 x half> %a6, <2 x half> %a7, <2 x half> %b0, <2 x half> %b1, <2 x half> %b2, <2 x half> %b3, <2 x half> %b4, <2 x half> %b5, <2 x half> %b6, <2 x half> %b7, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0)
  %r0 = extractvalue { float, float, float, float, float, float, float, float } %r, 0
  %r1 = extractvalue { float, float, float, float, float, float, float, float } %r, 1
  %r2 = extractvalue { float, float, float, float, float, float, float, float } %r, 2
  %r3 = extractvalue { float, float, float, float, float, float, float, float } %r, 3
  %r4 = extractvalue { float, float, float, float, float, float, float, float } %r, 4
  %r5 = extractvalue { float, float, float, float, float, float, float, float } %r, 5
  %r6 = extractvalue { float, float, float, float, float, float, float, float } %r, 6
  %r7 = extractvalue { float, float, float, float, float, float, float, float } %r, 7
  call void @llvm.nvvm.wmma.m16n16k16.store.d.row.stride.f32.p0(ptr %d, float %r0, float %r1, float %r2, float %r3, float %r4, float %r5, float %r6, float %r7, i32 %s)
  ret void
}

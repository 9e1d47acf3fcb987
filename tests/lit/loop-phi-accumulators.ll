; Three float accumulators start at 0.0 around a loop. After PHI elimination
; stock LLVM keeps one zero register and copies it into the other two
; accumulators on the loop's entry edge (the copies interfere: each
; accumulator is redefined in the loop while the zero is still needed).
; nvregalloc-coalescer turns those copies into move-immediates, so no register
; move is left, and nvregalloc-coloring needs fewer registers.
; RUN: %llc_nvptx %s -o %t.stock.ptx
; RUN: %llc_plugin -nvregalloc-color=rename -verify-machineinstrs %s -o %t.plugin.ptx
; RUN: FileCheck %s --check-prefix=STOCK < %t.stock.ptx
; RUN: FileCheck %s --check-prefix=PLUGIN < %t.plugin.ptx
; RUN: %ptx_moves %t.stock.ptx | FileCheck %s --check-prefix=STOCK-MOVES
; RUN: %ptx_moves %t.plugin.ptx | FileCheck %s --check-prefix=PLUGIN-MOVES
; STOCK:        .reg .b32 %r<9>;
; STOCK:        mov.b32 [[ZERO:%r[0-9]+]], 0f00000000;
; STOCK:        mov.b32 %r{{[0-9]+}}, [[ZERO]];
; STOCK-NEXT:   mov.b32 %r{{[0-9]+}}, [[ZERO]];
; STOCK-NEXT: $L__BB0_1:
; PLUGIN:       .reg .b32 %r<7>;
; PLUGIN-COUNT-3: mov.b32 %r{{[0-9]+}}, 0f00000000;
; PLUGIN-NEXT:  $L__BB0_1:
; STOCK-MOVES:  2
; PLUGIN-MOVES: 0

target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @acc(ptr addrspace(1) %p, ptr addrspace(1) %q, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %a = phi float [ 0.0, %entry ], [ %a.next, %loop ]
  %b = phi float [ 0.0, %entry ], [ %b.next, %loop ]
  %c = phi float [ 0.0, %entry ], [ %c.next, %loop ]
  %pa = getelementptr float, ptr addrspace(1) %q, i32 %i
  %x = load float, ptr addrspace(1) %pa
  %a.next = fadd float %a, %x
  %b.next = fmul float %b, %x
  %c.next = fsub float %c, %x
  %i.next = add i32 %i, 1
  %done = icmp sge i32 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %s = fadd float %a.next, %b.next
  %t = fadd float %s, %c.next
  store float %t, ptr addrspace(1) %p
  ret void
}

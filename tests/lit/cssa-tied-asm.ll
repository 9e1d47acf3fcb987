; CSSA coalescing and an inline asm whose output is tied to an input
; ("=l,0,l"), found by scripts/fuzz-ir (seed 1, program 718, shrunk). The
; loop PHI %x is the asm's other input and dies there, so in SSA form %x and
; the asm's result %r look free to share a register. They are not:
; TwoAddressInstruction copies the tied input (the constant 1) into %r's
; register before the asm reads %x. Sharing made the asm read 1 for %x
; (mul.lo.u64 %rd2, %rd2, %rd2). A tied def now meets the other inputs of
; its instruction, in the interference graph and in the checker.
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-cssa-coalesce %s -o %t.ptx
; RUN: FileCheck %s < %t.ptx
; The asm must not read %x from the register it writes: no "mul R, R, R".
; RUN: not grep -E 'mul\.lo\.u64 (%%rd[0-9]+), \1, \1;' %t.ptx
; RUN: %if cuda %{ %ptxas -arch=sm_90 -c %t.ptx -o %t.o %}
; CHECK:      mov.b64 [[R:%rd[0-9]+]], 1;
; CHECK-NEXT: // begin inline asm
; CHECK-NEXT: mul.lo.u64 [[R]], [[R]], [[X:%rd[0-9]+]];
; CHECK-NEXT: add.u64 [[R]], [[R]], [[X]];

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr %in, ptr %out) {
entry:
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %off = zext i32 %tid to i64
  %p = getelementptr i64, ptr %in, i64 %off
  %v = load i64, ptr %p, align 8
  %c = icmp sgt i64 %v, 0
  br i1 %c, label %a, label %b

a:                                    ; one header of the irreducible loop
  %xa = phi i64 [ %v, %entry ], [ %r, %b ]
  %na = phi i32 [ 0, %entry ], [ %nb.next, %b ]
  %shl = shl i64 %xa, 1
  %na.next = add i32 %na, 1
  %more.a = icmp slt i32 %na, 4
  br i1 %more.a, label %b, label %exit

b:                                    ; the other header
  %x = phi i64 [ %shl, %a ], [ %v, %entry ]
  %nb = phi i32 [ %na.next, %a ], [ 0, %entry ]
  %r = tail call i64 asm sideeffect "mul.lo.u64 $0, $0, $2;\0A\09add.u64 $0, $0, $2;", "=l,0,l"(i64 1, i64 %x)
  %nb.next = add i32 %nb, 1
  %more.b = icmp slt i32 %nb, 4
  br i1 %more.b, label %a, label %exit

exit:
  %res = phi i64 [ %r, %b ], [ %shl, %a ]
  %q = getelementptr i64, ptr %out, i64 %off
  store i64 %res, ptr %q, align 8
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

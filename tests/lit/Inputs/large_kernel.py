#!/usr/bin/env python3
"""Prints a large NVPTX kernel: one loop carrying N values around a rotation,
so PHI elimination makes N copies and the loop body has several times N
instructions."""
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
print('target triple = "nvptx64-nvidia-cuda"')
print("define ptx_kernel void @large(ptr addrspace(1) %p, i32 %trip) {")
print("entry:\n  br label %loop\nloop:")
print("  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]")
for k in range(n):
    print(f"  %v{k} = phi i32 [ {k}, %entry ], [ %w{(k + 1) % n}, %loop ]")
for k in range(n):
    print(f"  %t{k} = mul i32 %v{k}, %i")
    print(f"  %w{k} = add i32 %t{k}, %v{(k + 7) % n}")
print("  %i.next = add i32 %i, 1")
print("  %c = icmp slt i32 %i.next, %trip")
print("  br i1 %c, label %loop, label %exit")
print("exit:")
acc = "%w0"
for k in range(1, n):
    print(f"  %s{k} = xor i32 {acc}, %w{k}")
    acc = f"%s{k}"
print(f"  store i32 {acc}, ptr addrspace(1) %p")
print("  ret void\n}")

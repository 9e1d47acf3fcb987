; A function the passes cannot handle, or a failure inside them, leaves that
; function exactly as LLVM made it, with one warning naming it; other
; functions are still rewritten and llc exits 0.
; RUN: %llc_nvptx %s -o %t.stock.ptx
; Every function is coalesced and renamed.
; RUN: %llc_plugin -nvregalloc-color=rename -verify-machineinstrs %s -o %t.plugin.ptx 2>%t.warnings
; RUN: FileCheck %s --check-prefix=NONE --allow-empty < %t.warnings
; RUN: FileCheck %s --check-prefix=REWRITTEN < %t.plugin.ptx
; A budget of 2 registers cannot hold the 3 inputs of one asm: refused.
; RUN: %llc_plugin -verify-machineinstrs -nvregalloc-max-regs=2 %s -o %t.budget.ptx 2>%t.budget
; RUN: FileCheck %s --check-prefix=REFUSED < %t.budget
; RUN: sed -n '/entry three_inputs/,/^}/p' %t.stock.ptx > %t.stock.fn
; RUN: sed -n '/entry three_inputs/,/^}/p' %t.budget.ptx > %t.budget.fn
; RUN: diff %t.stock.fn %t.budget.fn
; A panic inside the Rust core is caught at the FFI boundary.
; RUN: %llc_plugin -nvregalloc-color=rename -nvregalloc-inject-fault=panic %s -o %t.panic.ptx 2>%t.panic
; RUN: FileCheck %s --check-prefix=PANIC < %t.panic
; RUN: diff %t.stock.ptx %t.panic.ptx
; A wrong rewrite (two interfering registers merged) is refused by the checker.
; RUN: %llc_plugin -nvregalloc-color=rename -nvregalloc-inject-fault=merge-interfering %s -o %t.wrong.ptx 2>%t.wrong
; RUN: FileCheck %s --check-prefix=WRONG < %t.wrong
; RUN: diff %t.stock.ptx %t.wrong.ptx

; NONE-NOT: warning
; REFUSED:     warning: nvregalloc-coloring: function 'three_inputs' left unchanged: does not fit in 2 registers per class: instruction i{{[0-9]+}} reads 3 B32 registers at once
; REFUSED-NOT: warning: {{.*}} 'three_inputs'
; REWRITTEN-LABEL: .entry plain(
; REWRITTEN:       .reg .b32 %r<3>;
; PANIC:    warning: nvregalloc-coalescer: function 'plain' left unchanged: internal error in the Rust core: injected fault: panic while running Coalesce on plain at src/driver.rs:{{[0-9]+}}
; PANIC:    warning: nvregalloc-coloring: function 'plain' left unchanged: internal error in the Rust core
; WRONG:    warning: nvregalloc-coalescer: function 'plain' left unchanged: the checker rejected the rewrite: at instruction {{[0-9]+}}: reads v{{[0-9]+}} from v{{[0-9]+}}, which may not hold its value there

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @three_inputs(ptr addrspace(1) %p, i32 %a, i32 %b, i32 %c) {
  %x = call i32 asm "mad.lo.s32 $0, $1, $2, $3;", "=r,r,r,r"(i32 %a, i32 %b, i32 %c)
  store i32 %x, ptr addrspace(1) %p
  ret void
}

define ptx_kernel void @plain(ptr addrspace(1) %p, i32 %a) {
  %x1 = add i32 %a, 1
  store volatile i32 %x1, ptr addrspace(1) %p
  %x2 = mul i32 %a, 3
  store volatile i32 %x2, ptr addrspace(1) %p
  %x3 = xor i32 %x1, %x2
  store volatile i32 %x3, ptr addrspace(1) %p
  ret void
}

; A function the passes cannot handle, or a failure inside them, leaves that
; function exactly as LLVM made it, with one warning naming it; other
; functions are still rewritten and llc exits 0.
; RUN: %llc_nvptx %s -o %t.stock.ptx
; Inline assembly: unsupported.
; RUN: %llc_plugin -verify-machineinstrs %s -o %t.plugin.ptx 2>%t.warnings
; RUN: FileCheck %s --check-prefix=ASM < %t.warnings
; RUN: FileCheck %s --check-prefix=REWRITTEN < %t.plugin.ptx
; A panic inside the Rust core is caught at the FFI boundary.
; RUN: %llc_plugin -nvregalloc-inject-fault=panic %s -o %t.panic.ptx 2>%t.panic
; RUN: FileCheck %s --check-prefix=PANIC < %t.panic
; RUN: diff %t.stock.ptx %t.panic.ptx
; A wrong rewrite (two interfering registers merged) is refused by the checker.
; RUN: %llc_plugin -nvregalloc-inject-fault=merge-interfering %s -o %t.wrong.ptx 2>%t.wrong
; RUN: FileCheck %s --check-prefix=WRONG < %t.wrong
; RUN: diff %t.stock.ptx %t.wrong.ptx

; ASM:      warning: nvregalloc-coalesce: function 'with_asm' left unchanged: inline assembly
; ASM-NEXT: warning: nvregalloc-color: function 'with_asm' left unchanged: inline assembly
; ASM-NOT:  warning
; REWRITTEN-LABEL: .entry plain(
; REWRITTEN:       .reg .b32 %r<3>;
; PANIC:    warning: nvregalloc-coalesce: function 'plain' left unchanged: internal error in the Rust core: injected fault: panic while running Coalesce on plain at src/driver.rs:{{[0-9]+}}
; PANIC:    warning: nvregalloc-color: function 'plain' left unchanged: internal error in the Rust core
; WRONG:    warning: nvregalloc-coalesce: function 'plain' left unchanged: the checker rejected the rewrite: at instruction {{[0-9]+}}: reads v{{[0-9]+}} from v{{[0-9]+}}, which may not hold its value there

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @with_asm(ptr addrspace(1) %p, i32 %a) {
  %x = call i32 asm "add.s32 $0, $1, 1;", "=r,r"(i32 %a)
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

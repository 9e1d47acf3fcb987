; nvregalloc-mul-wide is the last IR pass before instruction selection,
; after every CSE that would merge its copies back. nvregalloc-cssa sits between LiveVariables (which needs SSA form) and PHI
; elimination. The coalesce and color passes sit right after
; StackSlotColoring, where LiveIntervals is no longer alive, and before
; NVPTX's PrologEpilog pass lays out frame objects (spill slots included);
; nvregalloc-local-frame follows it, after NVPTX's peephole, to address
; spill slots from the local frame register.
; RUN: %llc_plugin -nvregalloc-cssa-coalesce -debug-pass=Structure %s -o /dev/null 2>&1 | FileCheck %s
; CSSA coalescing is off by default, and then not in the pipeline at all.
; RUN: %llc_plugin -debug-pass=Structure %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NO-CSSA
; replace-stock puts its gate right before LLVM's RegisterCoalescer, which
; then coalesces only the functions our coalescer will not take.
; RUN: %llc_plugin -nvregalloc-coalesce=replace-stock -debug-pass=Structure %s -o /dev/null 2>&1 \
; RUN:   | FileCheck %s --check-prefix=REPLACE
; The pressure pass, off by default, runs right before the coalesce pass when enabled.
; RUN: %llc_plugin -nvregalloc-pressure=relieve -debug-pass=Structure %s -o /dev/null 2>&1 \
; RUN:   | FileCheck %s --check-prefix=PRESSURE
; Without the plugin, neither pass runs.
; RUN: %llc_nvptx -debug-pass=Structure %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=STOCK

; CHECK:      Insert stack protectors
; CHECK-NEXT: nvregalloc: widenings copied into the blocks that scale them
; CHECK:      NVPTX DAG->DAG Pattern Instruction Selection
; CHECK:      Live Variable Analysis
; CHECK:      nvregalloc: coalesce PHI operands (CSSA)
; CHECK-NEXT: Eliminate PHI nodes for register allocation
; CHECK:      Register Coalescer
; CHECK:      Stack Slot Coloring
; CHECK-NEXT: Lazy Machine Block Frequency Analysis
; CHECK-NEXT: Machine Optimization Remark Emitter
; CHECK-NEXT: nvregalloc: coalesce copies
; CHECK-NEXT: nvregalloc: color registers
; CHECK-NEXT: NVPTX Prolog Epilog Pass
; CHECK:      Remove Redundant DEBUG_VALUE analysis
; CHECK-NEXT: nvregalloc: local frame register for spill code

; REPLACE:     Two-Address instruction pass
; REPLACE:     nvregalloc: let LLVM's coalescer take what ours refuses
; REPLACE:     Live Interval Analysis
; REPLACE-NEXT: Register Coalescer
; REPLACE:     nvregalloc: coalesce copies

; NO-CSSA-NOT: CSSA
; NO-CSSA-NOT: pressure
; NO-CSSA:     nvregalloc: coalesce copies

; PRESSURE:      Stack Slot Coloring
; PRESSURE:      nvregalloc: relieve register pressure
; PRESSURE-NEXT: nvregalloc: coalesce copies

; STOCK-NOT: nvregalloc

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr addrspace(1) %p, i32 %a) {
  %x = add i32 %a, 7
  store i32 %x, ptr addrspace(1) %p
  ret void
}

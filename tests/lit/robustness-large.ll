; A large function (about 20,000 instructions and 10,000 copies out of PHI
; elimination in one loop) goes through both passes, verified, and ptxas
; accepts it; the passes' remarks show they did their work.
; RUN: python3 %inputs/large_kernel.py 2500 > %t.ll
; RUN: %llc_plugin -nvregalloc-color=rename -verify-machineinstrs -pass-remarks-analysis=nvregalloc-coloring %t.ll -o %t.ptx 2>%t.remarks
; RUN: FileCheck %s < %t.remarks
; CHECK: remark: <unknown>:0:0: function large: vregs-before={{[0-9]+}} vregs-after={{[0-9]+}} max-live={{[0-9]+}}

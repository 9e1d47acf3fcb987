; What the passes did, in the tools LLVM users know: -stats, remarks (also as
; YAML), a JSON report with phase times and occupancy, Graphviz graphs, and
; the HTML page scripts/report makes of the JSON.
; RUN: rm -rf %t.dir && mkdir -p %t.dir
; RUN: %llc_plugin -nvregalloc-color=rename -nvregalloc-cssa-coalesce %s -o /dev/null -stats -pass-remarks=nvregalloc -pass-remarks-analysis=nvregalloc \
; RUN:   -pass-remarks-missed=nvregalloc -pass-remarks-output=%t.dir/remarks.yaml \
; RUN:   -nvregalloc-report=%t.dir/acc.json -nvregalloc-dot=%t.dir/dot 2>%t.dir/stderr
; RUN: FileCheck %s --check-prefix=STATS < %t.dir/stderr
; RUN: FileCheck %s --check-prefix=REMARKS < %t.dir/stderr
; RUN: FileCheck %s --check-prefix=YAML < %t.dir/remarks.yaml
; RUN: FileCheck %s --check-prefix=JSON < %t.dir/acc.json
; RUN: FileCheck %s --check-prefix=DOT < %t.dir/dot/acc.dot
; RUN: %python %root/scripts/report --ptxas= %t.dir/acc.json -o %t.dir/report.html
; RUN: FileCheck %s --check-prefix=HTML < %t.dir/report.html

; STATS:      ... nvregalloc statistics ...
; STATS:      2 nvregalloc-coalescer - copies-rematerialized
; STATS:      2 nvregalloc-coalescer - copies-seen
; STATS:      6 nvregalloc-coloring - colors-B32
; STATS:      6 nvregalloc-coloring - max-live-B32
; STATS:      8 nvregalloc-coloring - vregs-B32
; STATS:      6 nvregalloc-cssa - copies-avoided
; STATS:      2 nvregalloc-cssa - phis-eliminated

; REMARKS: remark: <unknown>:0:0: function acc: phis=5 phis-eliminated=2 phis-kept=3 operands-merged=4
; REMARKS: remark: <unknown>:0:0: rewrote function acc
; REMARKS: remark: <unknown>:0:0: function acc: copies-seen=2 copies-coalesced=0 copies-of-held-values=0 copies-rematerialized=2
; REMARKS: remark: <unknown>:0:0: rewrote function acc
; REMARKS: remark: <unknown>:0:0: function acc: vregs-before=11 vregs-after=9 max-live=9

; YAML:      --- !Analysis
; YAML-NEXT: Pass: nvregalloc-lsr-judge
; YAML-NEXT: Name: LsrKept
; YAML:      --- !Analysis
; YAML-NEXT: Pass: nvregalloc-cssa
; YAML-NEXT: Name: Summary
; YAML:      - phis-eliminated: '2'
; YAML:      --- !Analysis
; YAML-NEXT: Pass: nvregalloc-coalescer
; YAML-NEXT: Name: Summary
; YAML:      - copies-rematerialized: '2'
; YAML:      --- !Passed
; YAML-NEXT: Pass: nvregalloc-coalescer
; YAML-NEXT: Name: Rewritten

; JSON:      "functions": {
; JSON-NEXT:   "acc": {
; JSON:          "coalesce": {
; JSON:            "copies-rematerialized": 2,
; JSON:          "time_ms": {
; JSON-NEXT:       "checker":
; JSON:          "color": {
; JSON:          "occupancy": {
; JSON-NEXT:       "basis": "PTX colors, which ptxas re-allocates",
; JSON-NEXT:       "fraction_at_most": 1.0,
; JSON-NEXT:       "registers_per_thread_at_least": 10,
; JSON-NEXT:       "warps_per_sm_at_most": 64
; JSON:          "cssa": {
; JSON:            "phis-eliminated": 2,
; JSON:      "target": "sm_90"

; DOT:      graph "acc" {
; DOT:      node [style=filled, colorscheme=set312, fontname=monospace];
; DOT:      [label="%{{[0-9]+}}\nB32 r{{[0-9]+}}", fillcolor={{[0-9]+}}];
; DOT:      v{{[0-9]+}} -- v{{[0-9]+}};

; HTML: <h2>acc <small>(sm_90)</small></h2><h3>acc</h3>
; HTML: virtual registers
; HTML: from the PTX colors (ptxas re-allocates): at least 10 registers per thread, at most 64 warps per SM (100%)

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

; Dense functions (-nvregalloc-graph-limit): LLVM's bug211018.ll (a vector
; load, multiply and ordered reduction) at 512 lanes, and a loop carrying 128
; accumulators (scripts/scaling.py's dense family, small enough for CI).
; Within the limit every pass builds its interference graph; past it the color
; pass sweeps live ranges instead (MaxLive colors on straight code), the other
; passes leave the function as it is with a remark, and budget mode refuses it
; with a warning. The report says which path each pass took.

; Within the default limit (1,000,000 entries): graphs.
; RUN: rm -rf %t && mkdir -p %t
; RUN: %llc_plugin -nvregalloc-color=rename -verify-machineinstrs %s -o %t/graph.ptx -nvregalloc-cssa-coalesce -nvregalloc-report=%t/graph.json
; RUN: FileCheck %s --check-prefix=GRAPH < %t/graph.json
; GRAPH:      "accumulation": {
; GRAPH:        "coalesce": {
; GRAPH:          "method": "graph",
; GRAPH:        "color": {
; GRAPH:          "method": "graph",
; GRAPH:        "cssa": {
; GRAPH:          "method": "graph",
; GRAPH:      "reduction": {
; GRAPH:        "coalesce": {
; GRAPH:          "method": "graph",
; GRAPH:        "color": {
; GRAPH:          "method": "graph",

; Past the limit: the graph-free path, MaxLive colors on the reduction.
; RUN: %llc_plugin -nvregalloc-color=rename -verify-machineinstrs %s -o %t/free.ptx -nvregalloc-graph-limit=10000 -nvregalloc-cssa-coalesce \
; RUN:   -nvregalloc-report=%t/free.json -pass-remarks-missed=nvregalloc -pass-remarks-analysis=nvregalloc-coloring 2>%t/free.txt
; RUN: FileCheck %s --check-prefix=FREE < %t/free.json
; RUN: FileCheck %s --check-prefix=REMARK < %t/free.txt
; FREE:      "accumulation": {
; FREE:        "coalesce": {
; FREE:          "method": "guard",
; FREE-NEXT:     "note": "left unchanged: its interference graph would take {{[0-9]+}} entries, over -nvregalloc-graph-limit=10000",
; FREE:        "color": {
; FREE:          "method": "graph-free",
; FREE:        "cssa": {
; FREE:          "method": "guard",
; FREE:      "reduction": {
; FREE:        "coalesce": {
; FREE:          "method": "guard",
; FREE:        "color": {
; FREE:          "method": "graph-free",
; REMARK:     remark: <unknown>:0:0: function reduction: left unchanged: its interference graph would take 527877 entries, over -nvregalloc-graph-limit=10000
; REMARK:     remark: <unknown>:0:0: function reduction: {{.*}} colors-B32=[[N:[0-9]+]] max-live-B32=[[N]] graph-entries=527877
; REMARK:     remark: <unknown>:0:0: function accumulation: left unchanged: its interference graph would take {{[0-9]+}} entries, over -nvregalloc-graph-limit=10000
; RUN: %if cuda %{ %ptxas -arch=sm_90 %t/free.ptx -o /dev/null %}

; The other modes past the limit; analysis changes nothing, so its PTX is stock's.
; RUN: %llc_plugin -nvregalloc-color=rename -verify-machineinstrs %s -o /dev/null -nvregalloc-graph-limit=10000 -nvregalloc-coalesce=replace-stock
; RUN: %llc_plugin %s -o %t/analyze.ptx -nvregalloc-graph-limit=10000 -nvregalloc-pressure=analyze \
; RUN:   -nvregalloc-coalesce=analyze -nvregalloc-color=analyze
; RUN: %llc_nvptx %s -o %t/stock.ptx
; RUN: diff %t/stock.ptx %t/analyze.ptx

; Budget mode has no graph-free method: a warning, and stock's PTX.
; RUN: %llc_plugin -verify-machineinstrs %s -o %t/budget.ptx -nvregalloc-graph-limit=10000 \
; RUN:   -nvregalloc-max-regs=32 -nvregalloc-coalesce=off -nvregalloc-cssa-coalesce=false 2>&1 | FileCheck %s --check-prefix=BUDGET
; RUN: diff %t/stock.ptx %t/budget.ptx
; BUDGET: warning: nvregalloc-coloring: function 'reduction' left unchanged: its interference graph would take 527877 entries, over -nvregalloc-graph-limit=10000
; BUDGET: warning: nvregalloc-coloring: function 'accumulation' left unchanged: its interference graph would take {{[0-9]+}} entries, over -nvregalloc-graph-limit=10000

target triple = "nvptx64-nvidia-cuda"

declare float @llvm.vector.reduce.fadd.v512f32(float, <512 x float>)
define ptx_kernel void @reduction(ptr addrspace(1) %out, ptr addrspace(1) %in) {
  %val = load <512 x float>, ptr addrspace(1) %in, align 32
  %mul = fmul <512 x float> %val, %val
  %res = call float @llvm.vector.reduce.fadd.v512f32(float 0.0, <512 x float> %mul)
  store float %res, ptr addrspace(1) %out, align 4
  ret void
}

define ptx_kernel void @accumulation(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi <128 x float> [ zeroinitializer, %entry ], [ %acc.next, %loop ]
  %offset = mul i32 %i, 128
  %p = getelementptr float, ptr addrspace(1) %in, i32 %offset
  %x = load <128 x float>, ptr addrspace(1) %p, align 16
  %acc.next = fadd <128 x float> %acc, %x
  %i.next = add i32 %i, 1
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  store <128 x float> %acc.next, ptr addrspace(1) %out, align 16
  ret void
}

; `inline=always` in a function-options file has the function, and every
; function it calls directly or through others, inlined wherever it is
; called, as nvcc inlines device functions, not only where LLVM's inliner
; finds it cheap: ptxas compiles an out-of-line function into every kernel
; that calls it and counts its registers there. On a kernel it covers what
; the kernel calls. nvregalloc-inline-gate, first in the middle end's
; pipeline, gives those functions the alwaysinline attribute;
; `__noinline__` (the noinline attribute) holds. Here the inliner is told to
; inline nothing of its own accord (-inline-threshold=-1000), so only the
; gate's functions are inlined.
;
; RUN: printf 'k inline=always\nplain inline=auto\n' > %t.nvra
; RUN: %opt_plugin -passes='default<O3>' -inline-threshold=-1000 -nvregalloc-function-options=%t.nvra %s -S -o - \
; RUN:   -pass-remarks=nvregalloc-inline-gate 2>%t.remarks | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
;
; Without the file, or for another target, the calls stay.
; RUN: %opt_plugin -passes='default<O3>' -inline-threshold=-1000 %s -S -o - | FileCheck %s --check-prefix=STOCK
; RUN: %opt_plugin -passes='default<O3>' -inline-threshold=-1000 -nvregalloc-function-options=%t.nvra \
; RUN:   -mtriple=x86_64-unknown-linux-gnu %s -S -o - | FileCheck %s --check-prefix=STOCK
;
; The gate alone, by name: the attribute on helper and inner only.
; RUN: %opt_plugin -passes=nvregalloc-inline-gate -nvregalloc-function-options=%t.nvra %s -S -o - \
; RUN:   | FileCheck %s --check-prefix=GATE

target triple = "nvptx64-nvidia-cuda"

; CHECK-LABEL: define ptx_kernel void @k(
; CHECK-NOT:   call
; CHECK:       call float @kept(
; CHECK-NOT:   call
; CHECK:       ret void
; CHECK-LABEL: define ptx_kernel void @plain(
; CHECK:       call float @other(

; REMARK:      remark: <unknown>:0:0: function helper: inlined wherever it is called (inline=always)
; REMARK-NEXT: remark: <unknown>:0:0: function inner: inlined wherever it is called (inline=always)
; REMARK-NOT:  remark:

; STOCK-LABEL: define {{.*}}void @k(
; STOCK:       call float @helper(

; GATE:        define float @helper(float %x) [[ALWAYS:#[0-9]+]]
; GATE:        define float @inner(float %x) [[ALWAYS]]
; GATE:        define float @kept(float %x) [[NOINLINE:#[0-9]+]]
; GATE:        define float @other(float %x) {
; GATE:        attributes [[ALWAYS]] = { alwaysinline }
; GATE:        attributes [[NOINLINE]] = { noinline }
define ptx_kernel void @k(ptr %p, float %x) {
  %a = call float @helper(float %x)
  %b = call float @kept(float %a)
  store float %b, ptr %p
  ret void
}

define ptx_kernel void @plain(ptr %p, float %x) {
  %a = call float @other(float %x)
  store float %a, ptr %p
  ret void
}

define float @helper(float %x) {
  %y = call float @inner(float %x)
  %z = fmul float %y, %y
  ret float %z
}

define float @inner(float %x) {
  %y = fadd float %x, 1.0
  %z = fmul float %y, %x
  ret float %z
}

define float @kept(float %x) noinline {
  %y = fadd float %x, 2.0
  ret float %y
}

define float @other(float %x) {
  %y = fadd float %x, 3.0
  %z = fmul float %y, %x
  ret float %z
}

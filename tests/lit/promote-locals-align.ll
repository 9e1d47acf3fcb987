; nvregalloc-promote-locals-align (part of nvregalloc-promote-locals, last in
; the middle end): a local still in memory then is aligned to 16 bytes, as
; nvcc aligns it, where it stays in memory whatever ptxas does: its address
; goes to a call, a loop walks it, or it is larger than ptxas keeps in
; registers (64 bytes). A small one read only at a data-dependent offset,
; which ptxas may keep in registers, and one under 16 bytes keep theirs.
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-align %s -S -o - | FileCheck %s
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-align -nvregalloc-promote-locals=false %s -S -o - \
; RUN:   | FileCheck %s --check-prefix=OFF
; With the alignment, the backend joins the two doubles into one store.
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-align,infer-alignment %s | %llc_nvptx -o - \
; RUN:   | FileCheck %s --check-prefix=PTX
; RUN: %llc_nvptx %s -o - | FileCheck %s --check-prefix=STOCK

target triple = "nvptx64-nvidia-cuda"

declare void @use(ptr)

; CHECK-LABEL: define void @escapes(
; CHECK:       alloca [4 x double], align 16
; OFF-LABEL:   define void @escapes(
; OFF:         alloca [4 x double], align 8
; PTX-LABEL:   .func escapes(
; PTX:         st.local.v2.b64
; STOCK-LABEL: .func escapes(
; STOCK-NOT:   st.local.v2
; STOCK:       st.local.b64
define void @escapes(double %x, double %y) {
  %buf = alloca [4 x double], align 8
  %hi = getelementptr inbounds i8, ptr %buf, i64 8
  store double %x, ptr %buf, align 8
  store double %y, ptr %hi, align 8
  call void @use(ptr %buf)
  ret void
}

; CHECK-LABEL: define float @large(
; CHECK:       alloca [32 x float], align 16
define float @large(float %x, i32 %i) {
  %a = alloca [32 x float], align 4
  store float %x, ptr %a, align 4
  %p = getelementptr inbounds [32 x float], ptr %a, i64 0, i32 %i
  %v = load float, ptr %p, align 4
  ret float %v
}

; CHECK-LABEL: define float @small_indexed_by_data(
; CHECK:       alloca [8 x float], align 4
define float @small_indexed_by_data(float %x, i32 %i) {
  %a = alloca [8 x float], align 4
  store float %x, ptr %a, align 4
  %p = getelementptr inbounds [8 x float], ptr %a, i64 0, i32 %i
  %v = load float, ptr %p, align 4
  ret float %v
}

; CHECK-LABEL: define float @walked_in_a_loop(
; CHECK:       alloca [12 x float], align 16
define float @walked_in_a_loop(float %x, i32 %n) {
entry:
  %a = alloca [12 x float], align 4
  br label %loop
loop:
  %j = phi i32 [ 0, %entry ], [ %next, %loop ]
  %p = getelementptr inbounds [12 x float], ptr %a, i64 0, i32 %j
  store float %x, ptr %p, align 4
  %next = add nuw nsw i32 %j, 1
  %more = icmp slt i32 %next, %n
  br i1 %more, label %loop, label %done
done:
  %v = load float, ptr %a, align 4
  ret float %v
}

; CHECK-LABEL: define void @tiny(
; CHECK:       alloca [3 x float], align 4
define void @tiny(float %x) {
  %a = alloca [3 x float], align 4
  store float %x, ptr %a, align 4
  call void @use(ptr %a)
  ret void
}

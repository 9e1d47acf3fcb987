; nvregalloc-promote-locals-copies (part of nvregalloc-promote-locals,
; before the inliner): a small local copied only whole, by memcpy, as clang
; makes `float4 t = *a; *a = *b; *b = t;`, is copied by a load and a store of
; its own type instead, which SROA then promotes (it promotes nothing a load
; or store does not type, and InstCombine types only copies of up to 8
; bytes). A type with padding, which a typed copy would not keep, a local
; also used otherwise, and one over -nvregalloc-promote-max-copied-bytes
; stay as they are.
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-copies %s -S -o - | FileCheck %s
; RUN: %opt_plugin -passes='nvregalloc-promote-locals-copies,sroa' %s -S -o - | FileCheck %s --check-prefix=SROA
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-copies -nvregalloc-promote-max-copied-bytes=8 %s -S -o - \
; RUN:   | FileCheck %s --check-prefix=SMALL

target triple = "nvptx64-nvidia-cuda"

%struct.float4 = type { float, float, float, float }
%struct.padded = type { i8, i32 }

; CHECK-LABEL: define void @swap(
; CHECK:       %[[A:.*]] = load %struct.float4, ptr %a, align 16
; CHECK-NEXT:  store %struct.float4 %[[A]], ptr %t, align 16
; CHECK:       %[[T:.*]] = load %struct.float4, ptr %t, align 16
; CHECK-NEXT:  store %struct.float4 %[[T]], ptr %b, align 16
; CHECK-NOT:   memcpy
; SROA-LABEL:  define void @swap(
; SROA-NOT:    alloca
; SROA-LABEL:  define void @padded(
; SMALL-LABEL: define void @swap(
; SMALL:       call void @llvm.memcpy
define void @swap(ptr %a, ptr %b) {
  %t = alloca %struct.float4, align 16
  call void @llvm.lifetime.start.p0(ptr %t)
  call void @llvm.memcpy.p0.p0.i64(ptr align 16 %t, ptr align 16 %a, i64 16, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr align 16 %a, ptr align 16 %b, i64 16, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr align 16 %b, ptr align 16 %t, i64 16, i1 false)
  call void @llvm.lifetime.end.p0(ptr %t)
  ret void
}

; CHECK-LABEL: define void @padded(
; CHECK:       call void @llvm.memcpy
define void @padded(ptr %a, ptr %b) {
  %t = alloca %struct.padded, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %t, ptr align 4 %a, i64 8, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %b, ptr align 4 %t, i64 8, i1 false)
  ret void
}

; CHECK-LABEL: define float @also_loaded(
; CHECK:       call void @llvm.memcpy
define float @also_loaded(ptr %a) {
  %t = alloca %struct.float4, align 16
  call void @llvm.memcpy.p0.p0.i64(ptr align 16 %t, ptr align 16 %a, i64 16, i1 false)
  %x = load float, ptr %t, align 16
  ret float %x
}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare void @llvm.lifetime.start.p0(ptr)
declare void @llvm.lifetime.end.p0(ptr)

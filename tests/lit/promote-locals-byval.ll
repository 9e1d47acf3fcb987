; nvregalloc-promote-locals-byval (part of nvregalloc-promote-locals, last
; in the middle end): a store into a kernel's by-value parameter that no
; load of the parameter can read is deleted, since NVPTX copies a written
; parameter into local memory (CUB's GridEvenShare, filled in by the kernel,
; kept a 32-byte frame). A store some load may read stays, and so does every
; store into a parameter whose address goes anywhere else.
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-byval %s -S -o - | FileCheck %s
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-byval -nvregalloc-promote-locals=false %s -S -o - \
; RUN:   | FileCheck %s --check-prefix=OFF
; With the pass, the PTX has no local frame; without it, stock's has one.
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-byval %s | %llc_nvptx -o - | FileCheck %s --check-prefix=PTX
; RUN: %llc_nvptx %s -o - | FileCheck %s --check-prefix=STOCK

target triple = "nvptx64-nvidia-cuda"

%struct.Share = type { i64, i64, i32, i32 }

; CHECK-LABEL: define ptx_kernel void @dead(
; CHECK-NOT:   store i32 {{.*}}, ptr %count
; CHECK:       store i64 %begin, ptr %out
; OFF-LABEL:   define ptx_kernel void @dead(
; OFF:         store i32 %n, ptr %count
; PTX-LABEL:   .entry dead(
; PTX-NOT:     __local_depot
; PTX:         ret;
; STOCK-LABEL: .entry dead(
; STOCK:       __local_depot
define ptx_kernel void @dead(ptr byval(%struct.Share) align 8 %s, ptr %out, i32 %n) {
  %count = getelementptr inbounds i8, ptr %s, i64 16
  store i32 %n, ptr %count, align 4
  %begin = load i64, ptr %s, align 8
  store i64 %begin, ptr %out, align 8
  ret void
}

; CHECK-LABEL: define ptx_kernel void @read_back(
; CHECK:       store i32 %n, ptr %count
define ptx_kernel void @read_back(ptr byval(%struct.Share) align 8 %s, ptr %out, i32 %n) {
  %count = getelementptr inbounds i8, ptr %s, i64 16
  store i32 %n, ptr %count, align 4
  %again = load i32, ptr %count, align 4
  store i32 %again, ptr %out, align 4
  ret void
}

declare void @use(ptr)

; CHECK-LABEL: define ptx_kernel void @escapes(
; CHECK:       store i32 %n, ptr %count
define ptx_kernel void @escapes(ptr byval(%struct.Share) align 8 %s, i32 %n) {
  %count = getelementptr inbounds i8, ptr %s, i64 16
  store i32 %n, ptr %count, align 4
  call void @use(ptr %s)
  ret void
}

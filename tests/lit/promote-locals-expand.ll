; nvregalloc-promote-locals-expand (part of nvregalloc-promote-locals, last
; in the middle end): a memset or memcpy of a constant length over the 64
; bytes NVPTX lowers inline becomes loads and stores as wide as the
; pointers' alignment; over -nvregalloc-promote-max-expanded-bytes (512), a
; loop of them that ptxas leaves rolled. NVPTX makes either a loop of byte
; accesses (HeCBench's romberg zeroes a 136-byte array so: ptxas unrolls it
; into 136 STL.U8, where nvcc makes 17 STL.64). A shorter one at 16-byte
; alignment takes 16-byte accesses, where NVPTX's are 8 bytes at most.
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-expand %s -S -o - | FileCheck %s
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-expand -nvregalloc-promote-locals=false %s -S -o - \
; RUN:   | FileCheck %s --check-prefix=OFF
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-expand -nvregalloc-promote-max-expanded-bytes=128 %s -S -o - \
; RUN:   | FileCheck %s --check-prefix=LIMIT
; The PTX with the pass, and stock's, on both sides of NVPTX's line.
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-expand %s | %llc_nvptx -o - | FileCheck %s --check-prefix=PTX
; RUN: %llc_nvptx %s -o - | FileCheck %s --check-prefix=STOCK
; Remarks name the copy and its accesses.
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-expand -pass-remarks=nvregalloc-promote-locals-expand \
; RUN:   %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

target triple = "nvptx64-nvidia-cuda"

declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

; 136 bytes at 16-byte alignment: eight 16-byte stores and one of 8.
; CHECK-LABEL: define ptx_kernel void @zeroed(
; CHECK-NOT:   llvm.memset
; CHECK:       store <4 x i32> zeroinitializer, ptr %a, align 16
; CHECK-COUNT-7: store <4 x i32> zeroinitializer, ptr %{{.*}}, align 16
; CHECK-NEXT:  [[TAIL:%.*]] = getelementptr inbounds i8, ptr %a, i64 128
; CHECK-NEXT:  store i64 0, ptr [[TAIL]], align 16
; CHECK-NEXT:  %p = getelementptr
; OFF-LABEL:   define ptx_kernel void @zeroed(
; OFF:         call void @llvm.memset.p0.i64(ptr align 16 %a, i8 0, i64 136, i1 false)
; LIMIT-LABEL: define ptx_kernel void @zeroed(
; LIMIT-NOT:   llvm.memset
; LIMIT:       store <4 x i32> zeroinitializer, ptr %{{.*}}, align 16
; LIMIT:       br i1 %{{.*}}, !llvm.loop [[ROLLED:![0-9]+]]
; LIMIT:       store i64 0, ptr %{{.*}}, align 16
; LIMIT:       [[ROLLED]] = distinct !{[[ROLLED]], [[DISABLE:![0-9]+]]}
; LIMIT:       [[DISABLE]] = !{!"llvm.loop.unroll.disable"}
; PTX-LABEL:   .entry zeroed(
; PTX-NOT:     st.local.b8
; PTX-COUNT-8: st.local.v4.b32 {{.*}}, {0, 0, 0, 0};
; PTX:         st.local.b64 {{.*}}, 0;
; PTX-NOT:     st.local.b8
; PTX:         ret;
; STOCK-LABEL: .entry zeroed(
; STOCK:       st.local.b8 {{.*}}, 0;
; STOCK:       bra
; REMARK:      remark: {{.*}}function zeroed: memset of 136 bytes: 9 stores of up to 16 bytes, where NVPTX's would be narrower
; REMARK:      remark: {{.*}}function copied: memcpy of 80 bytes: 5 loads and as many stores of up to 16 bytes, where NVPTX's would be narrower
define ptx_kernel void @zeroed(ptr %out, i32 %i, float %x) {
  %a = alloca [34 x float], align 16
  call void @llvm.memset.p0.i64(ptr align 16 %a, i8 0, i64 136, i1 false)
  %p = getelementptr inbounds [34 x float], ptr %a, i64 0, i32 %i
  store float %x, ptr %p, align 4
  %q = getelementptr inbounds [34 x float], ptr %a, i64 0, i32 3
  %v = load float, ptr %q, align 4
  store float %v, ptr %out, align 4
  ret void
}

; A byte other than zero fills every byte of each wider store; the alloca's
; own alignment counts where the memset states less.
; CHECK-LABEL: define ptx_kernel void @filled(
; CHECK-NOT:   llvm.memset
; CHECK-COUNT-18: store i64 -1, ptr %{{.*}}, align 8
; CHECK-NEXT:  %p = getelementptr
define ptx_kernel void @filled(ptr %out, i32 %i) {
  %a = alloca [18 x i64], align 8
  call void @llvm.memset.p0.i64(ptr align 4 %a, i8 -1, i64 144, i1 false)
  %p = getelementptr inbounds [18 x i64], ptr %a, i64 0, i32 %i
  %v = load i64, ptr %p, align 8
  store i64 %v, ptr %out, align 8
  ret void
}

; A memcpy from global memory into a local: a load and a store per 16 bytes.
; CHECK-LABEL: define ptx_kernel void @copied(
; CHECK-NOT:   llvm.memcpy
; CHECK:       [[V:%.*]] = load <4 x i32>, ptr %in, align 16
; CHECK-NEXT:  store <4 x i32> [[V]], ptr %a, align 16
; CHECK-COUNT-4: load <4 x i32>
; CHECK-NOT:   load <4 x i32>
; CHECK:       ret void
; PTX-LABEL:   .entry copied(
; PTX-NOT:     ld.global.b8
; PTX-COUNT-5: ld.global.v4.b32
; PTX-NOT:     st.local.b8
; PTX:         ret;
; STOCK-LABEL: .entry copied(
; STOCK:       st.local.b8
define ptx_kernel void @copied(ptr align 16 %in, ptr %out, i32 %i) {
  %a = alloca [20 x float], align 16
  call void @llvm.memcpy.p0.p0.i64(ptr align 16 %a, ptr align 16 %in, i64 80, i1 false)
  %p = getelementptr inbounds [20 x float], ptr %a, i64 0, i32 %i
  %v = load float, ptr %p, align 4
  store float %v, ptr %out, align 4
  ret void
}

; 64 bytes: NVPTX stores them inline (no loop in stock's PTX), 8 bytes at a
; time, so at 8-byte alignment the pass leaves them; 65 bytes already make
; stock's loop.
; CHECK-LABEL: define ptx_kernel void @at_the_line(
; CHECK:       call void @llvm.memset.p0.i64(ptr align 8 %a, i8 0, i64 64, i1 false)
; CHECK-NOT:   llvm.memset
; CHECK:       ret void
; STOCK-LABEL: .entry at_the_line(
; STOCK-NOT:   st.local.b8
; STOCK:       ld.local.b32
; STOCK:       st.local.b8
; STOCK:       bra
define ptx_kernel void @at_the_line(ptr %out, i32 %i) {
  %a = alloca [16 x float], align 8
  %b = alloca [17 x float], align 16
  call void @llvm.memset.p0.i64(ptr align 8 %a, i8 0, i64 64, i1 false)
  %p = getelementptr inbounds [16 x float], ptr %a, i64 0, i32 %i
  %v = load float, ptr %p, align 4
  store float %v, ptr %out, align 4
  call void @llvm.memset.p0.i64(ptr align 16 %b, i8 0, i64 65, i1 false)
  %q = getelementptr inbounds [17 x float], ptr %b, i64 0, i32 %i
  %w = load float, ptr %q, align 4
  store float %w, ptr %out, align 4
  ret void
}

; Left to NVPTX: byte-aligned (the accesses would be bytes anyway),
; volatile, and a value known only at run time.
; CHECK-LABEL: define ptx_kernel void @left(
; CHECK:       call void @llvm.memset.p0.i64(ptr align 1 %a, i8 0, i64 100, i1 false)
; CHECK:       call void @llvm.memset.p0.i64(ptr align 16 %b, i8 0, i64 256, i1 true)
; CHECK:       call void @llvm.memset.p0.i64(ptr align 16 %b, i8 %byte, i64 256, i1 false)
define ptx_kernel void @left(ptr align 16 %out, i32 %i, i8 %byte) {
  %a = alloca [100 x i8], align 1
  %b = alloca [64 x float], align 16
  call void @llvm.memset.p0.i64(ptr align 1 %a, i8 0, i64 100, i1 false)
  call void @llvm.memset.p0.i64(ptr align 16 %b, i8 0, i64 256, i1 true)
  call void @llvm.memset.p0.i64(ptr align 16 %b, i8 %byte, i64 256, i1 false)
  %p = getelementptr inbounds [100 x i8], ptr %a, i64 0, i32 %i
  %v = load i8, ptr %p, align 1
  store i8 %v, ptr %out, align 1
  %q = getelementptr inbounds [64 x float], ptr %b, i64 0, i32 %i
  %w = load float, ptr %q, align 4
  store float %w, ptr %out, align 4
  ret void
}

; Over -nvregalloc-promote-max-expanded-bytes (512): straight-line, ptxas
; would issue a long copy's loads ahead of its stores, at a cost in registers
; (a 1,024-byte struct copied into a local: 31 -> 38). A loop of 16-byte
; accesses instead, left rolled: NVPTX's loop, but one pass per 16 bytes.
; CHECK-LABEL: define ptx_kernel void @too_long(
; CHECK-NOT:   llvm.memcpy
; CHECK:       [[V:%.*]] = load <4 x i32>, ptr %{{.*}}, align 16
; CHECK-NEXT:  [[AT:%.*]] = getelementptr inbounds i8, ptr %a,
; CHECK-NEXT:  store <4 x i32> [[V]], ptr [[AT]], align 16
; CHECK:       icmp eq i64 %{{.*}}, 64
; PTX-LABEL:   .entry too_long(
; PTX:         .pragma "nounroll";
; PTX:         ld.global.v4.b32
; PTX:         st.local.v4.b32
; PTX-NOT:     st.local.b8
; PTX:         ret;
; REMARK:      remark: {{.*}}function too_long: memcpy of 1024 bytes: 64 loads and as many stores of up to 16 bytes, in a loop left rolled, where NVPTX's would be narrower
define ptx_kernel void @too_long(ptr align 16 %in, ptr %out, i32 %i) {
  %a = alloca [256 x float], align 16
  call void @llvm.memcpy.p0.p0.i64(ptr align 16 %a, ptr align 16 %in, i64 1024, i1 false)
  %p = getelementptr inbounds [256 x float], ptr %a, i64 0, i32 %i
  %v = load float, ptr %p, align 4
  store float %v, ptr %out, align 4
  ret void
}

; Not only locals: a float4 assigned through pointers, here in shared memory
; (HeCBench's shmembench swaps them so), is a 16-byte memcpy that NVPTX makes
; two 8-byte loads and stores, where nvcc makes one of 16 bytes; and a
; 256-byte memset of global memory, which NVPTX makes a byte loop. A 16-byte
; copy that may reach global memory is left to NVPTX.
; CHECK-LABEL: define void @not_local(
; CHECK-NOT:   llvm.mem
; CHECK:       [[V:%.*]] = load <4 x i32>, ptr addrspace(3) %b, align 16
; CHECK-NEXT:  store <4 x i32> [[V]], ptr addrspace(3) %a, align 16
; CHECK-COUNT-16: store <4 x i32> zeroinitializer, ptr %{{.*}}, align 16
; CHECK-NEXT:  call void @llvm.memcpy.p0.p3.i64(ptr align 16 %out, ptr addrspace(3) align 16 %b, i64 16, i1 false)
; CHECK-NEXT:  ret void
; PTX-LABEL:   .func not_local(
; PTX:         ld.shared.v4.b32
; PTX-NEXT:    st.shared.v4.b32
; PTX-NOT:     ld.shared
; PTX-COUNT-16: st.v4.b32
; PTX-NOT:     st.b8
; PTX:         ld.shared.b64
; PTX:         ret;
; STOCK-LABEL: .func not_local(
; STOCK:       ld.shared.b64
; STOCK:       ld.shared.b64
; STOCK:       st.b8
; REMARK:      remark: {{.*}}function not_local: memcpy of 16 bytes: 1 loads and as many stores of up to 16 bytes, where NVPTX's would be narrower
declare void @llvm.memcpy.p3.p3.i64(ptr addrspace(3), ptr addrspace(3), i64, i1)
declare void @llvm.memcpy.p0.p3.i64(ptr, ptr addrspace(3), i64, i1)
define void @not_local(ptr addrspace(3) align 16 %a, ptr addrspace(3) align 16 %b, ptr align 16 %out) {
  call void @llvm.memcpy.p3.p3.i64(ptr addrspace(3) align 16 %a, ptr addrspace(3) align 16 %b, i64 16, i1 false)
  call void @llvm.memset.p0.i64(ptr align 16 %out, i8 0, i64 256, i1 false)
  call void @llvm.memcpy.p0.p3.i64(ptr align 16 %out, ptr addrspace(3) align 16 %b, i64 16, i1 false)
  ret void
}

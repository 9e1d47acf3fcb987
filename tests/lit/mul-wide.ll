; nvregalloc-mul-wide (in llc, the last IR pass before instruction
; selection; off by default, on for the functions given widen=block, or all
; with -nvregalloc-widen-in-block): an index widened in one block and scaled
; only in others gets a copy of its widening in each, where instruction
; selection folds the two into mul.wide. Stock widens once (cvt) and shifts
; or multiplies the 64-bit value in the later block, which ptxas computes in
; both halves.
; RUN: %llc_plugin -nvregalloc-widen-in-block %s -o - | FileCheck %s
; RUN: %llc_nvptx %s -o - | FileCheck %s --check-prefix=STOCK
; RUN: %llc_plugin %s -o - | FileCheck %s --check-prefix=STOCK
; Per function: widen=block takes scaled in; widen=off keeps it out whatever
; the command line says.
; RUN: printf 'scaled widen=block\n' > %t.block.nvra
; RUN: %llc_plugin -nvregalloc-function-options=%t.block.nvra %s -o - | FileCheck %s
; RUN: printf 'scaled widen=off\n' > %t.off.nvra
; RUN: %llc_plugin -nvregalloc-widen-in-block -nvregalloc-function-options=%t.off.nvra %s -o - \
; RUN:   | FileCheck %s --check-prefix=STOCK
; The IR it hands to instruction selection: a copy per block that scales.
; RUN: %llc_plugin -nvregalloc-widen-in-block -stop-after=nvregalloc-mul-wide %s -o - \
; RUN:   | FileCheck %s --check-prefix=IR
; RUN: %llc_plugin -nvregalloc-widen-in-block -pass-remarks=nvregalloc-mul-wide %s -o /dev/null 2>&1 \
; RUN:   | FileCheck %s --check-prefix=REMARK

target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

; A block index (zext) and a parameter (sext), first used in the entry
; block, then scaled again after a branch: by a GEP over doubles, a multiply
; and a shift. (The volatile stores keep SpeculativeExecution from hoisting
; the later block's addresses into the entry block.)
; CHECK-LABEL: .entry scaled(
; CHECK:       @%p{{[0-9]+}} bra
; CHECK-NOT:   cvt.{{[su]}}64.{{[su]}}32
; CHECK-NOT:   .lo.s64
; CHECK-NOT:   shl.b64
; CHECK:       mul.wide.u32 {{.*}}, 24;
; CHECK:       mul.wide.s32 {{.*}}, 2624;
; CHECK:       mul.wide.s32 {{.*}}, 64;
; CHECK:       ret;
; STOCK-LABEL: .entry scaled(
; STOCK:       @%p{{[0-9]+}} bra
; STOCK:       cvt.u64.u32 [[B:%rd[0-9]+]],
; STOCK:       cvt.s64.s32 [[R:%rd[0-9]+]],
; STOCK:       mad.lo.s64 {{.*}}, [[B]], 24,
; STOCK:       mad.lo.s64 {{.*}}, [[R]], 2624,
; STOCK:       shl.b64 {{.*}}, [[R]], 6;
; IR-LABEL:    define ptx_kernel void @scaled(
; IR:          {{^}}  late:
; IR:          [[B:%.*]] = zext nneg i32 %block to i64
; IR-NEXT:     mul i64 [[B]], 24
; IR:          [[R:%.*]] = sext i32 %row to i64
; IR-NEXT:     mul nsw i64 [[R]], 2624
; IR-NOT:      sext
; IR:          shl nsw i64 [[R]], 6
; REMARK:      function scaled: 2 widenings copied into the blocks that scale them
define ptx_kernel void @scaled(ptr addrspace(1) %out, i32 %row, i1 %late.too) {
  %block = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %b64 = zext nneg i32 %block to i64
  %r64 = sext i32 %row to i64
  %first = getelementptr inbounds double, ptr addrspace(1) %out, i64 %b64
  store double 1.0, ptr addrspace(1) %first, align 8
  %rowp = getelementptr inbounds double, ptr addrspace(1) %out, i64 %r64
  store double 1.0, ptr addrspace(1) %rowp, align 8
  br i1 %late.too, label %late, label %done

late:
  store volatile double 0.0, ptr addrspace(1) %out, align 8
  store volatile double 0.0, ptr addrspace(1) %out, align 8
  store volatile double 0.0, ptr addrspace(1) %out, align 8
  store volatile double 0.0, ptr addrspace(1) %out, align 8
  store volatile double 0.0, ptr addrspace(1) %out, align 8
  store volatile double 0.0, ptr addrspace(1) %out, align 8
  %second = getelementptr inbounds [4 x double], ptr addrspace(1) %out, i64 %b64, i64 1
  store double 2.0, ptr addrspace(1) %second, align 8
  %scaled = mul nsw i64 %r64, 2624
  %third = getelementptr inbounds i8, ptr addrspace(1) %out, i64 %scaled
  store double 3.0, ptr addrspace(1) %third, align 8
  %shifted = shl nsw i64 %r64, 6
  %fourth = getelementptr inbounds i8, ptr addrspace(1) %out, i64 %shifted
  store double 4.0, ptr addrspace(1) %fourth, align 8
  br label %done

done:
  ret void
}

; No copy where selection would not fold a use in another block: a signed
; value shifted by 31 (2^31 is no signed 32-bit multiplier), or added rather
; than scaled. Its 64-bit value stays live across blocks for that use, so a
; copy for the use it could fold (the shift by 3) would only keep the 32-bit
; one live beside it.
; CHECK-LABEL: .entry unscaled(
; CHECK:       cvt.s64.s32
; CHECK-DAG:   shl.b64 {{.*}}, 31;
; CHECK-DAG:   shl.b64 {{.*}}, 3;
; IR-LABEL:    define ptx_kernel void @unscaled(
; IR:          sext i32 %row to i64
; IR-NOT:      sext
; IR:          ret void
; REMARK-NOT:  function unscaled
define ptx_kernel void @unscaled(ptr addrspace(1) %out, i32 %row, i1 %late.too) {
  %r64 = sext i32 %row to i64
  %rowp = getelementptr inbounds double, ptr addrspace(1) %out, i64 %r64
  store double 1.0, ptr addrspace(1) %rowp, align 8
  br i1 %late.too, label %late, label %done

late:
  store volatile double 0.0, ptr addrspace(1) %out, align 8
  store volatile double 0.0, ptr addrspace(1) %out, align 8
  store volatile double 0.0, ptr addrspace(1) %out, align 8
  store volatile double 0.0, ptr addrspace(1) %out, align 8
  store volatile double 0.0, ptr addrspace(1) %out, align 8
  store volatile double 0.0, ptr addrspace(1) %out, align 8
  %shifted = shl i64 %r64, 31
  %far = getelementptr inbounds i8, ptr addrspace(1) %out, i64 %shifted
  store double 2.0, ptr addrspace(1) %far, align 8
  %plus = getelementptr inbounds i8, ptr addrspace(1) %out, i64 %r64
  store double 3.0, ptr addrspace(1) %plus, align 8
  %foldable = shl i64 %r64, 3
  %near = getelementptr inbounds i8, ptr addrspace(1) %out, i64 %foldable
  store double 4.0, ptr addrspace(1) %near, align 8
  br label %done

done:
  ret void
}

//===- TypedCopiesPass.cpp - nvregalloc-promote-locals-copies -----------===//
//
// Part of nvregalloc-promote-locals (PromoteLocalsPass.cpp), for NVPTX only,
// off with it. A small local that is only ever copied whole by
// memcpy/memmove (`float4 t = *a; *a = *b; *b = t;` becomes a 16-byte
// alloca between two memcpys). SROA promotes only what a load or store gives
// a type, and InstCombine turns only copies of up to 8 bytes into loads and
// stores, so the alloca stays. Each copy becomes a load and a store of the
// alloca's own type (one with no padding, which a typed copy would not
// keep), which SROA then promotes. It runs before the inliner, on each
// function, where the copies are made.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "PointerUses.h"
#include "RustBridge.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace nvregalloc {

static cl::opt<uint64_t> MaxCopiedBytes(
    "nvregalloc-promote-max-copied-bytes",
    cl::desc("Locals only copied whole by memcpy, of at most this many "
             "bytes, are copied by typed loads and stores instead"),
    cl::init(NVRA_PROMOTE_DEFAULT_MAX_COPIED_BYTES));
static ShowDefault MaxCopiedBytesDefault(MaxCopiedBytes);

namespace {
/// Whether a load and store of \p Ty copy all of its bytes: no padding.
bool copiesWhole(Type *Ty, const DataLayout &DL) {
  if (!Ty->isSized() || DL.getTypeStoreSize(Ty) != DL.getTypeAllocSize(Ty))
    return false;
  if (auto *Struct = dyn_cast<StructType>(Ty))
    return !DL.getStructLayout(Struct)->hasPadding() &&
           all_of(Struct->elements(),
                  [&](Type *E) { return copiesWhole(E, DL); });
  if (auto *Array = dyn_cast<ArrayType>(Ty))
    return copiesWhole(Array->getElementType(), DL);
  return Ty->isSingleValueType();
}

/// The whole-size copies into and out of \p Alloca, if that is all it is
/// used for (besides lifetime markers).
bool wholeCopies(AllocaInst &Alloca, uint64_t Bytes,
                 SmallVectorImpl<MemTransferInst *> &Copies) {
  bool OnlyCopies = walkPointerUses(Alloca, [&](const PointerUse &Use) {
    if (Use.What == PointerUse::Marker)
      return true;
    auto *Copy = dyn_cast<MemTransferInst>(Use.user());
    auto *Length = Copy ? dyn_cast<ConstantInt>(Copy->getLength()) : nullptr;
    if (!Length || !Use.Simple || Length->getZExtValue() != Bytes ||
        Copy->getRawDest() == Copy->getRawSource())
      return false;
    Copies.push_back(Copy);
    return true;
  });
  return OnlyCopies && !Copies.empty();
}
} // namespace

PreservedAnalyses TypedCopiesPass::run(Function &F,
                                       FunctionAnalysisManager &) {
  if (!promotesLocals(F))
    return PreservedAnalyses::all();
  const DataLayout &DL = F.getDataLayout();
  SmallVector<AllocaInst *, 8> Allocas;
  for (Instruction &I : instructions(F))
    if (auto *Alloca = dyn_cast<AllocaInst>(&I))
      Allocas.push_back(Alloca);
  bool Changed = false;
  for (AllocaInst *Alloca : Allocas) {
    Type *Ty = Alloca->getAllocatedType();
    std::optional<TypeSize> Size = Alloca->getAllocationSize(DL);
    SmallVector<MemTransferInst *, 4> Copies;
    if (!Size || Size->isScalable() || Size->getFixedValue() > MaxCopiedBytes ||
        !copiesWhole(Ty, DL) ||
        !wholeCopies(*Alloca, Size->getFixedValue(), Copies))
      continue;
    for (MemTransferInst *Copy : Copies) {
      IRBuilder<> Builder(Copy);
      LoadInst *Value = Builder.CreateAlignedLoad(
          Ty, Copy->getRawSource(), Copy->getSourceAlign().valueOrOne());
      Builder.CreateAlignedStore(Value, Copy->getRawDest(),
                                 Copy->getDestAlign().valueOrOne());
      Copy->eraseFromParent();
    }
    Changed = true;
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace nvregalloc

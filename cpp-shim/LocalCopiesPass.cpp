//===- LocalCopiesPass.cpp - two rewrites that free local memory -------===//
//
// Part of nvregalloc-promote-locals (PromoteLocalsPass.cpp), for NVPTX only,
// off with it. Two shapes clang leaves in local memory where nvcc does not:
// - nvregalloc-promote-locals-copies: a small local that is only ever
//   copied whole by memcpy/memmove (`float4 t = *a; *a = *b; *b = t;`
//   becomes a 16-byte alloca between two memcpys). SROA promotes only what
//   a load or store gives a type, and InstCombine turns only copies of up to
//   8 bytes into loads and stores, so the alloca stays. Each copy becomes a
//   load and a store of the alloca's own type (one with no padding, which a
//   typed copy would not keep), which SROA then promotes. It runs before the
//   inliner, on each function, where the copies are made.
// - nvregalloc-promote-locals-byval: stores into a kernel's by-value
//   parameter. NVPTX copies a parameter that is written to local memory
//   (the parameter space is read-only), so a store that nothing reads keeps
//   a local frame alive (CUB's GridEvenShare, filled in by the kernel, is
//   one). The parameter's memory dies when the kernel returns, so a store
//   no load of the parameter can read is dead; DSE does not delete stores to
//   a byval argument. It runs last in the middle end.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/CallingConv.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Operator.h"

using namespace llvm;

namespace nvregalloc {

static cl::opt<uint64_t> MaxCopiedBytes(
    "nvregalloc-promote-max-copied-bytes",
    cl::desc("Locals only copied whole by memcpy, of at most this many "
             "bytes, are copied by typed loads and stores instead"),
    cl::init(NVRA_PROMOTE_DEFAULT_MAX_COPIED_BYTES));

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
  for (User *U : Alloca.users()) {
    if (auto *Marker = dyn_cast<IntrinsicInst>(U);
        Marker && Marker->isLifetimeStartOrEnd())
      continue;
    auto *Copy = dyn_cast<MemTransferInst>(U);
    auto *Length = Copy ? dyn_cast<ConstantInt>(Copy->getLength()) : nullptr;
    if (!Length || Copy->isVolatile() || Length->getZExtValue() != Bytes ||
        Copy->getRawDest() == Copy->getRawSource())
      return false;
    Copies.push_back(Copy);
  }
  return !Copies.empty();
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

PreservedAnalyses DeadByvalStoresPass::run(Function &F,
                                           FunctionAnalysisManager &) {
  if (F.getCallingConv() != CallingConv::PTX_Kernel || !promotesLocals(F))
    return PreservedAnalyses::all();
  const DataLayout &DL = F.getDataLayout();
  bool Changed = false;
  for (Argument &Param : F.args()) {
    if (!Param.hasByValAttr())
      continue;
    // Every access at a constant offset, through constant GEPs only;
    // anything else may read the parameter, and it is left as it is.
    struct Access {
      Instruction *Inst;
      uint64_t Begin, End;
    };
    SmallVector<Access, 8> Loads, Stores;
    SmallVector<std::pair<Value *, uint64_t>, 8> Work{{&Param, 0}};
    bool Known = true;
    while (!Work.empty() && Known) {
      auto [Ptr, Offset] = Work.pop_back_val();
      for (User *U : Ptr->users()) {
        if (auto *GEP = dyn_cast<GEPOperator>(U)) {
          APInt More(DL.getIndexTypeSizeInBits(GEP->getType()), 0);
          if (!GEP->accumulateConstantOffset(DL, More) || More.isNegative()) {
            Known = false;
            break;
          }
          Work.push_back({GEP, Offset + More.getZExtValue()});
        } else if (auto *Load = dyn_cast<LoadInst>(U)) {
          Loads.push_back({Load, Offset,
                           Offset + DL.getTypeStoreSize(Load->getType())});
        } else if (auto *Store = dyn_cast<StoreInst>(U);
                   Store && Store->getPointerOperand() == Ptr &&
                   Store->isSimple()) {
          Type *Stored = Store->getValueOperand()->getType();
          Stores.push_back(
              {Store, Offset, Offset + DL.getTypeStoreSize(Stored)});
        } else {
          Known = false;
          break;
        }
      }
    }
    if (!Known)
      continue;
    for (const Access &Store : Stores) {
      bool Read = any_of(Loads, [&](const Access &Load) {
        return Load.Begin < Store.End && Store.Begin < Load.End;
      });
      if (!Read) {
        Store.Inst->eraseFromParent();
        Changed = true;
      }
    }
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace nvregalloc

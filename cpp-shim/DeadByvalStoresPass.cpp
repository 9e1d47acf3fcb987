//===- DeadByvalStoresPass.cpp - nvregalloc-promote-locals-byval --------===//
//
// Part of nvregalloc-promote-locals (PromoteLocalsPass.cpp), for NVPTX only,
// off with it. Stores into a kernel's by-value parameter. NVPTX copies a
// parameter that is written to local memory (the parameter space is
// read-only), so a store that nothing reads keeps a local frame alive (CUB's
// GridEvenShare, filled in by the kernel, is one). The parameter's memory
// dies when the kernel returns, so a store no load of the parameter can read
// is dead; DSE does not delete stores to a byval argument. It runs last in
// the middle end.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "PointerUses.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/CallingConv.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace nvregalloc {

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
    bool Known = walkPointerUses(Param, [&](const PointerUse &Use) {
      if (!Use.Offset || *Use.Offset < 0)
        return false;
      uint64_t Offset = *Use.Offset;
      if (Use.What == PointerUse::Derive)
        return true;
      if (auto *Load = dyn_cast<LoadInst>(Use.user())) {
        Loads.push_back(
            {Load, Offset, Offset + DL.getTypeStoreSize(Load->getType())});
        return true;
      }
      auto *Store = dyn_cast<StoreInst>(Use.user());
      if (!Store || Use.What != PointerUse::Write || !Use.Simple)
        return false;
      Type *Stored = Store->getValueOperand()->getType();
      Stores.push_back({Store, Offset, Offset + DL.getTypeStoreSize(Stored)});
      return true;
    });
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

//===- LocalForwardingPass.cpp - nvregalloc-promote-locals-forward ------===//
//
// Part of nvregalloc-promote-locals (PromoteLocalsPass.cpp), for NVPTX only,
// off with it. Loads of what a store put in a local earlier in the same
// block. GVN forwards a store to a load only within the 100 instructions
// memdep scans back (-memdep-block-scan-limit), and a fully unrolled loop
// over a matrix puts them further apart; EarlyCSE ran before the unroller
// and SROA does not take a local it cannot split. In one pass over each
// block, each load at a constant offset takes the value of the last store
// there of the same type, for locals whose address goes only to loads,
// stores, GEPs and memory intrinsics (which forget what they write over).
// It runs after the function's scalar optimizations; InstCombine then
// deletes an alloca left with stores only.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "PointerUses.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace nvregalloc {

namespace {
/// Each load, store and memory intrinsic that accesses one local, with the
/// constant byte offset it accesses at, if it has one.
using LocalAccesses = DenseMap<const Instruction *, std::optional<int64_t>>;

/// The accesses to \p Alloca; false if its address goes anywhere else (a
/// call, a store of the address, a volatile access), where an access this
/// pass does not see could read or write it.
bool collectAccesses(AllocaInst &Alloca, LocalAccesses &Out) {
  return walkPointerUses(Alloca, [&](const PointerUse &Use) {
    switch (Use.What) {
    case PointerUse::Derive:
    case PointerUse::Marker:
      return true;
    case PointerUse::Read:
    case PointerUse::Write:
      if (!Use.Simple)
        return false;
      // A memory intrinsic may write the local anywhere.
      Out[Use.user()] = isa<MemIntrinsic>(Use.user())
                            ? std::nullopt
                            : Use.Offset;
      return true;
    default:
      return false;
    }
  });
}

/// One pass over \p Block for one local: each load at a constant offset
/// that reads exactly what the last store there wrote (same offset, same
/// type, nothing written over it since) takes the stored value. Returns
/// the loads replaced.
unsigned forwardInBlock(BasicBlock &Block, const LocalAccesses &Accesses,
                        const DataLayout &DL) {
  struct Stored {
    int64_t Begin, End;
    Value *Written;
  };
  SmallVector<Stored, 16> Live; // disjoint byte ranges
  unsigned Forwarded = 0;
  for (Instruction &I : make_early_inc_range(Block)) {
    auto Found = Accesses.find(&I);
    if (Found == Accesses.end())
      continue;
    std::optional<int64_t> Offset = Found->second;
    if (auto *Store = dyn_cast<StoreInst>(&I)) {
      if (!Offset) {
        Live.clear();
        continue;
      }
      Value *Written = Store->getValueOperand();
      int64_t End = *Offset + DL.getTypeStoreSize(Written->getType());
      erase_if(Live, [&](const Stored &S) {
        return S.Begin < End && *Offset < S.End;
      });
      Live.push_back({*Offset, End, Written});
    } else if (auto *Load = dyn_cast<LoadInst>(&I)) {
      auto Hit = find_if(Live, [&](const Stored &S) {
        return Offset && S.Begin == *Offset &&
               S.Written->getType() == Load->getType();
      });
      if (Hit == Live.end())
        continue;
      Load->replaceAllUsesWith(Hit->Written);
      Load->eraseFromParent();
      ++Forwarded;
    } else {
      // A memory intrinsic may write the local anywhere (one that only
      // copies out of it is rare enough not to tell apart).
      Live.clear();
    }
  }
  return Forwarded;
}
} // namespace

PreservedAnalyses LocalForwardingPass::run(Function &F,
                                           FunctionAnalysisManager &) {
  if (!promotesLocals(F))
    return PreservedAnalyses::all();
  const DataLayout &DL = F.getDataLayout();
  SmallVector<AllocaInst *, 8> Allocas;
  for (Instruction &I : F.getEntryBlock())
    if (auto *Alloca = dyn_cast<AllocaInst>(&I))
      Allocas.push_back(Alloca);
  unsigned Forwarded = 0;
  for (AllocaInst *Alloca : Allocas) {
    LocalAccesses Accesses;
    if (!collectAccesses(*Alloca, Accesses))
      continue;
    unsigned Here = 0;
    for (BasicBlock &Block : F)
      Here += forwardInBlock(Block, Accesses, DL);
    if (Here == 0)
      continue;
    Forwarded += Here;
    F.getContext().diagnose(
        OptimizationRemark(LocalForwardingPassArg, "ForwardLocal", Alloca)
        << "function " << F.getName() << ": " << ore::NV("Loads", Here)
        << " loads from a local take the value stored before them");
  }
  if (Forwarded == 0)
    return PreservedAnalyses::all();
  PreservedAnalyses Kept;
  Kept.preserveSet<CFGAnalyses>();
  return Kept;
}

} // namespace nvregalloc

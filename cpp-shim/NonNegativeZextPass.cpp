//===- NonNegativeZextPass.cpp - nvregalloc-promote-locals-zext ----------===//
//
// Part of nvregalloc-promote-locals (PromoteLocalsPass.cpp), for NVPTX only,
// off with it; in llc's IR pipeline, right after NaryReassociate and before
// the EarlyCSE that follows it. NaryReassociate rebuilds `&a[zext(i + j)]`
// as `&a[i] + sext(j)` where `&a[i]` dominates, so a pointer that clang (and
// InstCombine) indexed with `zext nneg j` elsewhere is now computed twice:
// once from `sext j`, once from `zext j`. The two are equal, as j is
// non-negative, but EarlyCSE cannot see it, and ptxas keeps both chains of
// addresses (HeCBench's shmembench: six shared-memory addresses computed
// twice, 38 registers and 48 warps once its float4 swaps are 16-byte copies,
// where nvcc has 32 and 64). A sign extension of a value known non-negative
// is made the zero extension InstCombine would make of it, which EarlyCSE
// then merges, where a zero extension of the same value is there to merge
// with. No choice with a trade in it: the value is the same, and the
// addresses computed twice become one.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/SimplifyQuery.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Pass.h"

using namespace llvm;

namespace nvregalloc {

namespace {
class NonNegativeZextPass : public FunctionPass {
public:
  static char ID;
  static constexpr char Description[] =
      "nvregalloc: sign extensions of non-negative values as zero "
      "extensions";
  NonNegativeZextPass() : FunctionPass(ID) {}
  StringRef getPassName() const override { return Description; }
  void getAnalysisUsage(AnalysisUsage &AU) const override {
    AU.addRequired<AssumptionCacheTracker>();
    AU.addRequired<DominatorTreeWrapperPass>();
    AU.setPreservesCFG();
  }
  bool runOnFunction(Function &F) override {
    if (skipFunction(F) || !promotesLocals(F))
      return false;
    const DataLayout &DL = F.getDataLayout();
    DominatorTree &DT = getAnalysis<DominatorTreeWrapperPass>().getDomTree();
    AssumptionCache &AC =
        getAnalysis<AssumptionCacheTracker>().getAssumptionCache(F);
    // The values some zero extension widens already: only a sign extension
    // of one of them has an equal to merge with. Any other, made a zero
    // extension, would change nothing but the PTX ptxas allocates from (a
    // stream-compaction kernel: 48 registers so, 54 with two sign
    // extensions made zero extensions, a warp step).
    SmallPtrSet<const Value *, 16> ZeroExtended;
    for (Instruction &I : instructions(F))
      if (isa<ZExtInst>(I))
        ZeroExtended.insert(I.getOperand(0));
    unsigned Made = 0;
    for (Instruction &I : make_early_inc_range(instructions(F))) {
      auto *SExt = dyn_cast<SExtInst>(&I);
      if (!SExt || !ZeroExtended.contains(SExt->getOperand(0)) ||
          !isKnownNonNegative(SExt->getOperand(0),
                              SimplifyQuery(DL, &DT, &AC, SExt)))
        continue;
      auto *ZExt = new ZExtInst(SExt->getOperand(0), SExt->getType(), "",
                                SExt->getIterator());
      ZExt->setNonNeg();
      ZExt->takeName(SExt);
      ZExt->setDebugLoc(SExt->getDebugLoc());
      SExt->replaceAllUsesWith(ZExt);
      SExt->eraseFromParent();
      ++Made;
    }
    if (Made)
      F.getContext().diagnose(
          OptimizationRemark(NonNegativeZextPassArg, "NonNegativeZext", &F)
          << "function " << F.getName() << ": " << ore::NV("Zexts", Made)
          << " sign extensions of non-negative values made zero extensions");
    return Made != 0;
  }
};
} // namespace

char NonNegativeZextPass::ID = 0;
const void *const NonNegativeZextPassID = &NonNegativeZextPass::ID;
static RegisterPass<NonNegativeZextPass>
    Registration(NonNegativeZextPassArg, NonNegativeZextPass::Description);

} // namespace nvregalloc

//===- LocalAlignPass.cpp - nvregalloc-promote-locals-align -------------===//
//
// Part of nvregalloc-promote-locals (PromoteLocalsPass.cpp), for NVPTX only,
// off with it. Last in the middle end, what is still an alloca lives in
// local memory. LLVM aligns it to its type (8 for a double array), so
// NVPTX's load-store vectorizer cannot join two neighbouring accesses into
// one 16-byte access as nvcc does. Each is reported with its size,
// alignment, whether its address goes to a call and whether a loop walks
// it; the core picks its alignment (promote::local_alignment), and LLVM's
// InferAlignment, run after it, carries that to the loads and stores.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "PointerUses.h"
#include "RustBridge.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace nvregalloc {
namespace {

/// Whether \p Alloca's address goes to a call (not a memory intrinsic or a
/// lifetime marker), is stored or turned into an integer: it then stays in
/// memory whatever ptxas does.
bool addressEscapes(AllocaInst &Alloca) {
  return !walkPointerUses(Alloca, [](const PointerUse &Use) {
    return Use.What != PointerUse::Escape || isa<ICmpInst>(Use.user());
  });
}

/// The allocas of \p F some access to which is at an offset that varies in
/// a loop (an add recurrence, as ScalarEvolution sees it).
SmallPtrSet<const AllocaInst *, 8> walkedInLoops(Function &F,
                                                 ScalarEvolution &SE) {
  SmallPtrSet<const AllocaInst *, 8> Walked;
  for (const Instruction &I : instructions(F))
    for (const Value *Ptr : addresses(I)) {
      const auto *Alloca = dyn_cast<AllocaInst>(getUnderlyingObject(Ptr));
      if (!Alloca || Walked.contains(Alloca))
        continue;
      if (variesInLoop(Ptr, *Alloca, SE))
        Walked.insert(Alloca);
    }
  return Walked;
}

} // namespace

PreservedAnalyses PromoteLocalsAlignPass::run(Function &F,
                                              FunctionAnalysisManager &FAM) {
  if (!promotesLocals(F))
    return PreservedAnalyses::all();
  SmallPtrSet<const AllocaInst *, 8> Walked =
      walkedInLoops(F, FAM.getResult<ScalarEvolutionAnalysis>(F));
  NvraPromoteLimits Limits = promoteLimits(F);
  for (Instruction &I : instructions(F)) {
    auto *Alloca = dyn_cast<AllocaInst>(&I);
    uint64_t Bytes = 0;
    if (!Alloca || !localArray(Alloca, F, Bytes))
      continue;
    NvraLocalSlot Slot{};
    Slot.bytes = Bytes;
    Slot.align = Alloca->getAlign().value();
    Slot.address_escapes = addressEscapes(*Alloca);
    Slot.varies_in_loop = Walked.contains(Alloca);
    uint64_t Wanted = nvra_local_alignment(NVRA_ABI_VERSION, &Limits, &Slot);
    if (Wanted <= Slot.align || !isPowerOf2_64(Wanted))
      continue;
    Alloca->setAlignment(Align(Wanted));
    F.getContext().diagnose(
        OptimizationRemark(AlignPassArg, "AlignLocal", Alloca)
        << "function " << F.getName() << ": local of "
        << ore::NV("Bytes", Bytes) << " bytes aligned to "
        << ore::NV("Align", Wanted) << " (was "
        << ore::NV("Was", Slot.align) << ") for 16-byte accesses");
  }
  // Only alignments change, which no analysis reads.
  return PreservedAnalyses::all();
}

} // namespace nvregalloc

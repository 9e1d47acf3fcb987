//===- LocalLoopsLatePass.cpp - nvregalloc-promote-locals-loops-late -----===//
//
// Part of nvregalloc-promote-locals (PromoteLocalsPass.cpp), for NVPTX only,
// off with it. nvregalloc-promote-locals-loops plans some full unrolls for
// late (the core's promote::nest: loops within what LLVM's unrollers take by
// themselves once the body has simplified), and marks those loops with
// nvregalloc.loop.unroll.late rather than llvm.loop.unroll.full, so that
// the full unroller right after the plan decides by its own cost, as in
// stock LLVM. At the start of the optimizer's vectorization passes, this
// pass makes each such loop still rolled llvm.loop.unroll.full: LLVM's loop
// unroller unrolls it there, as stock's does where it judges the loop small
// enough by then, and the SROA after it makes the array registers.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Metadata.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/Utils/LoopUtils.h"

using namespace llvm;

namespace nvregalloc {
namespace {

class PromoteLocalsLoopsLatePass
    : public PassInfoMixin<PromoteLocalsLoopsLatePass> {
public:
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &) {
    LLVMContext &Context = F.getContext();
    MDNode *Full = MDNode::get(
        Context, {MDString::get(Context, "llvm.loop.unroll.full")});
    // A loop's ID is on each of its latches: made once, set on each.
    DenseMap<MDNode *, MDNode *> Made;
    for (BasicBlock &BB : F) {
      Instruction *Latch = BB.getTerminator();
      MDNode *LoopID =
          Latch ? Latch->getMetadata(LLVMContext::MD_loop) : nullptr;
      if (!LoopID || !findOptionMDForLoopID(LoopID, LateUnrollMark))
        continue;
      auto [It, New] = Made.try_emplace(LoopID, nullptr);
      if (New)
        It->second = makePostTransformationMetadata(Context, LoopID,
                                                    {LateUnrollMark}, {Full});
      Latch->setMetadata(LLVMContext::MD_loop, It->second);
    }
    // Loop metadata is no analysis's input.
    return PreservedAnalyses::all();
  }
};
} // namespace

void registerLocalLoopsLatePass(PassBuilder &Builder) {
  registerPassName<FunctionPassManager, PromoteLocalsLoopsLatePass>(
      Builder, LoopsLatePassArg);
  Builder.registerVectorizerStartEPCallback(
      [](FunctionPassManager &FPM, OptimizationLevel) {
        FPM.addPass(PromoteLocalsLoopsLatePass());
      });
}

} // namespace nvregalloc

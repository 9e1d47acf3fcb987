//===- UnrollGatePass.cpp - nvregalloc-unroll-gate and its end ----------===//
//
// A function-options file may set `unroll=full`, `small` or `off` for a
// function: LLVM's loop unrollers are then to leave some or all of its loops
// rolled unless the source asks for unrolling itself, as clang's
// -fno-unroll-loops does for a whole file at `off` (which loops each level
// keeps rolled, and why: the Rust core's choices::UNROLL). The unrollers
// have no per-function switch, but they honour a loop's
// llvm.loop.unroll.disable. So nvregalloc-unroll-gate, a loop pass at the
// end of the middle end's loop simplification (right before the full
// unroller), gives each loop of those functions that carries no unroll
// metadata of its own, and that the core keeps rolled at the function's
// level, that mark, beside one of ours; nvregalloc-unroll-gate-end, the last
// pass of the optimization pipeline, takes both back. Without that, NVPTX
// would print the mark as `.pragma "nounroll"` and ptxas would keep the
// loops rolled too, which -fno-unroll-loops does not ask for.
//
// Both are new-pass-manager passes: they run where the middle end runs
// (clang -fpass-plugin, opt -load-pass-plugin), not in llc, whose input was
// optimized already. opt also runs them by name, alone:
// -passes='loop(nvregalloc-unroll-gate)' and -passes=nvregalloc-unroll-gate-end.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "RustBridge.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/Scalar/LoopPassManager.h"
#include "llvm/Transforms/Utils/LoopUtils.h"

using namespace llvm;

namespace nvregalloc {

/// The function-options choice this pass applies (src/choices.rs): its
/// value's index.
static const FunctionNumberChoice UnrollLevel("unroll");

namespace {
/// The mark the unrollers honour, and ours beside it (so that the end pass
/// takes back only what the gate added).
constexpr const char UnrollDisable[] = "llvm.loop.unroll.disable";
constexpr const char GateMark[] = "nvregalloc.unroll.off";

class UnrollGatePass : public PassInfoMixin<UnrollGatePass> {
public:
  PreservedAnalyses run(Loop &L, LoopAnalysisManager &,
                        LoopStandardAnalysisResults &AR, LPMUpdater &) {
    Function &F = *L.getHeader()->getParent();
    // A loop the source (or an earlier visit) has an unroll choice for
    // keeps it.
    if (FunctionOptions.empty() ||
        !F.getParent()->getTargetTriple().isNVPTX() ||
        hasUnrollTransformation(&L) != TM_Unspecified)
      return PreservedAnalyses::all();
    std::optional<uint32_t> Level = UnrollLevel.madeFor(F);
    if (!Level)
      return PreservedAnalyses::all();
    unsigned Insts = 0;
    for (BasicBlock *BB : L.blocks())
      Insts += BB->sizeWithoutDebug();
    unsigned Trips = AR.SE.getSmallConstantTripCount(&L);
    if (!nvra_unroll_keeps_rolled(int32_t(*Level), Trips, Insts))
      return PreservedAnalyses::all();
    LLVMContext &Context = F.getContext();
    MDNode *Marks[] = {
        MDNode::get(Context, MDString::get(Context, UnrollDisable)),
        MDNode::get(Context, MDString::get(Context, GateMark))};
    L.setLoopID(
        makePostTransformationMetadata(Context, L.getLoopID(), {}, Marks));
    Context.diagnose(OptimizationRemark(UnrollGatePassArg, "UnrollOff",
                                        L.getStartLoc(), L.getHeader())
                     << "function " << F.getName() << ": loop of "
                     << ore::NV("Insts", Insts) << " instructions, "
                     << (Trips ? std::to_string(Trips) + " iterations"
                               : std::string("a trip count not constant"))
                     << ": left rolled (unroll="
                     << UnrollLevel.valueName(*Level) << ")");
    // Loop metadata is no analysis's input.
    return PreservedAnalyses::all();
  }
};

class UnrollGateEndPass : public PassInfoMixin<UnrollGateEndPass> {
public:
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    if (FunctionOptions.empty())
      return PreservedAnalyses::all();
    DenseMap<MDNode *, MDNode *> Restored;
    for (Function &F : M)
      for (BasicBlock &BB : F) {
        Instruction *Latch = BB.getTerminator();
        MDNode *LoopID =
            Latch ? Latch->getMetadata(LLVMContext::MD_loop) : nullptr;
        if (!LoopID || !findOptionMDForLoopID(LoopID, GateMark))
          continue;
        auto [It, New] = Restored.try_emplace(LoopID, nullptr);
        if (New) {
          MDNode *Rest = makePostTransformationMetadata(
              M.getContext(), LoopID, {UnrollDisable, GateMark}, {});
          // Only the self-reference left: the loop had no metadata before.
          It->second = Rest->getNumOperands() > 1 ? Rest : nullptr;
        }
        Latch->setMetadata(LLVMContext::MD_loop, It->second);
      }
    return PreservedAnalyses::all();
  }
};
} // namespace

void registerUnrollGates(PassBuilder &Builder) {
  registerPassName<LoopPassManager, UnrollGatePass>(Builder,
                                                    UnrollGatePassArg);
  registerPassName<ModulePassManager, UnrollGateEndPass>(Builder,
                                                         UnrollGateEndPassArg);
  Builder.registerLateLoopOptimizationsEPCallback(
      [](LoopPassManager &LPM, OptimizationLevel) {
        LPM.addPass(UnrollGatePass());
      });
  Builder.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel, ThinOrFullLTOPhase) {
        MPM.addPass(UnrollGateEndPass());
      });
}

} // namespace nvregalloc

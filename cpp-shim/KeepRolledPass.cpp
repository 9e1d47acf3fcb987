//===- KeepRolledPass.cpp - nvregalloc-keep-rolled ------------------------===//
//
// In llc, NVPTX only: the last IR pass before instruction selection, for
// every function unless `rolled=ptxas` (or
// -nvregalloc-keep-loops-rolled=false).
// Each loop still rolled is reported to the core (keep_rolled): its trip
// count, one iteration's IR instructions, what its metadata decides, and
// whether it addresses a local array at an offset that varies in it. Where
// the core finds that LLVM's full unroller left a constant-trip loop rolled
// for its size, the loop is marked llvm.loop.unroll.disable, which NVPTX's
// AsmPrinter prints as `.pragma "nounroll"`: ptxas, which unrolls such a
// loop by itself when its latch compares the incremented counter with a
// constant, leaves it as LLVM did (a 17-tap filter: 522 SASS instructions
// unrolled by ptxas, 96 rolled, nvcc's 125). A remark says so for each loop
// marked, and for each loop left to ptxas because unrolling it can make a
// local array registers.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "RustBridge.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Metadata.h"
#include "llvm/Pass.h"
#include "llvm/Transforms/Utils/LoopUtils.h"

using namespace llvm;

namespace nvregalloc {

static cl::opt<bool> KeepRolled(
    "nvregalloc-keep-loops-rolled",
    cl::desc("Mark loops that LLVM left rolled for their size "
             ".pragma \"nounroll\", so that ptxas leaves them rolled too "
             "(rolled=ptxas in a function-options file: not for that "
             "function)"),
    cl::init(true));
static ShowDefault KeepRolledDefault(KeepRolled);
/// The function-options choices that take a function in or out
/// (src/choices.rs); without either, the command line decides.
static const FunctionChoice RolledKept("rolled", "kept");
static const FunctionChoice RolledPtxas("rolled", "ptxas");

namespace {

class KeepRolledPass : public FunctionPass {
public:
  static char ID;
  static constexpr char Description[] =
      "nvregalloc: loops LLVM left rolled kept rolled for ptxas";
  KeepRolledPass() : FunctionPass(ID) {}
  StringRef getPassName() const override { return Description; }
  void getAnalysisUsage(AnalysisUsage &AU) const override {
    AU.addRequired<LoopInfoWrapperPass>();
    AU.addRequired<ScalarEvolutionWrapperPass>();
    // Only loop metadata changes.
    AU.setPreservesAll();
  }
  bool runOnFunction(Function &F) override {
    if (skipFunction(F) || RolledPtxas.isMadeFor(F) ||
        !(KeepRolled || RolledKept.isMadeFor(F)))
      return false;
    LoopInfo &LI = getAnalysis<LoopInfoWrapperPass>().getLoopInfo();
    if (LI.empty())
      return false;
    ScalarEvolution &SE = getAnalysis<ScalarEvolutionWrapperPass>().getSE();
    bool Changed = false;
    for (Loop *L : LI.getLoopsInPreorder())
      Changed |= judge(*L, SE);
    return Changed;
  }

private:
  static bool judge(Loop &L, ScalarEvolution &SE) {
    if (!L.getLoopLatch())
      return false;
    Function &F = *L.getHeader()->getParent();
    NvraRolledLoop Facts{};
    Facts.trip_count = SE.getSmallConstantTripCount(&L);
    Facts.iteration_insts =
        std::min<uint64_t>(iterationSize(L, SE), UINT32_MAX);
    Facts.source = sourceUnroll(L);
    Facts.walks_local = !localsWalkedBy(L, SE).empty();
    NvraRolledPlan Plan = nvra_keep_rolled(NVRA_ABI_VERSION, &Facts);
    LLVMContext &Context = F.getContext();
    auto Described = [&](auto Remark) {
      Remark << "function " << F.getName() << ": loop of "
             << ore::NV("TripCount", Facts.trip_count) << " iterations of "
             << ore::NV("IterationInsts", Facts.iteration_insts)
             << " instructions: ";
      return Remark;
    };
    if (Plan.verdict == NVRA_ROLLED_WALKS_LOCAL) {
      Context.diagnose(
          Described(OptimizationRemarkMissed(KeepRolledPassArg, "KeepRolled",
                                             L.getStartLoc(), L.getHeader()))
          << "left to ptxas (it walks a local array, which ptxas's "
             "unrolling can make registers)");
      return false;
    }
    if (Plan.verdict != NVRA_ROLLED_KEEP)
      return false;
    MDNode *Disable = MDNode::get(
        Context, {MDString::get(Context, "llvm.loop.unroll.disable")});
    L.setLoopID(
        makePostTransformationMetadata(Context, L.getLoopID(), {}, {Disable}));
    Context.diagnose(
        Described(OptimizationRemark(KeepRolledPassArg, "KeepRolled",
                                     L.getStartLoc(), L.getHeader()))
        << "LLVM left it rolled, and so does ptxas (about "
        << ore::NV("UnrolledInsts", Plan.unrolled_insts)
        << " instructions unrolled)");
    return true;
  }
};
} // namespace

char KeepRolledPass::ID = 0;
const void *const KeepRolledPassID = &KeepRolledPass::ID;
static RegisterPass<KeepRolledPass>
    Registration(KeepRolledPassArg, KeepRolledPass::Description);

} // namespace nvregalloc

//===- LsrJudgePass.cpp - nvregalloc-lsr-judge ---------------------------===//
//
// In llc, NVPTX only: LLVM's loop strength reduction kept where it costs no
// occupancy step (the core's lsr_judge says why it can cost one). On the
// first loop of a function it reaches, nvregalloc-lsr-gate (right before LSR)
// calls snapshotBeforeLsr, which keeps a copy of the function as it is then;
// this pass, right after LSR has run on every loop of the function, hands the
// core both forms' IR and, where the core says LSR's form runs fewer warps,
// puts the copy's body back in the function. The copy never reaches code
// generation: it is erased here either way. A remark reports each verdict
// with both estimates. `lsr=on` in a function-options file keeps LSR's form
// unjudged (stock), `lsr=off` keeps LSR off (LsrGatePass.cpp), and
// -nvregalloc-judge-lsr=false makes `on` the default.
//
//===----------------------------------------------------------------------===//

#include "IrForms.h"
#include "Passes.h"
#include "RustBridge.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/Pass.h"

#include <memory>

using namespace llvm;

namespace nvregalloc {

static cl::opt<bool> JudgeLsr(
    "nvregalloc-judge-lsr",
    cl::desc("Keep LLVM's loop strength reduction only where the estimated "
             "register pressure says it costs no occupancy step (lsr=on in a "
             "function-options file: not for that function)"),
    cl::init(true));
static ShowDefault JudgeLsrDefault(JudgeLsr);
static cl::opt<unsigned> LsrSlack(
    "nvregalloc-lsr-slack",
    cl::desc("Registers ptxas is assumed to need beyond the LSR judge's "
             "estimated pressure, when it counts occupancy steps"),
    cl::init(coreDefaults().lsr_slack));
static ShowDefault LsrSlackDefault(LsrSlack);
static cl::opt<unsigned> LsrMinGrowth(
    "nvregalloc-lsr-min-growth",
    cl::desc("Percent by which LSR must raise the judge's estimate before "
             "the judge undoes it"),
    cl::init(coreDefaults().lsr_min_growth));
static ShowDefault LsrMinGrowthDefault(LsrMinGrowth);
static const FunctionChoice LsrJudged("lsr", "judged");
static const FunctionChoice LsrOn("lsr", "on");

namespace {
/// Each function's copy from before LSR, until the judge has used it.
DenseMap<const Function *, Function *> &snapshots() {
  static DenseMap<const Function *, Function *> Snapshots;
  return Snapshots;
}

class LsrJudgePass : public FunctionPass {
public:
  static char ID;
  static constexpr char Description[] =
      "nvregalloc: loop strength reduction kept where it costs no "
      "occupancy step";
  LsrJudgePass() : FunctionPass(ID) {}
  StringRef getPassName() const override { return Description; }
  bool runOnFunction(Function &F) override {
    auto It = snapshots().find(&F);
    if (It == snapshots().end())
      return false;
    std::unique_ptr<Function, void (*)(Function *)> Copy(
        It->second, [](Function *C) { C->eraseFromParent(); });
    snapshots().erase(It);
    NvraFormsPlan Plan = judgeForms(*Copy, F, LsrSlack, LsrMinGrowth);
    if (Plan.verdict == NVRA_FORMS_UNMEASURED)
      return false;
    auto Described = [&](auto Remark) {
      Remark << "function " << F.getName() << ": about "
             << ore::NV("RegistersWithLsr", Plan.peak_rich)
             << " registers with loop strength reduction, "
             << ore::NV("RegistersWithoutLsr", Plan.peak_lean)
             << " without (estimated, " << ore::NV("Slack", LsrSlack.getValue())
             << " added for ptxas): ";
      return Remark;
    };
    LLVMContext &Context = F.getContext();
    if (Plan.verdict == NVRA_FORMS_RICH) {
      Context.diagnose(Described(OptimizationRemarkAnalysis(
                           LsrJudgePassArg, "LsrKept", DebugLoc(),
                           &F.getEntryBlock()))
                       << "kept");
      return false;
    }
    moveBody(F, *Copy);
    // The entry block is the copy's now.
    Context.diagnose(Described(OptimizationRemark(LsrJudgePassArg, "LsrUndone",
                                                  DebugLoc(),
                                                  &F.getEntryBlock()))
                     << "undone, for an occupancy step");
    return true;
  }
};
} // namespace

bool judgesLsr(const Function &F) {
  return !LsrOn.isMadeFor(F) && (JudgeLsr || LsrJudged.isMadeFor(F));
}

unsigned estimateSlack() { return LsrSlack; }

void snapshotBeforeLsr(Function &F) {
  if (snapshots().count(&F) ||
      any_of(F, [](const BasicBlock &BB) { return BB.hasAddressTaken(); }))
    return;
  snapshots()[&F] = copyFunction(F);
}

char LsrJudgePass::ID = 0;
const void *const LsrJudgePassID = &LsrJudgePass::ID;
static RegisterPass<LsrJudgePass> Registration(LsrJudgePassArg,
                                               LsrJudgePass::Description);

} // namespace nvregalloc

//===- LsrGatePass.cpp - nvregalloc-lsr-gate, nvregalloc-lsr-gate-end ----===//
//
// A function-options file may say `lsr=off` for a function: LLVM's loop
// strength reduction is then not to run on it (see the Rust core's
// Options::loop_strength_reduction for why that can save registers). LSR has
// no per-function switch, but like every loop pass it skips a function marked
// optnone. So nvregalloc-lsr-gate, right before LSR, marks the functions the
// file names optnone (and noinline, which the verifier requires beside it),
// and nvregalloc-lsr-gate-end, right after LSR, takes back exactly what the
// gate added. Both are loop passes, so they join the loop pass manager that
// runs LSR (after its freeze canonicalization) and the passes around them
// run as in stock LLVM, loop by loop; nothing but LSR runs between the two,
// and the marks change no IR the analyses depend on. The gate also copies
// each other function the LSR judge judges, on its first loop, for the judge
// (LsrJudgePass.cpp) to put back where LSR costs an occupancy step.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "RustBridge.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/LoopPass.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"

using namespace llvm;

namespace nvregalloc {

/// The function-options choice this pass applies (src/choices.rs).
static const FunctionChoice LsrOff("lsr", "off");

namespace {
/// Marks a function the gate made optnone; its value says whether the gate
/// added noinline too.
constexpr const char GateMark[] = "nvregalloc-lsr-off";
constexpr const char AddedNoInline[] = "noinline";

class LsrGatePass : public LoopPass {
public:
  static char ID;
  static constexpr char Description[] =
      "nvregalloc: keep loop strength reduction off the functions marked "
      "lsr=off, copy the others for the LSR judge";
  LsrGatePass() : LoopPass(ID) {}
  StringRef getPassName() const override { return Description; }
  void getAnalysisUsage(AnalysisUsage &AU) const override {
    AU.setPreservesAll();
  }
  bool runOnLoop(Loop *L, LPPassManager &) override {
    Function &F = *L->getHeader()->getParent();
    if (F.hasOptNone())
      return false;
    if (!LsrOff.isMadeFor(F)) {
      if (judgesLsr(F))
        snapshotBeforeLsr(F);
      return false;
    }
    bool AddNoInline = !F.hasFnAttribute(Attribute::NoInline);
    F.addFnAttr(Attribute::OptimizeNone);
    if (AddNoInline)
      F.addFnAttr(Attribute::NoInline);
    F.addFnAttr(GateMark, AddNoInline ? AddedNoInline : "");
    F.getContext().diagnose(
        OptimizationRemark(LsrGatePassArg, "LsrOff", L->getStartLoc(),
                           L->getHeader())
        << "function " << F.getName()
        << ": loop strength reduction off for this loop (lsr=off)");
    return true;
  }
};

class LsrGateEndPass : public LoopPass {
public:
  static char ID;
  static constexpr char Description[] =
      "nvregalloc: take back the lsr=off marks";
  LsrGateEndPass() : LoopPass(ID) {}
  StringRef getPassName() const override { return Description; }
  void getAnalysisUsage(AnalysisUsage &AU) const override {
    AU.setPreservesAll();
  }
  bool runOnLoop(Loop *L, LPPassManager &) override {
    Function &F = *L->getHeader()->getParent();
    if (!F.hasFnAttribute(GateMark))
      return false;
    F.removeFnAttr(Attribute::OptimizeNone);
    if (F.getFnAttribute(GateMark).getValueAsString() == AddedNoInline)
      F.removeFnAttr(Attribute::NoInline);
    F.removeFnAttr(GateMark);
    return true;
  }
};
} // namespace

char LsrGatePass::ID = 0;
char LsrGateEndPass::ID = 0;
const void *const LsrGatePassID = &LsrGatePass::ID;
const void *const LsrGateEndPassID = &LsrGateEndPass::ID;
static RegisterPass<LsrGatePass>
    GateRegistration(LsrGatePassArg, LsrGatePass::Description);
static RegisterPass<LsrGateEndPass>
    GateEndRegistration(LsrGateEndPassArg, LsrGateEndPass::Description);

} // namespace nvregalloc

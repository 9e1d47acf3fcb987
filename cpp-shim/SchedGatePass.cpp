//===- SchedGatePass.cpp - nvregalloc-sched-gate -------------------------===//
//
// A function-options file may say `sched=pressure` for a function:
// instruction selection is then to schedule its blocks with LLVM's
// bottom-up register-reduction list scheduler (list-burr) rather than in
// source order, NVPTX's default (see the Rust core's
// Options::pressure_scheduling for why). The scheduler is LLVM's
// -pre-RA-sched option, which instruction selection reads afresh for every
// function, so this IR pass, in the same function pass manager as
// instruction selection and ahead of it, sets that option for each function
// as its line says; the option gets its own value back when the module is
// done. Without a function-options file the pass is not in the pipeline.
//
// A function that loads an i1 keeps source order whatever its line says:
// LLVM 22's NVPTX lowering of an i1 load (LowerLOADi1) hands on the load's
// incoming chain instead of its own, so a later store to the same address
// no longer depends on the load. Source order happens to keep the load
// first; list-burr does not (`load i1 @g; store i1 true, @g` comes out as
// the store, then the load), which ptxsim's differential tests found on a
// csmith program. tests/lit/sched-pressure.ll keeps that case.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "RustBridge.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/CodeGen/MachinePassRegistry.h"
#include "llvm/CodeGen/SchedulerRegistry.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Pass.h"

#include <optional>

using namespace llvm;

namespace nvregalloc {

/// The function-options choice this pass applies (src/choices.rs).
static const FunctionChoice SchedPressure("sched", "pressure");

namespace {
// SelectionDAGISel.cpp declares -pre-RA-sched as exactly this.
using SchedulerOption =
    cl::opt<RegisterScheduler::FunctionPassCtor, false,
            RegisterPassParser<RegisterScheduler>>;

/// Whether \p F loads an i1 (or a vector of them), which only source order
/// schedules safely (see above).
bool loadsI1(Function &F) {
  return any_of(instructions(F), [](Instruction &I) {
    auto *Load = dyn_cast<LoadInst>(&I);
    return Load && Load->getType()->getScalarType()->isIntegerTy(1);
  });
}

SchedulerOption *schedulerOption() {
  auto &Options = cl::getRegisteredOptions();
  auto It = Options.find("pre-RA-sched");
  return It == Options.end() ? nullptr
                             : static_cast<SchedulerOption *>(It->second);
}

class SchedGatePass : public FunctionPass {
public:
  static char ID;
  static constexpr char Description[] =
      "nvregalloc: schedule the functions marked sched=pressure for register "
      "pressure in instruction selection";
  SchedGatePass() : FunctionPass(ID) {}
  StringRef getPassName() const override { return Description; }
  void getAnalysisUsage(AnalysisUsage &AU) const override {
    AU.setPreservesAll();
  }
  bool runOnFunction(Function &F) override {
    SchedulerOption *Scheduler = schedulerOption();
    if (!Scheduler)
      return false;
    Original.keep(*Scheduler);
    bool ForPressure = SchedPressure.isMadeFor(F);
    if (ForPressure && loadsI1(F)) {
      ForPressure = false;
      F.getContext().diagnose(
          OptimizationRemarkMissed(SchedGatePassArg, "SchedSourceKept", &F)
          << "function " << F.getName()
          << ": sched=pressure refused, source order kept: the function "
             "loads an i1, whose NVPTX lowering only source order schedules "
             "safely");
    }
    Scheduler->setValue(ForPressure ? &createBURRListDAGScheduler
                                    : Original.kept());
    if (ForPressure)
      F.getContext().diagnose(
          OptimizationRemark(SchedGatePassArg, "SchedPressure", &F)
          << "function " << F.getName()
          << ": instruction selection schedules for register pressure "
             "(sched=pressure)");
    return false;
  }
  bool doFinalization(Module &) override {
    Original.restore(schedulerOption());
    return false;
  }

private:
  KeptOption<SchedulerOption> Original;
};
} // namespace

char SchedGatePass::ID = 0;
const void *const SchedGatePassID = &SchedGatePass::ID;
static RegisterPass<SchedGatePass>
    Registration(SchedGatePassArg, SchedGatePass::Description);

} // namespace nvregalloc

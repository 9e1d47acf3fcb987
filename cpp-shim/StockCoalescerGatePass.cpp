//===- StockCoalescerGatePass.cpp - nvregalloc-stock-coalescer-gate ------===//
//
// In replace-stock mode our coalescer stands in for LLVM's RegisterCoalescer,
// but only for the functions it takes. Any other function (one the core
// refuses, or one whose interference graph would be too big) must still get
// LLVM's coalescing, or it would come out with none at all: worse than stock.
// RegisterCoalescer has no per-function switch, so this pass, which runs
// right before it, sets LLVM's own -join-liveintervals option for each
// function: off where our coalescer will take the function, on where it will
// not. Code generation handles one function at a time, so the value is read
// only by the RegisterCoalescer run that follows; the option gets its own
// value back when the module is done.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "RustBridge.h"

#include "llvm/CodeGen/MachineBlockFrequencyInfo.h"
#include "llvm/CodeGen/MachineFunctionPass.h"
#include "llvm/CodeGen/MachineLoopInfo.h"
#include "llvm/CodeGen/MachineOptimizationRemarkEmitter.h"
#include "llvm/Pass.h"

using namespace llvm;

namespace nvregalloc {

cl::opt<bool> *stockJoiningOption() {
  auto &Options = cl::getRegisteredOptions();
  auto It = Options.find("join-liveintervals");
  // RegisterCoalescer.cpp declares it as a plain cl::opt<bool>.
  return It == Options.end() ? nullptr
                             : static_cast<cl::opt<bool> *>(It->second);
}

namespace {
class StockCoalescerGatePass : public MachineFunctionPass {
public:
  static char ID;
  static constexpr char Description[] =
      "nvregalloc: let LLVM's coalescer take what ours refuses";
  StockCoalescerGatePass() : MachineFunctionPass(ID) {}
  StringRef getPassName() const override { return Description; }
  void getAnalysisUsage(AnalysisUsage &AU) const override {
    AU.addRequired<MachineLoopInfoWrapperPass>();
    AU.addRequired<MachineBlockFrequencyInfoWrapperPass>();
    AU.addRequired<MachineOptimizationRemarkEmitterPass>();
    AU.setPreservesAll();
    MachineFunctionPass::getAnalysisUsage(AU);
  }
  bool runOnMachineFunction(MachineFunction &MF) override {
    cl::opt<bool> *Joining = stockJoiningOption();
    if (!Joining)
      return false;
    Original.keep(*Joining);
    std::string Refusal = coalesceRefusal(MF, *this, sharedOptions());
    Joining->setValue(!Refusal.empty());
    if (!Refusal.empty()) {
      auto &ORE =
          getAnalysis<MachineOptimizationRemarkEmitterPass>().getORE();
      ORE.emit([&] {
        return MachineOptimizationRemarkMissed(StockCoalescerGatePassArg,
                                               "StockCoalesces", DebugLoc(),
                                               &MF.front())
               << "function " << MF.getName()
               << ": LLVM's RegisterCoalescer coalesces it: " << Refusal;
      });
    }
    return false;
  }
  bool doFinalization(Module &) override {
    Original.restore(stockJoiningOption());
    return false;
  }

private:
  KeptOption<cl::opt<bool>> Original;
};
} // namespace

char StockCoalescerGatePass::ID = 0;
const void *const StockCoalescerGatePassID = &StockCoalescerGatePass::ID;
static RegisterPass<StockCoalescerGatePass>
    Registration(StockCoalescerGatePassArg,
                 StockCoalescerGatePass::Description);

} // namespace nvregalloc

//===- RegisterCapPass.cpp - nvregalloc-register-cap ---------------------===//
//
// A function-options file's `cap=N` gives a kernel at most N registers per
// thread: this pass sets the kernel's "nvvm.maxnreg" attribute, which
// NVPTX's AsmPrinter emits as PTX `.maxnreg`, ptxas's register limit. A
// lower cap already there (CUDA's __maxnreg__) stays; device functions take
// none (ptxas counts their registers in the kernels that call them). Which
// cap holds without a spill only ptxas can tell, so nvregalloc-tune writes
// them. Without a function-options file the pass is not in the pipeline.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "RustBridge.h"

#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineFunctionPass.h"
#include "llvm/CodeGen/MachineOptimizationRemarkEmitter.h"
#include "llvm/IR/Function.h"

#include <string>

using namespace llvm;

namespace nvregalloc {

/// The function-options choice this pass applies (src/choices.rs).
static const FunctionNumberChoice Cap("cap");

namespace {
class RegisterCapPass : public MachineFunctionPass {
public:
  static char ID;
  static constexpr char Description[] =
      "nvregalloc: PTX .maxnreg for the kernels given cap=N";
  RegisterCapPass() : MachineFunctionPass(ID) {}
  StringRef getPassName() const override { return Description; }
  void getAnalysisUsage(AnalysisUsage &AU) const override {
    AU.addRequired<MachineOptimizationRemarkEmitterPass>();
    AU.setPreservesAll();
    MachineFunctionPass::getAnalysisUsage(AU);
  }
  bool runOnMachineFunction(MachineFunction &MF) override {
    Function &F = MF.getFunction();
    std::optional<uint32_t> Registers = Cap.madeFor(F);
    if (!Registers || F.getCallingConv() != CallingConv::PTX_Kernel)
      return false;
    unsigned Existing = F.getFnAttributeAsParsedInteger("nvvm.maxnreg", 0);
    if (Existing != 0 && Existing <= *Registers)
      return false;
    F.addFnAttr("nvvm.maxnreg", std::to_string(*Registers));
    getAnalysis<MachineOptimizationRemarkEmitterPass>().getORE().emit([&] {
      return MachineOptimizationRemark(RegisterCapPassArg, "RegisterCap",
                                       DebugLoc(), &MF.front())
             << "function " << MF.getName() << ": .maxnreg "
             << DiagnosticInfoOptimizationBase::Argument("maxnreg", *Registers);
    });
    return false;
  }
};
} // namespace

char RegisterCapPass::ID = 0;
const void *const RegisterCapPassID = &RegisterCapPass::ID;
static RegisterPass<RegisterCapPass>
    Registration(RegisterCapPassArg, RegisterCapPass::Description,
                 false, false);

} // namespace nvregalloc

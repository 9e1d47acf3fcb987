//===- CssaPass.cpp - nvregalloc-cssa -----------------------------------===//
//
// CSSA coalescing, decided by the Rust core (src/cssa.rs): on SSA form, just
// before PHIElimination, a PHI whose result and operands do not interfere
// gets one virtual register for all of them and goes away, so PHIElimination
// has fewer PHIs to lower into its two copies per operand.
//
// The function leaves SSA form here (a class register has several defs), so
// the pass tells MachineRegisterInfo. It does not preserve LiveVariables,
// whose kill and def information it changes; the PHIElimination and
// TwoAddressInstruction passes that follow only use it if it is available.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "RustBridge.h"

#include "llvm/CodeGen/MachineFunctionPass.h"
#include "llvm/CodeGen/MachineRegisterInfo.h"
#include "llvm/Pass.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace nvregalloc {

cl::opt<bool> CssaCoalesce(
    "nvregalloc-cssa-coalesce",
    cl::desc("Coalesce PHI operands before PHI elimination (CSSA); LLVM's "
             "PHI elimination and RegisterCoalescer remove these copies as "
             "well, and on some kernels better"),
    cl::init(false));
static ShowDefault CssaCoalesceDefault(CssaCoalesce);

static cl::opt<unsigned> CssaVerbosity(
    "nvregalloc-cssa-verbosity",
    cl::desc("Trace CSSA decisions through tracing (NVREGALLOC_LOG): 1 = "
             "each PHI, 2 = each operand too"),
    cl::init(coreDefaults().cssa_verbosity));
static ShowDefault CssaVerbosityDefault(CssaVerbosity);

static cl::opt<bool> DumpBeforeCssa(
    "nvregalloc-dump-before-cssa",
    cl::desc("Print each function to stderr before CSSA coalescing"),
    cl::init(false));

namespace {
class CssaPass : public MachineFunctionPass {
public:
  static char ID;
  static constexpr char Description[] =
      "nvregalloc: coalesce PHI operands (CSSA)";
  CssaPass() : MachineFunctionPass(ID) {}
  StringRef getPassName() const override { return Description; }
  void getAnalysisUsage(AnalysisUsage &AU) const override {
    addCorePassAnalyses(AU);
    MachineFunctionPass::getAnalysisUsage(AU);
  }
  bool runOnMachineFunction(MachineFunction &MF) override {
    if (!MF.getRegInfo().isSSA())
      return false;
    if (DumpBeforeCssa) {
      errs() << "# nvregalloc: " << MF.getName() << " before CSSA coalescing\n";
      MF.print(errs());
    }
    NvraOptions O = sharedOptions();
    O.cssa_verbosity = CssaVerbosity;
    bool Changed = runCorePass(MF, *this, CssaPassArg, NVRA_PASS_CSSA, O);
    if (Changed)
      MF.getRegInfo().leaveSSA();
    return Changed;
  }
};
} // namespace

char CssaPass::ID = 0;
const void *const CssaPassID = &CssaPass::ID;
static RegisterPass<CssaPass>
    Registration(CssaPassArg, CssaPass::Description);

} // namespace nvregalloc

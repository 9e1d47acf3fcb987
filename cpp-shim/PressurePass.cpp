//===- PressurePass.cpp - nvregalloc-pressure-relief ----------------------===//
//
// Recomputes cheap values (integer arithmetic, widening, mul.wide, special
// registers, immediates) in the blocks that read them instead of keeping
// them in registers, where the modelled register pressure crosses an
// occupancy step; decided by the Rust core (src/pressure.rs). It runs right
// after StackSlotColoring, before nvregalloc-coalescer: LiveIntervals is gone,
// so deleting and cloning instructions needs no interval updates.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "RustBridge.h"

#include "llvm/CodeGen/MachineFunctionPass.h"
#include "llvm/Pass.h"

using namespace llvm;

namespace nvregalloc {

cl::opt<NvraPressureMode> PressureMode(
    "nvregalloc-pressure",
    cl::desc("How nvregalloc lowers register pressure that costs warps"),
    cl::init(NvraPressureMode(coreDefaults().pressure_mode)),
    cl::values(clEnumValN(NVRA_PRESSURE_RELIEVE, "relieve",
                          "recompute cheap values next to their uses where "
                          "that crosses an occupancy step"),
               clEnumValN(NVRA_PRESSURE_ANALYZE, "analyze",
                          "decide and report, change nothing"),
               clEnumValN(NVRA_PRESSURE_OFF, "off",
                          "do not run (ptxas does not always follow the "
                          "model, see docs/design.md)")));
static ShowDefault PressureModeDefault(PressureMode);

static cl::opt<unsigned> PressureSlack(
    "nvregalloc-pressure-slack",
    cl::desc("Registers ptxas is assumed to need beyond the modelled "
             "pressure, when the pressure pass counts occupancy steps"),
    cl::init(coreDefaults().pressure_slack));
static ShowDefault PressureSlackDefault(PressureSlack);

static cl::opt<unsigned> PressureTarget(
    "nvregalloc-pressure-target", cl::Hidden,
    cl::desc("Lower the modelled pressure to this many registers as far as "
             "possible, whatever the occupancy (tests and experiments; 0: "
             "only where an occupancy step is crossed)"),
    cl::init(coreDefaults().pressure_target));
static ShowDefault PressureTargetDefault(PressureTarget);

namespace {
class PressurePass : public MachineFunctionPass {
public:
  static char ID;
  static constexpr char Description[] = "nvregalloc: relieve register pressure";
  PressurePass() : MachineFunctionPass(ID) {}
  StringRef getPassName() const override { return Description; }
  void getAnalysisUsage(AnalysisUsage &AU) const override {
    addCorePassAnalyses(AU);
    MachineFunctionPass::getAnalysisUsage(AU);
  }
  bool runOnMachineFunction(MachineFunction &MF) override {
    NvraOptions O = sharedOptions();
    O.pressure_mode = PressureMode;
    O.pressure_slack = PressureSlack;
    O.pressure_target = PressureTarget;
    return runCorePass(MF, *this, PressurePassArg, NVRA_PASS_PRESSURE, O);
  }
};
} // namespace

char PressurePass::ID = 0;
const void *const PressurePassID = &PressurePass::ID;
static RegisterPass<PressurePass>
    Registration(PressurePassArg, PressurePass::Description);

} // namespace nvregalloc

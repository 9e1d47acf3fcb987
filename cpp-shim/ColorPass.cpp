//===- ColorPass.cpp - nvregalloc-color ---------------------------------===//
//
// Briggs optimistic coloring of each register class, decided by the Rust
// core; every color becomes one PTX register. Renaming several live ranges
// onto one virtual register is legal only once LiveIntervals is gone, so this
// runs after StackSlotColoring, right after nvregalloc-coalesce.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "RustBridge.h"

#include "llvm/CodeGen/MachineFunctionPass.h"
#include "llvm/Pass.h"

using namespace llvm;

namespace nvregalloc {

static cl::opt<NvraColorMode> ColorMode(
    "nvregalloc-color", cl::desc("How nvregalloc colors virtual registers"),
    cl::init(NVRA_COLOR_RENAME),
    cl::values(clEnumValN(NVRA_COLOR_RENAME, "rename",
                          "one PTX register per color, fewest colors (default)"),
               clEnumValN(NVRA_COLOR_ANALYZE, "analyze",
                          "decide and report, change nothing"),
               clEnumValN(NVRA_COLOR_OFF, "off", "do not run")));

namespace {
class ColorPass : public MachineFunctionPass {
public:
  static char ID;
  ColorPass() : MachineFunctionPass(ID) {}
  StringRef getPassName() const override { return "nvregalloc: color registers"; }
  void getAnalysisUsage(AnalysisUsage &AU) const override {
    addCorePassAnalyses(AU);
    MachineFunctionPass::getAnalysisUsage(AU);
  }
  bool runOnMachineFunction(MachineFunction &MF) override {
    if (ColorMode == NVRA_COLOR_OFF)
      return false;
    NvraOptions O = sharedOptions();
    O.color_mode = ColorMode;
    return runCorePass(MF, *this, ColorPassArg, NVRA_PASS_COLOR, O);
  }
};
} // namespace

char ColorPass::ID = 0;
const void *const ColorPassID = &ColorPass::ID;
static RegisterPass<ColorPass> Registration(ColorPassArg,
                                            "nvregalloc: color registers");

} // namespace nvregalloc

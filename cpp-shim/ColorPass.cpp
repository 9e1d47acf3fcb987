//===- ColorPass.cpp - nvregalloc-coloring --------------------------------===//
//
// Briggs optimistic coloring of each register class, decided by the Rust
// core; every color becomes one PTX register. Renaming several live ranges
// onto one virtual register is legal only once LiveIntervals is gone, so this
// runs after StackSlotColoring, right after nvregalloc-coalescer. With a
// register budget it also spills into PTX local memory, through frame
// indices that NVPTX's PrologEpilog pass (which runs next) lays out.
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
    cl::init(NvraColorMode(coreDefaults().color_mode)),
    cl::values(clEnumValN(NVRA_COLOR_RENAME, "rename",
                          "one PTX register per color, fewest colors"),
               clEnumValN(NVRA_COLOR_ANALYZE, "analyze",
                          "decide and report, change nothing"),
               clEnumValN(NVRA_COLOR_OFF, "off",
                          "do not rename (ptxas re-allocates, and renaming "
                          "moves its register count both ways)")));
static ShowDefault ColorModeDefault(ColorMode);

static cl::opt<unsigned> MaxRegs(
    "nvregalloc-max-regs",
    cl::desc("Color each register class into at most this many registers, "
             "spilling to local memory what does not fit (0: unbounded); "
             "renames even where -nvregalloc-color is off"),
    cl::init(coreDefaults().max_regs));
static ShowDefault MaxRegsDefault(MaxRegs);

static cl::opt<bool> Remat(
    "nvregalloc-remat",
    cl::desc("Recompute spilled constants and addresses instead of "
             "reloading them"),
    cl::init(coreDefaults().remat != 0));
static ShowDefault RematDefault(Remat);

static cl::opt<double> SpillLatency(
    "nvregalloc-spill-latency", cl::value_desc("cycles"),
    cl::desc("Memory latency in the spill cost (0: estimate from the "
             "register footprint: 4, 10 or 40 cycles)"),
    cl::init(coreDefaults().spill_latency));
static ShowDefault SpillLatencyDefault(SpillLatency);

static cl::opt<bool> ReuseWithinBlock(
    "nvregalloc-reuse-within-block",
    cl::desc("Rename mode: let values defined in one block share a PTX "
             "register (fewest registers; =false keeps them apart, which "
             "spares ptxas false dependences within blocks)"),
    cl::init(coreDefaults().reuse_within_block != 0));
static ShowDefault ReuseWithinBlockDefault(ReuseWithinBlock);

static cl::opt<bool> UndefinedApart(
    "nvregalloc-undefined-apart",
    cl::desc("Rename mode: give a value left undefined on some path "
             "(IMPLICIT_DEF) a PTX register no defined value writes"),
    cl::init(coreDefaults().undefined_apart != 0));
static ShowDefault UndefinedApartDefault(UndefinedApart);

static cl::opt<double> LoopBase(
    "nvregalloc-loop-base",
    cl::desc("Spill cost weight of a def or use at loop depth d: base^d"),
    cl::init(coreDefaults().loop_base));
static ShowDefault LoopBaseDefault(LoopBase);

namespace {
class ColorPass : public MachineFunctionPass {
public:
  static char ID;
  static constexpr char Description[] = "nvregalloc: color registers";
  ColorPass() : MachineFunctionPass(ID) {}
  StringRef getPassName() const override { return Description; }
  void getAnalysisUsage(AnalysisUsage &AU) const override {
    addCorePassAnalyses(AU);
    MachineFunctionPass::getAnalysisUsage(AU);
  }
  bool runOnMachineFunction(MachineFunction &MF) override {
    // Off everywhere unless a budget or a function-options file turns
    // renaming on for some function (the core decides which).
    if (ColorMode == NVRA_COLOR_OFF && MaxRegs == 0 && FunctionOptions.empty())
      return false;
    NvraOptions O = sharedOptions();
    O.color_mode = ColorMode;
    O.max_regs = MaxRegs;
    O.remat = Remat;
    O.spill_latency = SpillLatency;
    O.loop_base = LoopBase;
    O.reuse_within_block = ReuseWithinBlock;
    O.undefined_apart = UndefinedApart;
    return runCorePass(MF, *this, ColorPassArg, NVRA_PASS_COLOR, O);
  }
};
} // namespace

char ColorPass::ID = 0;
const void *const ColorPassID = &ColorPass::ID;
static RegisterPass<ColorPass>
    Registration(ColorPassArg, ColorPass::Description);

} // namespace nvregalloc

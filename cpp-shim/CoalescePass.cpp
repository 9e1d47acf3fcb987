//===- CoalescePass.cpp - nvregalloc-coalescer ----------------------------===//
//
// Conservative (Briggs-style, CICC's 0.8 factor) copy coalescing over the
// whole function, decided by the Rust core. It runs after StackSlotColoring,
// where LiveIntervals is no longer alive: merging registers there cannot break
// LiveIntervals' one-connected-component rule (see docs/design.md, "Where the passes run, and why").
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "RustBridge.h"

#include "llvm/CodeGen/MachineFunctionPass.h"
#include "llvm/Pass.h"

using namespace llvm;

namespace nvregalloc {

cl::opt<NvraCoalesceMode> CoalesceMode(
    "nvregalloc-coalesce", cl::desc("How nvregalloc coalesces copies"),
    cl::init(NvraCoalesceMode(coreDefaults().coalesce_mode)),
    cl::values(
        clEnumValN(NVRA_COALESCE_AFTER_STOCK, "after-stock",
                   "LLVM's RegisterCoalescer runs first, then ours"),
        clEnumValN(NVRA_COALESCE_REPLACE_STOCK, "replace-stock",
                   "ours instead of LLVM's RegisterCoalescer"),
        clEnumValN(NVRA_COALESCE_ANALYZE, "analyze",
                   "decide and report, change nothing"),
        clEnumValN(NVRA_COALESCE_OFF, "off", "do not run")));
static ShowDefault CoalesceModeDefault(CoalesceMode);

static cl::opt<double, false, PositiveParser<double>> CoalesceFactor(
    "nvregalloc-coalesce-factor",
    cl::desc("A neighbour counts as high-degree when degree * factor >= K"),
    cl::init(coreDefaults().coalesce_factor));
static ShowDefault CoalesceFactorDefault(CoalesceFactor);

static cl::opt<bool> BlockFreqBias(
    "nvregalloc-block-freq",
    cl::desc("Order copies of equal register number by block frequency too"),
    cl::init(coreDefaults().block_freq_bias != 0));
static ShowDefault BlockFreqBiasDefault(BlockFreqBias);

static cl::opt<uint64_t> CopyLimit(
    "nvregalloc-copy-limit",
    cl::desc("Copies the coalescer considers per function (0 = unlimited)"),
    cl::init(coreDefaults().copy_limit));
static ShowDefault CopyLimitDefault(CopyLimit);

static cl::opt<uint64_t> CoalesceLimit(
    "nvregalloc-coalesce-limit",
    cl::desc("Merges the coalescer performs per function (0 = unlimited)"),
    cl::init(coreDefaults().coalesce_limit));
static ShowDefault CoalesceLimitDefault(CoalesceLimit);

namespace {
class CoalescePass : public MachineFunctionPass {
public:
  static char ID;
  static constexpr char Description[] = "nvregalloc: coalesce copies";
  CoalescePass() : MachineFunctionPass(ID) {}
  StringRef getPassName() const override { return Description; }
  void getAnalysisUsage(AnalysisUsage &AU) const override {
    addCorePassAnalyses(AU);
    MachineFunctionPass::getAnalysisUsage(AU);
  }
  bool runOnMachineFunction(MachineFunction &MF) override {
    if (CoalesceMode == NVRA_COALESCE_OFF)
      return false;
    NvraOptions O = sharedOptions();
    O.coalesce_mode = CoalesceMode;
    O.coalesce_factor = CoalesceFactor;
    O.block_freq_bias = BlockFreqBias;
    O.copy_limit = CopyLimit;
    O.coalesce_limit = CoalesceLimit;
    return runCorePass(MF, *this, CoalescePassArg, NVRA_PASS_COALESCE, O);
  }
};
} // namespace

char CoalescePass::ID = 0;
const void *const CoalescePassID = &CoalescePass::ID;
static RegisterPass<CoalescePass>
    Registration(CoalescePassArg, CoalescePass::Description);

} // namespace nvregalloc

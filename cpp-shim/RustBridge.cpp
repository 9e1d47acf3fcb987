//===- RustBridge.cpp - one call into the Rust core for one function ----===//

#include "RustBridge.h"
#include "Flatten.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/CodeGen/MachineBlockFrequencyInfo.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineFunctionPass.h"
#include "llvm/CodeGen/MachineLoopInfo.h"
#include "llvm/CodeGen/MachineOptimizationRemarkEmitter.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <string>

using namespace llvm;

namespace nvregalloc {

const NvraOptions &coreDefaults() {
  static const NvraOptions Defaults = [] {
    NvraOptions O{};
    nvra_default_options(&O);
    return O;
  }();
  return Defaults;
}

StringRef withDefault(StringRef Help, const std::string &Value) {
  static std::deque<std::string> Kept; // never freed: -help may print late
  Kept.push_back((Help + " (default: " + Value + ")").str());
  return Kept.back();
}

static cl::opt<unsigned, false, PositiveParser<unsigned>> K(
    "nvregalloc-k",
    cl::desc("Colors the conservative coalescing and Briggs tests assume (K)"),
    cl::init(coreDefaults().k));
static ShowDefault KDefault(K);

static cl::opt<uint64_t> GraphLimit(
    "nvregalloc-graph-limit",
    cl::desc("Interference graph entries (a def met with a live value of its "
             "class) a pass may build per function; past them coloring goes "
             "graph-free and the other passes leave the function as it is "
             "(0: never build a graph)"),
    cl::init(coreDefaults().graph_limit));
static ShowDefault GraphLimitDefault(GraphLimit);

static cl::opt<bool> Verify(
    "nvregalloc-verify",
    cl::desc("Check every rewrite with the independent checker; a rejected "
             "rewrite leaves the function unchanged"),
    cl::init(coreDefaults().verify != 0));
static ShowDefault VerifyDefault(Verify);

static cl::opt<NvraFault> InjectFault(
    "nvregalloc-inject-fault", cl::Hidden,
    cl::desc("Test only: make the core misbehave on purpose"),
    cl::init(NvraFault(coreDefaults().fault)),
    cl::values(clEnumValN(NVRA_FAULT_NONE, "none", "behave"),
               clEnumValN(NVRA_FAULT_PANIC, "panic", "panic inside Rust"),
               clEnumValN(NVRA_FAULT_MERGE_INTERFERING, "merge-interfering",
                          "merge two interfering registers")));

static cl::opt<std::string> ReportPath(
    "nvregalloc-report", cl::value_desc("file.json"),
    cl::desc("Write each function's figures, phase times and an occupancy "
             "estimate to this JSON file"));

/// The syntax comes from the core, which defines the keys.
static const std::string FunctionOptionsHelp =
    std::string("Per-function choices, one line each: ") +
    nvra_function_options_syntax() +
    "; `*` for the rest, `[sm_NN]` sections per GPU (nvregalloc-tune writes "
    "them)";

cl::opt<std::string> FunctionOptions("nvregalloc-function-options",
                                     cl::value_desc("file"),
                                     cl::desc(FunctionOptionsHelp));

static cl::opt<std::string> DotDir(
    "nvregalloc-dot", cl::value_desc("dir"),
    cl::desc("Write one Graphviz interference graph per function here"));

NvraOptions sharedOptions() {
  NvraOptions O{};
  O.abi_version = NVRA_ABI_VERSION;
  O.sizeof_options = sizeof(NvraOptions);
  O.k = K;
  O.graph_limit = GraphLimit;
  O.verify = Verify;
  O.fault = InjectFault;
  O.report_path = ReportPath.empty() ? nullptr : ReportPath.c_str();
  O.dot_dir = DotDir.empty() ? nullptr : DotDir.c_str();
  O.function_options =
      FunctionOptions.empty() ? nullptr : FunctionOptions.c_str();
  return O;
}

/// The choices the function-options file makes for \p F, compiled for its
/// "target-cpu"; false where there is no file or it cannot be read.
static bool readChoices(const Function &F, NvraFunctionChoices &Made) {
  if (FunctionOptions.empty())
    return false;
  NvraOptions Options = sharedOptions();
  StringRef Name = F.getName();
  StringRef Gpu = F.getFnAttribute("target-cpu").getValueAsString();
  return nvra_function_choices(&Options, Name.data(), Name.size(), Gpu.data(),
                               Gpu.size(), &Made) == 0;
}

FunctionChoice::FunctionChoice(const char *Key, const char *Value) {
  Known = nvra_choice_index(Key, Value, &KeyIndex, &ValueIndex) != 0;
  if (!Known)
    errs() << "nvregalloc: internal error: the core defines no choice " << Key
           << "=" << Value << "\n";
}

bool FunctionChoice::isMadeFor(const Function &F) const {
  NvraFunctionChoices Made;
  return Known && readChoices(F, Made) && Made.value[KeyIndex] == ValueIndex;
}

FunctionNumberChoice::FunctionNumberChoice(const char *Key) {
  int32_t NoValue;
  Known = nvra_choice_index(Key, nullptr, &KeyIndex, &NoValue) != 0;
  if (!Known)
    errs() << "nvregalloc: internal error: the core defines no choice " << Key
           << "\n";
}

std::optional<uint32_t> FunctionNumberChoice::madeFor(const Function &F) const {
  NvraFunctionChoices Made;
  if (!Known || !readChoices(F, Made) || Made.value[KeyIndex] < 0)
    return std::nullopt;
  return uint32_t(Made.value[KeyIndex]);
}

const char *FunctionNumberChoice::valueName(uint32_t Index) const {
  const char *Name = nvra_choice_value_name(KeyIndex, int32_t(Index));
  return Name ? Name : "?";
}

namespace {
/// The core's figures summed over the run, printed at exit under -stats in
/// LLVM's layout. (Debian's libLLVM is a release build without statistics,
/// so LLVM's own Statistic objects would print nothing.)
class Statistics {
public:
  static Statistics &get() {
    static Statistics *S = new Statistics(); // never freed: printed at exit
    return *S;
  }
  void add(const char *Pass, const char *Name, uint64_t Value) {
    if (Totals.empty())
      std::atexit([] { get().print(); });
    Totals[{Pass, Name}] += Value;
  }

private:
  void print() const {
    if (!AreStatisticsEnabled())
      return;
    const char *Rule = "===-------------------------------------------"
                       "------------------------------===\n";
    std::fprintf(stderr, "%s%s%s\n", Rule,
                 "                       ... nvregalloc statistics ...\n",
                 Rule);
    for (const auto &[Key, Value] : Totals)
      std::fprintf(stderr, "%12llu %s - %s\n", (unsigned long long)Value,
                   Key.first.c_str(), Key.second.c_str());
    std::fprintf(stderr, "\n");
  }
  std::map<std::pair<std::string, std::string>, uint64_t> Totals;
};
} // namespace

void addCorePassAnalyses(AnalysisUsage &AU) {
  AU.addRequired<MachineLoopInfoWrapperPass>();
  AU.addRequired<MachineBlockFrequencyInfoWrapperPass>();
  AU.addRequired<MachineOptimizationRemarkEmitterPass>();
  AU.setPreservesCFG();
}

namespace {
/// Frees the core's result however the caller leaves.
struct ResultDeleter {
  void operator()(NvraResult *R) const { nvra_result_free(R); }
};
} // namespace

std::string coalesceRefusal(MachineFunction &MF, MachineFunctionPass &P,
                            const NvraOptions &Options) {
  FlatFunction Flat(MF, P.getAnalysis<MachineLoopInfoWrapperPass>().getLI(),
                    P.getAnalysis<MachineBlockFrequencyInfoWrapperPass>().getMBFI());
  std::unique_ptr<NvraResult, ResultDeleter> Result(
      nvra_run_pass(&Flat.abi(), &Options, NVRA_PASS_COALESCE_ADMISSION));
  return Result->status == NVRA_STATUS_OK ? std::string() : Result->message;
}

bool runCorePass(MachineFunction &MF, MachineFunctionPass &P,
                 const char *PassArg, NvraPass Which,
                 const NvraOptions &Options) {
  std::string TargetCPU = MF.getTarget().getTargetCPU().str();
  NvraOptions WithTarget = Options;
  WithTarget.target_cpu = TargetCPU.c_str();
  FlatFunction Flat(MF, P.getAnalysis<MachineLoopInfoWrapperPass>().getLI(),
                    P.getAnalysis<MachineBlockFrequencyInfoWrapperPass>().getMBFI());
  std::unique_ptr<NvraResult, ResultDeleter> Result(
      nvra_run_pass(&Flat.abi(), &WithTarget, Which));
  LLVMContext &Ctx = MF.getFunction().getContext();
  auto LeaveUnchanged = [&](const Twine &Why) {
    Ctx.diagnose(DiagnosticInfoGeneric(Twine(PassArg) + ": function '" +
                                           MF.getName() +
                                           "' left unchanged: " + Why,
                                       DS_Warning));
    return false;
  };

  switch (Result->status) {
  case NVRA_STATUS_OK:
    break;
  case NVRA_STATUS_ABI_MISMATCH:
    Ctx.diagnose(DiagnosticInfoGeneric(
        Twine(PassArg) + ": " + Result->message, DS_Error));
    return false;
  default:
    return LeaveUnchanged(Result->message);
  }
  std::string Missing = Flat.resolveSpillParts(*Result);
  if (!Missing.empty())
    return LeaveUnchanged(Missing);

  auto &ORE = P.getAnalysis<MachineOptimizationRemarkEmitterPass>().getORE();
  const MachineBasicBlock &Entry = MF.front();
  if (*Result->message)
    ORE.emit([&] {
      return MachineOptimizationRemarkMissed(PassArg, "Note", DebugLoc(), &Entry)
             << "function " << MF.getName() << ": " << Result->message;
    });
  for (uint32_t I = 0; I != Result->num_kept_copies; ++I) {
    const NvraKeptCopy &Kept = Result->kept_copies[I];
    const MachineInstr *MI = Flat.instruction(Kept.inst);
    ORE.emit([&] {
      return MachineOptimizationRemarkMissed(PassArg, "CopyKept",
                                             MI->getDebugLoc(), MI->getParent())
             << "copy kept: " << Kept.reason;
    });
  }
  ORE.emit([&] {
    MachineOptimizationRemarkAnalysis R(PassArg, "Summary", DebugLoc(), &Entry);
    R << "function " << MF.getName() << ":";
    for (uint32_t I = 0; I != Result->num_stats; ++I)
      R << " " << Result->stats[I].name << "="
        << DiagnosticInfoOptimizationBase::Argument(Result->stats[I].name,
                                                    Result->stats[I].value);
    return R;
  });

  for (uint32_t I = 0; I != Result->num_stats; ++I)
    Statistics::get().add(PassArg, Result->stats[I].name,
                          Result->stats[I].value);

  bool Changed = Flat.apply(*Result);
  if (Changed)
    ORE.emit([&] {
      return MachineOptimizationRemark(PassArg, "Rewritten", DebugLoc(), &Entry)
             << "rewrote function " << MF.getName();
    });
  return Changed;
}

} // namespace nvregalloc

//===- Passes.h - the nvregalloc passes ----------------------------------===//
#ifndef NVREGALLOC_PASSES_H
#define NVREGALLOC_PASSES_H

#include "nvregalloc.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"

#include <optional>
#include <type_traits>
#include <utility>

namespace llvm {
class ConstantRange;
struct KnownBits;
class Loop;
class ScalarEvolution;
} // namespace llvm

namespace nvregalloc {

// Names for -run-pass, -print-after, statistics and remarks. None is the
// name of an option (-nvregalloc-coalesce=...): opt turns every registered
// legacy pass name into an option of its own, and two options of one name
// abort it while it loads the plugin.
inline constexpr const char CoalescePassArg[] = "nvregalloc-coalescer";
inline constexpr const char ColorPassArg[] = "nvregalloc-coloring";
inline constexpr const char CssaPassArg[] = "nvregalloc-cssa";
inline constexpr const char InlineGatePassArg[] = "nvregalloc-inline-gate";
inline constexpr const char LocalFramePassArg[] = "nvregalloc-local-frame";
inline constexpr const char KeepRolledPassArg[] = "nvregalloc-keep-rolled";
inline constexpr const char LsrGatePassArg[] = "nvregalloc-lsr-gate";
inline constexpr const char LsrGateEndPassArg[] = "nvregalloc-lsr-gate-end";
inline constexpr const char LsrJudgePassArg[] = "nvregalloc-lsr-judge";
inline constexpr const char MulWidePassArg[] = "nvregalloc-mul-wide";
inline constexpr const char NonNegativeZextPassArg[] =
    "nvregalloc-promote-locals-zext";
inline constexpr const char PressurePassArg[] = "nvregalloc-pressure-relief";
inline constexpr const char RecomputeInvariantsPassArg[] =
    "nvregalloc-recompute-invariants";
inline constexpr const char RegisterCapPassArg[] = "nvregalloc-register-cap";
inline constexpr const char SchedGatePassArg[] = "nvregalloc-sched-gate";
inline constexpr const char SharedSpillsPassArg[] = "nvregalloc-shared-spills";
inline constexpr const char StockCoalescerGatePassArg[] =
    "nvregalloc-stock-coalescer-gate";
inline constexpr const char UnrollGatePassArg[] = "nvregalloc-unroll-gate";
inline constexpr const char UnrollGateEndPassArg[] =
    "nvregalloc-unroll-gate-end";

// Pass IDs, for TargetPassConfig::insertPass.
extern const void *const CoalescePassID;
extern const void *const ColorPassID;
extern const void *const CssaPassID;
extern const void *const KeepRolledPassID;
extern const void *const LocalFramePassID;
extern const void *const LsrGatePassID;
extern const void *const LsrGateEndPassID;
extern const void *const LsrJudgePassID;
extern const void *const MulWidePassID;
extern const void *const NonNegativeZextPassID;
extern const void *const PressurePassID;
extern const void *const RecomputeInvariantsPassID;
extern const void *const RegisterCapPassID;
extern const void *const SchedGatePassID;
extern const void *const SharedSpillsPassID;
extern const void *const StockCoalescerGatePassID;

// Read when the pipeline is built: replace-stock puts the stock coalescer's
// gate in front of LLVM's coalescer, and the CSSA and pressure passes are
// inserted only when enabled.
extern llvm::cl::opt<NvraCoalesceMode> CoalesceMode;
extern llvm::cl::opt<bool> CssaCoalesce;
extern llvm::cl::opt<NvraPressureMode> PressureMode;
// A per-function choices file may turn the pressure pass on for some, loop
// strength reduction or unrolling off, the pressure scheduler on, inlining
// at every call site on, and a kernel's spills into shared memory.
extern llvm::cl::opt<std::string> FunctionOptions;

// Whether nvregalloc-lsr-judge judges LSR on F (LsrJudgePass.cpp), and the
// copy of F it judges LSR's form against, taken before LSR by the gate.
bool judgesLsr(const llvm::Function &F);
void snapshotBeforeLsr(llvm::Function &F);
// Registers ptxas is assumed to need beyond the forms judge's estimate
// (-nvregalloc-lsr-slack), for every judged form.
unsigned estimateSlack();

/// A global LLVM option that a gate sets for each function it lets through
/// (the pre-RA scheduler, the stock coalescer's joining), kept as the
/// command line set it and given back when the module is done, so that the
/// next module, or a tool reusing the process, sees the user's value.
template <typename Option> class KeptOption {
public:
  using Value = std::decay_t<decltype(std::declval<Option &>().getValue())>;
  /// Keeps \p O's value, the first time only.
  void keep(const Option &O) {
    if (!Kept)
      Kept = O.getValue();
  }
  /// The value kept (keep() first).
  Value kept() const { return *Kept; }
  /// Gives \p O (if registered) the kept value back; for doFinalization.
  void restore(Option *O) {
    if (O && Kept)
      O->setValue(*Kept);
    Kept.reset();
  }

private:
  std::optional<Value> Kept;
};

// Put the middle-end passes at their extension points and make them known
// to opt by name: nvregalloc-unroll-gate and its end, nvregalloc-inline-gate.
void registerUnrollGates(llvm::PassBuilder &Builder);
void registerInlineGate(llvm::PassBuilder &Builder);
// nvregalloc-promote-locals and its passes (PromoteLocalsPass.cpp lists
// them), on by default.
void registerPromoteLocals(llvm::PassBuilder &Builder);
// Whether nvregalloc-promote-locals and its rewrites act on M (NVPTX, the
// pass on), and on F (and no promote=off for F).
bool promotesLocalsIn(const llvm::Module &M);
bool promotesLocals(const llvm::Function &F);
// The -nvregalloc-promote-* limits for F, as its `promote` level bounds
// them, for the core's verdicts.
NvraPromoteLimits promoteLimits(const llvm::Function &F);
// The alloca of F that Ptr points into, if any, and its size in Bytes.
const llvm::AllocaInst *localArray(const llvm::Value *Ptr,
                                   const llvm::Function &F, uint64_t &Bytes);
// "local 'NAME' of N bytes": the source variable's name where debug
// information gives it (else the IR value's, if any), for remarks.
std::string describeLocal(llvm::AllocaInst &Local);
// The memory operands of I: a load's or store's address, a memory
// intrinsic's destination and source.
llvm::SmallVector<const llvm::Value *, 2>
addresses(const llvm::Instruction &I);
// IR instructions of one iteration of L, inner loops with a constant trip
// count counted that many times.
uint64_t iterationSize(const llvm::Loop &L, llvm::ScalarEvolution &SE);
// What L's metadata decides of its unrolling (a pragma, LLVM's mark on a
// loop it unrolled, the plan's): an NvraSourceUnroll.
uint32_t sourceUnroll(const llvm::Loop &L);
// The local arrays L addresses at an offset that varies in it.
llvm::SetVector<llvm::AllocaInst *> localsWalkedBy(const llvm::Loop &L,
                                                   llvm::ScalarEvolution &SE);
// The offsets of the elements of Size bytes within Bytes that an offset
// with the known bits Known, within Range, may be.
llvm::SmallVector<uint64_t, 16>
elementsAgreeing(const llvm::KnownBits &Known, const llvm::ConstantRange &Range,
                 uint64_t Size, uint64_t Bytes);
// Whether Ptr, a pointer into Alloca, is at an offset that varies in a loop
// (an add recurrence, as ScalarEvolution sees it): a loop walks the local.
bool variesInLoop(const llvm::Value *Ptr, const llvm::AllocaInst &Alloca,
                  llvm::ScalarEvolution &SE);

inline constexpr const char CallsPassArg[] = "nvregalloc-promote-locals-calls";
inline constexpr const char LoopsPassArg[] = "nvregalloc-promote-locals-loops";
inline constexpr const char AlignPassArg[] = "nvregalloc-promote-locals-align";
// Calls taking a local's address: always-inline where the core picks them
// (LocalCallsPass.cpp); registered by name and before the inliner.
void registerLocalCallsPass(llvm::PassBuilder &Builder);
// Loops over local arrays: unrolled fully, kept rolled or left to LLVM, by
// the core's plan for the arrays (LocalLoopsPass.cpp); registered by name
// and right before the full unroller.
void registerLocalLoopsPass(llvm::PassBuilder &Builder);
inline constexpr const char LoopsLatePassArg[] =
    "nvregalloc-promote-locals-loops-late";
// The mark of a loop the plan unrolls late: made llvm.loop.unroll.full by
// nvregalloc-promote-locals-loops-late, right before LLVM's loop unroller
// (LocalLoopsLatePass.cpp).
inline constexpr const char LateUnrollMark[] = "nvregalloc.loop.unroll.late";
void registerLocalLoopsLatePass(llvm::PassBuilder &Builder);
// What stays in local memory: aligned as the core says (LocalAlignPass.cpp).
class PromoteLocalsAlignPass
    : public llvm::PassInfoMixin<PromoteLocalsAlignPass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &FAM);
};

inline constexpr const char TypedCopiesPassArg[] =
    "nvregalloc-promote-locals-copies";
inline constexpr const char DeadByvalStoresPassArg[] =
    "nvregalloc-promote-locals-byval";
inline constexpr const char LocalForwardingPassArg[] =
    "nvregalloc-promote-locals-forward";
inline constexpr const char ExpandCopiesPassArg[] =
    "nvregalloc-promote-locals-expand";
// A local copied only whole, by memcpy: the copies become a typed load and
// store, which SROA can promote (TypedCopiesPass.cpp).
class TypedCopiesPass : public llvm::PassInfoMixin<TypedCopiesPass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &);
};
// Stores into a kernel's by-value parameter that nothing reads: deleted, so
// that NVPTX need not copy the parameter to local memory
// (DeadByvalStoresPass.cpp).
class DeadByvalStoresPass : public llvm::PassInfoMixin<DeadByvalStoresPass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &);
};
// Loads from a local that read what a store earlier in the block put there
// take the stored value, however far apart (LocalForwardingPass.cpp).
class LocalForwardingPass : public llvm::PassInfoMixin<LocalForwardingPass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &);
};
// A memset or memcpy of a constant length: 16-byte loads and stores where
// NVPTX would take 8-byte ones, and wide ones where it would loop over bytes
// (ExpandCopiesPass.cpp).
class ExpandCopiesPass : public llvm::PassInfoMixin<ExpandCopiesPass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &);
};

inline constexpr const char ParamInPlacePassArg[] =
    "nvregalloc-promote-locals-param";
// A local copy of a kernel's by-value parameter that neither is written
// after: read from the parameter instead (ParamInPlacePass.cpp).
// TellKept: a remark for each copy kept, with the reason.
class ReadParamInPlacePass : public llvm::PassInfoMixin<ReadParamInPlacePass> {
  bool TellKept;

public:
  explicit ReadParamInPlacePass(bool TellKept = true) : TellKept(TellKept) {}
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &);
};

inline constexpr const char LocalSelectsPassArg[] =
    "nvregalloc-promote-locals-select";
// A small local indexed by data: each such access becomes a select among
// the elements it may reach, and SROA makes the local scalars
// (LocalSelectsPass.cpp).
class LocalSelectsPass : public llvm::PassInfoMixin<LocalSelectsPass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &);
};

// Makes the new-pass-manager pass PassT known to opt's -passes= as Name, in
// pass managers of type PassManagerT.
template <typename PassManagerT, typename PassT>
void registerPassName(llvm::PassBuilder &Builder, llvm::StringRef Name) {
  Builder.registerPipelineParsingCallback(
      [Name](llvm::StringRef Asked, PassManagerT &PM,
             llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) {
        if (Asked != Name)
          return false;
        PM.addPass(PassT());
        return true;
      });
}

// LLVM's -join-liveintervals (RegisterCoalescer's switch), or null if this
// LLVM has no such option.
llvm::cl::opt<bool> *stockJoiningOption();

} // namespace nvregalloc

#endif

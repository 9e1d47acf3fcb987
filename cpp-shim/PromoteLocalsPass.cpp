//===- PromoteLocalsPass.cpp - nvregalloc-promote-locals ----------------===//
//
// Local arrays into registers, in the middle end (clang -fpass-plugin, opt),
// for NVPTX only, on by default. The core's promote module says why and
// decides; this file finds the facts and applies the verdicts:
// - nvregalloc-promote-locals-calls, a module pass after the early
//   per-function cleanup (SROA has run, so an alloca still there is one whose
//   address escapes or whose offsets vary) and before the inliner: each call
//   that takes a pointer into one of its caller's allocas is reported, with
//   the callee's size and whether it is recursive; the calls the core picks
//   within the caller's budget get the call-site attribute alwaysinline,
//   which LLVM's inliners honour.
// - nvregalloc-promote-locals-loops, a loop pass at the end of loop
//   simplification, right before the full unroller (as nvregalloc-unroll-gate):
//   each loop that addresses an alloca at an offset that varies in the loop
//   is reported with its constant trip count, its size, the array's and
//   whether the array is also indexed by data. With a constant trip count
//   the verdict is per array: llvm.loop.unroll.full where every loop over
//   the array will be unrolled and its address goes nowhere else (SROA,
//   after the unroller, then turns it into scalars; ptxas does, for a
//   small one indexed by data). Where the trip count is not a constant, the
//   innermost loop stepping through the array gets llvm.loop.unroll.disable
//   (NVPTX prints it for ptxas as .pragma "nounroll") and
//   llvm.loop.vectorize.enable=false: one access per iteration, as the
//   source has it.
// - nvregalloc-promote-locals-align, last in the middle end: what is still an
//   alloca then lives in local memory. LLVM aligns it to its type (8 for a
//   double array), so NVPTX's load-store vectorizer cannot join two
//   neighbouring accesses into one 16-byte access as nvcc does. Each is
//   reported with its size, alignment, whether its address goes to a call
//   and whether a loop walks it; the core picks its alignment, and LLVM's InferAlignment, run
//   after it, carries that to the loads and stores.
// The rewrites that serve these are in LocalCopiesPass.cpp.
// A loop or call the source already decides for (unroll pragmas, noinline,
// optnone) keeps its decision. Each verdict is a remark.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "RustBridge.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SCCIterator.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/CallGraph.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/Scalar/InferAlignment.h"
#include "llvm/Transforms/Scalar/LoopPassManager.h"
#include "llvm/Transforms/Utils/LoopUtils.h"

using namespace llvm;

namespace nvregalloc {

/// The function-options choice this pass applies (src/choices.rs).
static const FunctionChoice PromoteOff("promote", "off");

static cl::opt<bool> PromoteLocals(
    "nvregalloc-promote-locals",
    cl::desc("Unroll loops over local arrays and inline calls taking a "
             "local's address, so that the locals become registers "
             "(promote=off in a function-options file: not for that function)"),
    cl::init(true));
static ShowDefault PromoteLocalsDefault(PromoteLocals);

static cl::opt<unsigned> MaxTripCount(
    "nvregalloc-promote-max-trip-count",
    cl::desc("Fully unroll loops over local arrays of at most this many "
             "iterations"),
    cl::init(NVRA_PROMOTE_DEFAULT_MAX_TRIP_COUNT));
static ShowDefault MaxTripCountDefault(MaxTripCount);

static cl::opt<unsigned> MaxUnrolledInsts(
    "nvregalloc-promote-max-unrolled",
    cl::desc("... and of at most this many IR instructions once unrolled"),
    cl::init(NVRA_PROMOTE_DEFAULT_MAX_UNROLLED_INSTS));
static ShowDefault MaxUnrolledInstsDefault(MaxUnrolledInsts);

static cl::opt<uint64_t> MaxArrayBytes(
    "nvregalloc-promote-max-array-bytes",
    cl::desc("... over arrays of at most this many bytes"),
    cl::init(NVRA_PROMOTE_DEFAULT_MAX_ARRAY_BYTES));
static ShowDefault MaxArrayBytesDefault(MaxArrayBytes);

static cl::opt<unsigned> MaxDynamicArrayBytes(
    "nvregalloc-promote-max-dynamic-array-bytes",
    cl::desc("... or, for an array also indexed by data, of at most this "
             "many bytes, which nvregalloc-promote-locals-select then makes "
             "scalars (a runtime loop over one this small at a wrapped "
             "index is not kept rolled)"),
    cl::init(NVRA_PROMOTE_DEFAULT_MAX_DYNAMIC_ARRAY_BYTES));
static ShowDefault MaxDynamicArrayBytesDefault(MaxDynamicArrayBytes);

static cl::opt<unsigned> MaxSelects(
    "nvregalloc-promote-max-selects",
    cl::desc("A local indexed by data becomes scalars when its "
             "data-dependent accesses reach at most this many elements in "
             "all (one select each)"),
    cl::init(NVRA_PROMOTE_DEFAULT_MAX_SELECTS));
static ShowDefault MaxSelectsDefault(MaxSelects);

static cl::opt<unsigned> InlineBudget(
    "nvregalloc-promote-inline-budget",
    cl::desc("IR instructions inlined into one caller for calls taking a "
             "local's address"),
    cl::init(NVRA_PROMOTE_DEFAULT_INLINE_BUDGET));
static ShowDefault InlineBudgetDefault(InlineBudget);

static cl::opt<unsigned> MaxExpandedBytes(
    "nvregalloc-promote-max-expanded-bytes",
    cl::desc("A memset or memcpy of a local longer than NVPTX lowers inline "
             "(64 bytes), and of at most this many bytes, becomes loads and "
             "stores as wide as its alignment instead of a byte loop"),
    cl::init(NVRA_PROMOTE_DEFAULT_MAX_EXPANDED_BYTES));
static ShowDefault MaxExpandedBytesDefault(MaxExpandedBytes);

bool promotesLocals(const Function &F) {
  return PromoteLocals && F.getParent()->getTargetTriple().isNVPTX() &&
         !PromoteOff.isMadeFor(F);
}

NvraPromoteLimits promoteLimits() {
  NvraPromoteLimits L{};
  L.max_trip_count = MaxTripCount;
  L.max_unrolled_insts = MaxUnrolledInsts;
  L.max_array_bytes = MaxArrayBytes;
  L.inline_budget = InlineBudget;
  L.max_dynamic_array_bytes = MaxDynamicArrayBytes;
  L.max_selects = MaxSelects;
  L.max_expanded_bytes = MaxExpandedBytes;
  return L;
}

const AllocaInst *localArray(const Value *Ptr, const Function &F,
                             uint64_t &Bytes) {
  const auto *Alloca = dyn_cast<AllocaInst>(getUnderlyingObject(Ptr));
  if (!Alloca || Alloca->getFunction() != &F)
    return nullptr;
  std::optional<TypeSize> Size =
      Alloca->getAllocationSize(F.getDataLayout());
  if (!Size || Size->isScalable())
    return nullptr;
  Bytes = Size->getFixedValue();
  return Alloca;
}

bool variesInLoop(const Value *Ptr, const AllocaInst &Alloca,
                  ScalarEvolution &SE) {
  const SCEV *Offset =
      SE.getMinusSCEV(SE.getSCEV(const_cast<Value *>(Ptr)),
                      SE.getSCEV(const_cast<AllocaInst *>(&Alloca)));
  // No expression (a phi or select of pointers): no recurrence either.
  return !isa<SCEVCouldNotCompute>(Offset) &&
         SCEVExprContains(
             Offset, [](const SCEV *S) { return isa<SCEVAddRecExpr>(S); });
}

namespace {
constexpr const char CallsPassArg[] = "nvregalloc-promote-locals-calls";
constexpr const char LoopsPassArg[] = "nvregalloc-promote-locals-loops";
constexpr const char AlignPassArg[] = "nvregalloc-promote-locals-align";

/// The memory operands of \p I: a load's or store's address, a memory
/// intrinsic's destination and source.
SmallVector<const Value *, 2> addresses(const Instruction &I) {
  if (const auto *Load = dyn_cast<LoadInst>(&I))
    return {Load->getPointerOperand()};
  if (const auto *Store = dyn_cast<StoreInst>(&I))
    return {Store->getPointerOperand()};
  if (const auto *Transfer = dyn_cast<MemTransferInst>(&I))
    return {Transfer->getRawDest(), Transfer->getRawSource()};
  if (const auto *Set = dyn_cast<MemSetInst>(&I))
    return {Set->getRawDest()};
  return {};
}

class PromoteLocalsCallsPass : public PassInfoMixin<PromoteLocalsCallsPass> {
public:
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    if (!PromoteLocals || !M.getTargetTriple().isNVPTX())
      return PreservedAnalyses::all();
    // A function in a call-graph cycle can reach itself: inlining it for
    // its caller would not end.
    // Callees before their callers (the call graph's post-order), so that
    // a callee's size is known as it will be once the calls it inlines for
    // its own locals are in it: call sites marked always-inline stay so in
    // every copy the inliner makes of them, so inlining a callee brings
    // what it inlines too.
    CallGraph Graph(M);
    SmallPtrSet<const Function *, 8> Recursive;
    SmallVector<Function *, 32> CalleesFirst;
    for (auto SCC = scc_begin(&Graph); !SCC.isAtEnd(); ++SCC)
      for (const CallGraphNode *Node : *SCC)
        if (Function *F = Node->getFunction()) {
          CalleesFirst.push_back(F);
          if (SCC.hasCycle())
            Recursive.insert(F);
        }
    DenseMap<const Function *, unsigned> Grown;
    auto SizeOf = [&](const Function &F) {
      auto It = Grown.find(&F);
      return It == Grown.end() ? F.getInstructionCount() : It->second;
    };

    NvraPromoteLimits Limits = promoteLimits();
    bool Changed = false;
    for (Function *CallerPtr : CalleesFirst) {
      Function &Caller = *CallerPtr;
      if (Caller.isDeclaration() || !promotesLocals(Caller))
        continue;
      SmallVector<CallBase *, 8> Sites;
      SmallVector<NvraLocalCall, 8> Facts;
      SmallVector<uint64_t, 8> SiteBytes;
      for (Instruction &I : instructions(Caller)) {
        auto *Call = dyn_cast<CallBase>(&I);
        Function *Callee = Call ? Call->getCalledFunction() : nullptr;
        if (!Callee || Callee->isDeclaration() ||
            Callee->hasFnAttribute(Attribute::NoInline) ||
            Callee->hasFnAttribute(Attribute::OptimizeNone) ||
            Call->hasFnAttr(Attribute::AlwaysInline) ||
            Call->isNoInline())
          continue;
        uint64_t Bytes = 0, Largest = 0;
        for (const Use &Arg : Call->args())
          if (Arg->getType()->isPointerTy() &&
              localArray(Arg.get(), Caller, Bytes))
            Largest = std::max(Largest, Bytes);
        if (Largest == 0)
          continue;
        Sites.push_back(Call);
        SiteBytes.push_back(Largest);
        NvraLocalCall Fact{};
        Fact.callee_insts = SizeOf(*Callee);
        Fact.recursive = Recursive.contains(Callee) || Callee == &Caller;
        Facts.push_back(Fact);
      }
      if (Sites.empty())
        continue;
      SmallVector<uint32_t, 8> Verdicts(Sites.size());
      nvra_choose_local_calls(NVRA_ABI_VERSION, &Limits, Facts.data(),
                              Facts.size(), Verdicts.data());
      unsigned Before = Caller.getInstructionCount(), Added = 0;
      for (size_t I = 0; I != Sites.size(); ++I)
        if (Verdicts[I] == NVRA_CALL_INLINE)
          Added += Facts[I].callee_insts;
      Grown[&Caller] = Before + Added;
      for (size_t I = 0; I != Sites.size(); ++I) {
        CallBase &Call = *Sites[I];
        StringRef Callee = Call.getCalledFunction()->getName();
        if (Verdicts[I] == NVRA_CALL_INLINE) {
          Call.addFnAttr(Attribute::AlwaysInline);
          Changed = true;
          M.getContext().diagnose(
              OptimizationRemark(CallsPassArg, "InlineForLocal", &Call)
              << "call to " << Callee << " takes a local's address ("
              << ore::NV("LocalBytes", SiteBytes[I]) << " bytes): inlined ("
              << ore::NV("CalleeInsts", Facts[I].callee_insts)
              << " instructions; caller " << ore::NV("CallerBefore", Before)
              << " -> about " << ore::NV("CallerAfter", Before + Added) << ")");
        } else {
          std::string Why =
              Verdicts[I] == NVRA_CALL_RECURSIVE
                  ? "recursive"
                  : "over the caller's budget of " +
                        std::to_string(InlineBudget) + " instructions";
          M.getContext().diagnose(
              OptimizationRemarkMissed(CallsPassArg, "InlineForLocal", &Call)
              << "call to " << Callee << " takes a local's address ("
              << ore::NV("LocalBytes", SiteBytes[I]) << " bytes): left to LLVM ("
              << Why << ")");
        }
      }
    }
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
};

/// IR instructions in the blocks of \p L, inner loops' included once.
uint64_t instructionsIn(const Loop &L) {
  uint64_t Size = 0;
  for (const BasicBlock *BB : L.blocks())
    Size += BB->size();
  return Size;
}

/// IR instructions of one iteration of \p L, inner loops with a constant
/// trip count counted that many times.
uint64_t iterationSize(const Loop &L, ScalarEvolution &SE) {
  uint64_t Size = instructionsIn(L);
  for (const Loop *Inner : L.getSubLoops()) {
    unsigned Trips = std::max(SE.getSmallConstantTripCount(Inner), 1u);
    Size += iterationSize(*Inner, SE) * Trips - instructionsIn(*Inner);
  }
  return Size;
}

/// The core's verdict on fully unrolling \p L for a \p ArrayBytes local
/// array; \p Facts gets what it was told.
uint32_t judgeLoop(const Loop &L, ScalarEvolution &SE, uint64_t ArrayBytes,
                   bool DataDependent, NvraLocalLoop &Facts) {
  Facts = NvraLocalLoop{};
  Facts.dynamic_index = DataDependent;
  Facts.trip_count = SE.getSmallConstantTripCount(&L);
  uint64_t Size = iterationSize(L, SE);
  Facts.body_insts = Size > UINT32_MAX ? UINT32_MAX : Size;
  Facts.array_bytes = ArrayBytes;
  NvraPromoteLimits Limits = promoteLimits();
  return nvra_judge_local_loop(NVRA_ABI_VERSION, &Limits, &Facts);
}

/// Whether \p L will be unrolled fully: the source asks for it, or the
/// core would mark it (as it will when the loop pass reaches it; whether an
/// index is data-dependent is judged once, for the whole array).
bool unrollsFully(const Loop &L, ScalarEvolution &SE, uint64_t ArrayBytes) {
  TransformationMode Mode = hasUnrollTransformation(&L);
  if (Mode != TM_Unspecified)
    return Mode == TM_ForcedByUser &&
           getBooleanLoopAttribute(&L, "llvm.loop.unroll.full");
  NvraLocalLoop Facts;
  return judgeLoop(L, SE, ArrayBytes, false, Facts) == NVRA_LOOP_FULL_UNROLL;
}

/// What unrolling makes of an offset into a local array, worst last.
enum class Offset { Constant, DataDependent, Rolled };

Offset worse(Offset A, Offset B) { return A > B ? A : B; }

/// What \p At becomes once the loops it varies in are unrolled fully: a
/// constant where it is built from constants and affine recurrences with
/// constant steps, each of a loop that will be unrolled fully; rolled where
/// one of those loops will not be.
Offset onceUnrolled(const SCEV *At, ScalarEvolution &SE, uint64_t ArrayBytes) {
  if (isa<SCEVConstant>(At))
    return Offset::Constant;
  if (const auto *Rec = dyn_cast<SCEVAddRecExpr>(At)) {
    if (!Rec->isAffine() || !isa<SCEVConstant>(Rec->getStepRecurrence(SE)) ||
        !unrollsFully(*Rec->getLoop(), SE, ArrayBytes))
      return Offset::Rolled;
    return onceUnrolled(Rec->getStart(), SE, ArrayBytes);
  }
  if (isa<SCEVAddExpr, SCEVMulExpr, SCEVCastExpr>(At)) {
    Offset Result = Offset::Constant;
    for (const SCEV *Op : At->operands())
      Result = worse(Result, onceUnrolled(Op, SE, ArrayBytes));
    return Result;
  }
  return Offset::DataDependent;
}

/// What unrolling makes of every access to \p Alloca (\p Bytes long);
/// rolled also where its address goes anywhere but loads, stores and
/// memory intrinsics. All constant is what SROA needs to make the array
/// scalars; data-dependent, what ptxas needs to do it for a small one. A
/// loop over the array that stays rolled keeps it in memory, and unrolling
/// the others would buy nothing.
Offset accessesOnceUnrolled(const AllocaInst &Alloca, uint64_t Bytes,
                            ScalarEvolution &SE) {
  SmallVector<const Value *, 16> Work{&Alloca};
  SmallPtrSet<const Value *, 16> Seen{&Alloca};
  const SCEV *Base = SE.getSCEV(const_cast<AllocaInst *>(&Alloca));
  auto At = [&](const Value *Ptr) {
    const SCEV *Offset =
        SE.getMinusSCEV(SE.getSCEV(const_cast<Value *>(Ptr)), Base);
    return isa<SCEVCouldNotCompute>(Offset) ? Offset::DataDependent
                                            : onceUnrolled(Offset, SE, Bytes);
  };
  Offset Result = Offset::Constant;
  while (!Work.empty() && Result != Offset::Rolled) {
    const Value *Ptr = Work.pop_back_val();
    for (const User *U : Ptr->users()) {
      if (isa<GetElementPtrInst, BitCastInst, AddrSpaceCastInst, PHINode,
              SelectInst>(U)) {
        if (Seen.insert(U).second)
          Work.push_back(U);
        continue;
      }
      if (const auto *Load = dyn_cast<LoadInst>(U)) {
        Result = worse(Result, Load->isSimple() ? At(Ptr) : Offset::Rolled);
        continue;
      }
      if (const auto *Store = dyn_cast<StoreInst>(U)) {
        bool Plain = Store->isSimple() && Store->getValueOperand() != Ptr;
        Result = worse(Result, Plain ? At(Ptr) : Offset::Rolled);
        continue;
      }
      if (const auto *Intrinsic = dyn_cast<IntrinsicInst>(U)) {
        if (Intrinsic->isLifetimeStartOrEnd() || Intrinsic->isDroppable())
          continue;
        if (isa<MemIntrinsic>(Intrinsic)) {
          Result = worse(Result, At(Ptr));
          continue;
        }
      }
      return Offset::Rolled; // an escape: a call, ptrtoint, a compare, ...
    }
  }
  return Result;
}

/// Whether \p Ptr is computed in \p L from loop-invariant values and the
/// previous iteration's values (header phis) alone, never from anything
/// the loop reads from memory: a constant stride, or an index no affine
/// recurrence describes, such as a circular buffer's wrapped one.
bool computedFromIterations(const Value *Ptr, const Loop &L) {
  SmallVector<const Value *, 16> Work{Ptr};
  SmallPtrSet<const Value *, 16> Seen{Ptr};
  while (!Work.empty()) {
    const auto *I = dyn_cast<Instruction>(Work.pop_back_val());
    if (!I || !L.contains(I))
      continue;
    if (I->mayReadOrWriteMemory())
      return false;
    for (const Value *Op : I->operands())
      if (Seen.insert(Op).second)
        Work.push_back(Op);
  }
  return true;
}

class PromoteLocalsLoopsPass : public PassInfoMixin<PromoteLocalsLoopsPass> {
public:
  PreservedAnalyses run(Loop &L, LoopAnalysisManager &,
                        LoopStandardAnalysisResults &AR, LPMUpdater &) {
    Function &F = *L.getHeader()->getParent();
    if (hasUnrollTransformation(&L) != TM_Unspecified || !promotesLocals(F))
      return PreservedAnalyses::all();
    // The arrays the loop addresses at an offset that varies in it. With a
    // constant trip count: those that unrolling makes scalars (the others,
    // kept in memory whatever the loop does, only for the remark). Without
    // one: those it addresses in its own blocks (not an inner loop's) at an
    // offset computed from the previous iteration's alone, a constant
    // stride or a wrapped index, each copy of which runtime unrolling,
    // vectorizing or ptxas's own unrolling makes another local access.
    // Not an offset read from memory: a lookup in a table, often on a path
    // seldom taken (libdevice's sine reduction inside geodesic's and mriQ's
    // main loops), for which keeping the whole loop rolled is a blind trade.
    bool Constant = AR.SE.getSmallConstantTripCount(&L) != 0;
    SmallPtrSet<AllocaInst *, 4> Arrays, Judged;
    uint64_t Largest = 0, LargestKept = 0;
    bool DataDependent = false, Strided = false;
    for (BasicBlock *BB : L.blocks())
      for (const Instruction &I : *BB)
        for (const Value *Ptr : addresses(I)) {
          uint64_t Bytes = 0;
          auto *Alloca =
              const_cast<AllocaInst *>(localArray(Ptr, F, Bytes));
          const SCEV *At = Alloca ? AR.SE.getSCEV(const_cast<Value *>(Ptr))
                                  : nullptr;
          if (!Alloca || Arrays.contains(Alloca) ||
              AR.SE.isLoopInvariant(At, &L))
            continue;
          if (Constant) {
            if (!Judged.insert(Alloca).second)
              continue;
            Offset Once = accessesOnceUnrolled(*Alloca, Bytes, AR.SE);
            if (Once != Offset::Rolled) {
              Arrays.insert(Alloca);
              Largest = std::max(Largest, Bytes);
              DataDependent |= Once == Offset::DataDependent;
            } else {
              LargestKept = std::max(LargestKept, Bytes);
            }
            continue;
          }
          if (AR.LI.getLoopFor(BB) != &L)
            continue;
          const auto *Rec = dyn_cast<SCEVAddRecExpr>(At);
          bool Stride = Rec && Rec->getLoop() == &L &&
                        isa<SCEVConstant>(Rec->getStepRecurrence(AR.SE));
          if (Stride || computedFromIterations(Ptr, L)) {
            Arrays.insert(Alloca);
            Largest = std::max(Largest, Bytes);
            Strided |= Stride;
          }
        }
    // Without a constant trip count, what the core calls indexed by data:
    // every array kept rolled for is at a wrapped index, none at a stride.
    if (!Constant)
      DataDependent = !Strided;
    // Only arrays that stay in memory whatever this loop does: the remark
    // says why, the loop's own limits first.
    bool OnlyKept = Arrays.empty();
    if (OnlyKept && LargestKept == 0)
      return PreservedAnalyses::all();
    if (OnlyKept)
      Largest = LargestKept;
    NvraLocalLoop Facts;
    uint32_t Verdict = judgeLoop(L, AR.SE, Largest, DataDependent, Facts);

    LLVMContext &Context = F.getContext();
    // "function F: loop over an N-byte local array, T iterations of S
    // instructions: ", what the unroll remarks begin with.
    auto Described = [&](auto Remark) {
      Remark << "function " << F.getName() << ": loop over a "
             << ore::NV("ArrayBytes", Largest) << "-byte local array, ";
      if (Facts.trip_count == 0)
        Remark << "a trip count that is not a constant: ";
      else
        Remark << ore::NV("TripCount", Facts.trip_count) << " iterations of "
               << ore::NV("IterationInsts", Facts.body_insts)
               << " instructions: ";
      return Remark;
    };
    if (OnlyKept && Verdict == NVRA_LOOP_FULL_UNROLL) {
      Context.diagnose(
          OptimizationRemarkMissed(LoopsPassArg, "UnrollForLocal",
                                   L.getStartLoc(), L.getHeader())
          << "function " << F.getName() << ": loop over a "
          << ore::NV("ArrayBytes", Largest)
          << "-byte local array: left to LLVM (the array stays in memory: "
             "another access to it varies in a loop that stays rolled, or "
             "is data-dependent, or its address escapes)");
      return PreservedAnalyses::all();
    }
    auto Mark = [&](StringRef Name, Metadata *Value) {
      SmallVector<Metadata *, 2> Operands{MDString::get(Context, Name)};
      if (Value)
        Operands.push_back(Value);
      return MDNode::get(Context, Operands);
    };
    switch (Verdict) {
    case NVRA_LOOP_FULL_UNROLL: {
      MDNode *Full = Mark("llvm.loop.unroll.full", nullptr);
      L.setLoopID(makePostTransformationMetadata(Context, L.getLoopID(), {},
                                                 {Full}));
      Context.diagnose(
          Described(OptimizationRemark(LoopsPassArg, "UnrollForLocal",
                                       L.getStartLoc(), L.getHeader()))
          << "unrolled fully (about "
          << ore::NV("UnrolledInsts",
                     uint64_t(Facts.trip_count) * Facts.body_insts)
          << " instructions)");
      break;
    }
    case NVRA_LOOP_KEEP_WIDE: {
      Metadata *False = ConstantAsMetadata::get(
          ConstantInt::getFalse(Context));
      MDNode *Marks[] = {Mark("llvm.loop.unroll.disable", nullptr),
                         Mark("llvm.loop.vectorize.enable", False)};
      L.setLoopID(
          makePostTransformationMetadata(Context, L.getLoopID(), {}, Marks));
      Context.diagnose(OptimizationRemark(LoopsPassArg, "KeepLocalWide",
                                          L.getStartLoc(), L.getHeader())
                       << "function " << F.getName()
                       << ": loop over a local array with a trip count that "
                          "is not a constant: left rolled, one access per "
                          "iteration (no unrolling or vectorizing)");
      break;
    }
    default:
      Context.diagnose(
          Described(OptimizationRemarkMissed(LoopsPassArg, "UnrollForLocal",
                                             L.getStartLoc(), L.getHeader()))
          << "left to LLVM ("
          << (Verdict == NVRA_LOOP_TOO_MANY_TRIPS ? "too many iterations"
              : Verdict == NVRA_LOOP_ARRAY_TOO_BIG
                  ? "array too big for registers"
          : Verdict == NVRA_LOOP_DYNAMIC_INDEX
              ? "array indexed by data, too big for ptxas to keep in "
                "registers"
          : Verdict == NVRA_LOOP_SMALL_DYNAMIC_INDEX
              ? "a small array at an index no unrolling makes constant: it "
                "may yet become registers"
              : "too big once unrolled")
          << ")");
      return PreservedAnalyses::all();
    }
    // Loop metadata and an alloca's alignment are no analysis's input.
    return PreservedAnalyses::all();
  }
};
/// Whether \p Alloca's address goes to a call (not a memory intrinsic or a
/// lifetime marker), is stored or turned into an integer: it then stays in
/// memory whatever ptxas does.
bool addressEscapes(const AllocaInst &Alloca) {
  SmallVector<const Value *, 8> Work{&Alloca};
  SmallPtrSet<const Value *, 8> Seen{&Alloca};
  while (!Work.empty()) {
    const Value *Ptr = Work.pop_back_val();
    for (const User *U : Ptr->users()) {
      if (const auto *Call = dyn_cast<CallBase>(U)) {
        if (!isa<MemIntrinsic>(Call) && !Call->isLifetimeStartOrEnd())
          return true;
      } else if (const auto *Store = dyn_cast<StoreInst>(U)) {
        if (Store->getValueOperand() == Ptr)
          return true;
      } else if (isa<PtrToIntInst>(U)) {
        return true;
      } else if (isa<GetElementPtrInst, CastInst, PHINode, SelectInst>(U) &&
                 Seen.insert(U).second) {
        Work.push_back(U);
      }
    }
  }
  return false;
}

/// The allocas of \p F some access to which is at an offset that varies in
/// a loop (an add recurrence, as ScalarEvolution sees it).
SmallPtrSet<const AllocaInst *, 8> walkedInLoops(Function &F,
                                                 ScalarEvolution &SE) {
  SmallPtrSet<const AllocaInst *, 8> Walked;
  for (const Instruction &I : instructions(F))
    for (const Value *Ptr : addresses(I)) {
      const auto *Alloca = dyn_cast<AllocaInst>(getUnderlyingObject(Ptr));
      if (!Alloca || Walked.contains(Alloca))
        continue;
      if (variesInLoop(Ptr, *Alloca, SE))
        Walked.insert(Alloca);
    }
  return Walked;
}

class PromoteLocalsAlignPass : public PassInfoMixin<PromoteLocalsAlignPass> {
public:
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &FAM) {
    if (!promotesLocals(F))
      return PreservedAnalyses::all();
    SmallPtrSet<const AllocaInst *, 8> Walked =
        walkedInLoops(F, FAM.getResult<ScalarEvolutionAnalysis>(F));
    NvraPromoteLimits Limits = promoteLimits();
    for (Instruction &I : instructions(F)) {
      auto *Alloca = dyn_cast<AllocaInst>(&I);
      uint64_t Bytes = 0;
      if (!Alloca || !localArray(Alloca, F, Bytes))
        continue;
      NvraLocalSlot Slot{};
      Slot.bytes = Bytes;
      Slot.align = Alloca->getAlign().value();
      Slot.address_escapes = addressEscapes(*Alloca);
      Slot.varies_in_loop = Walked.contains(Alloca);
      uint64_t Wanted = nvra_local_alignment(NVRA_ABI_VERSION, &Limits, &Slot);
      if (Wanted <= Slot.align || !isPowerOf2_64(Wanted))
        continue;
      Alloca->setAlignment(Align(Wanted));
      F.getContext().diagnose(
          OptimizationRemark(AlignPassArg, "AlignLocal", Alloca)
          << "function " << F.getName() << ": local of "
          << ore::NV("Bytes", Bytes) << " bytes aligned to "
          << ore::NV("Align", Wanted) << " (was "
          << ore::NV("Was", Slot.align) << ") for 16-byte accesses");
    }
    // Only alignments change, which no analysis reads.
    return PreservedAnalyses::all();
  }
};
} // namespace

void registerPromoteLocals(PassBuilder &Builder) {
  registerPassName<FunctionPassManager, TypedCopiesPass>(Builder,
                                                         TypedCopiesPassArg);
  registerPassName<FunctionPassManager, DeadByvalStoresPass>(
      Builder, DeadByvalStoresPassArg);
  registerPassName<FunctionPassManager, PromoteLocalsAlignPass>(
      Builder, AlignPassArg);
  registerPassName<FunctionPassManager, LocalForwardingPass>(
      Builder, LocalForwardingPassArg);
  registerPassName<FunctionPassManager, ExpandLocalCopiesPass>(
      Builder, ExpandLocalCopiesPassArg);
  registerPassName<FunctionPassManager, LocalSelectsPass>(
      Builder, LocalSelectsPassArg);

  registerPassName<ModulePassManager, PromoteLocalsCallsPass>(Builder,
                                                              CallsPassArg);
  registerPassName<LoopPassManager, PromoteLocalsLoopsPass>(Builder,
                                                            LoopsPassArg);
  Builder.registerPipelineEarlySimplificationEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel Level, ThinOrFullLTOPhase) {
        if (Level != OptimizationLevel::O0) {
          MPM.addPass(createModuleToFunctionPassAdaptor(TypedCopiesPass()));
          MPM.addPass(PromoteLocalsCallsPass());
        }
      });
  Builder.registerLateLoopOptimizationsEPCallback(
      [](LoopPassManager &LPM, OptimizationLevel) {
        LPM.addPass(PromoteLocalsLoopsPass());
      });
  Builder.registerScalarOptimizerLateEPCallback(
      [](FunctionPassManager &FPM, OptimizationLevel) {
        FPM.addPass(LocalForwardingPass());
      });
  Builder.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel Level, ThinOrFullLTOPhase) {
        if (Level == OptimizationLevel::O0)
          return;
        FunctionPassManager Last;
        Last.addPass(DeadByvalStoresPass());
        Last.addPass(LocalSelectsPass());
        Last.addPass(PromoteLocalsAlignPass());
        Last.addPass(InferAlignmentPass());
        Last.addPass(ExpandLocalCopiesPass());
        MPM.addPass(createModuleToFunctionPassAdaptor(std::move(Last)));
      });
}

} // namespace nvregalloc

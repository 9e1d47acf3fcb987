//===- LocalLoopsPass.cpp - nvregalloc-promote-locals-loops -------------===//
//
// Part of nvregalloc-promote-locals (PromoteLocalsPass.cpp), for NVPTX only,
// off with it. A loop pass at the end of loop simplification, right before
// the full unroller (as nvregalloc-unroll-gate). For each loop that
// addresses a local array (an alloca) at an offset that varies in it, the
// shim describes the function's loop nest and every access to each such
// array: which loops' counters step its offset, whether data decides it,
// which loops it varies in, whether the array's address escapes. The core
// plans per array what it will become (promote::nest) and gives this loop's
// verdict:
// - llvm.loop.unroll.full where the loop's counter steps an offset into an
//   array that becomes registers once the planned loops are unrolled (SROA,
//   after the unroller, splits it; promote-locals-select makes selects of
//   what data still indexes);
// - for a runtime trip count over an array that stays in memory,
//   llvm.loop.unroll.disable (NVPTX prints it for ptxas as
//   .pragma "nounroll") and llvm.loop.vectorize.enable=false: one access
//   per iteration, as the source has it;
// - else nothing: LLVM decides, and the remark says why.
// Loops are visited innermost first, so an outer loop is judged once its
// inner loops are unrolled. A loop the source already decides for (unroll
// pragmas) keeps its decision.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "PointerUses.h"
#include "RustBridge.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/CodeMetrics.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/ConstantRange.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Metadata.h"
#include "llvm/Support/KnownBits.h"
#include "llvm/Transforms/Scalar/LoopPassManager.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/UnrollLoop.h"

using namespace llvm;

namespace nvregalloc {
namespace {

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

/// The known bits of \p S with each recurrence in it at its start: an
/// offset in each copy, once the loops stepping it are unrolled, less the
/// constant the copy adds.
KnownBits knownAtStart(const SCEV *S, const DataLayout &DL) {
  unsigned Bits = S->getType()->getScalarSizeInBits();
  if (const auto *Constant = dyn_cast<SCEVConstant>(S))
    return KnownBits::makeConstant(Constant->getAPInt());
  if (const auto *Rec = dyn_cast<SCEVAddRecExpr>(S))
    return knownAtStart(Rec->getStart(), DL);
  if (const auto *Unknown = dyn_cast<SCEVUnknown>(S))
    return computeKnownBits(Unknown->getValue(), DL);
  if (const auto *Cast = dyn_cast<SCEVCastExpr>(S)) {
    KnownBits Inner = knownAtStart(Cast->getOperand(0), DL);
    if (isa<SCEVZeroExtendExpr>(S))
      return Inner.zext(Bits);
    if (isa<SCEVSignExtendExpr>(S))
      return Inner.sext(Bits);
    if (isa<SCEVTruncateExpr>(S))
      return Inner.trunc(Bits);
    return KnownBits(Bits);
  }
  if (isa<SCEVAddExpr, SCEVMulExpr>(S)) {
    KnownBits Result = knownAtStart(S->operands().front(), DL);
    for (const SCEV *Op : S->operands().drop_front())
      Result = isa<SCEVAddExpr>(S) ? KnownBits::add(Result, knownAtStart(Op, DL))
                                   : KnownBits::mul(Result, knownAtStart(Op, DL));
    return Result;
  }
  return KnownBits(Bits);
}

/// The facts of a function's loop nest over the local arrays one loop
/// addresses, laid out as NvraNest.
class NestFacts {
  ScalarEvolution &SE;
  LoopInfo &LI;
  const TargetTransformInfo &TTI;
  AssumptionCache &AC;
  const Loop &Judged;
  bool RuntimeTrips;
  DenseMap<const Loop *, uint32_t> Index;
  SmallVector<NvraNestLoop, 16> Loops;
  SmallVector<NvraNestArray, 4> Arrays;
  SmallVector<NvraNestAccess, 32> Accesses;
  SmallVector<uint32_t, 32> StepLoops;

  /// \p L's place among the loops described, described first when it is
  /// not yet (its parent before it): only the loops the arrays' accesses
  /// name, and those around them, are.
  uint32_t indexOf(const Loop *L) {
    if (!L)
      return NVRA_NONE;
    if (auto It = Index.find(L); It != Index.end())
      return It->second;
    NvraNestLoop Facts{};
    Facts.parent = indexOf(L->getParentLoop());
    Facts.trip_count = SE.getSmallConstantTripCount(L);
    Facts.max_trip_count =
        Facts.trip_count ? 0 : SE.getSmallConstantMaxTripCount(L);
    uint64_t Size = iterationSize(*L, SE);
    Facts.iteration_insts = Size > UINT32_MAX ? UINT32_MAX : Size;
    // One iteration as LLVM's unrollers cost it (TargetTransformInfo's code
    // size, free casts and GEPs not counted), less the latch's compare and
    // branch, which unrolling drops.
    SmallPtrSet<const Value *, 32> Ephemeral;
    CodeMetrics::collectEphemeralValues(L, &AC, Ephemeral);
    UnrollCostEstimator Cost(L, TTI, Ephemeral, /*BEInsns=*/2);
    Facts.llvm_iteration_cost =
        std::min<uint64_t>(Cost.getRolledLoopSize(), UINT32_MAX);
    Facts.source = sourceUnroll(*L);
    uint32_t Own = Loops.size();
    Index[L] = Own;
    Loops.push_back(Facts);
    return Own;
  }

  /// What \p At, an offset from a local, is once the loops whose counters
  /// step it by constants are unrolled (an NvraOffsetBase); those loops go
  /// to StepLoops.
  uint32_t classify(const SCEV *At) {
    if (isa<SCEVConstant>(At))
      return NVRA_OFFSET_CONSTANT;
    if (const auto *Rec = dyn_cast<SCEVAddRecExpr>(At)) {
      if (!Rec->isAffine() || !isa<SCEVConstant>(Rec->getStepRecurrence(SE)))
        return NVRA_OFFSET_ROLLED;
      StepLoops.push_back(indexOf(Rec->getLoop()));
      return classify(Rec->getStart());
    }
    if (isa<SCEVAddExpr, SCEVMulExpr, SCEVCastExpr>(At)) {
      uint32_t Base = NVRA_OFFSET_CONSTANT;
      for (const SCEV *Op : At->operands())
        Base = std::max(Base, classify(Op));
      return Base;
    }
    return NVRA_OFFSET_DATA;
  }

  void addAccess(const PointerUse &Use, AllocaInst &Local, uint64_t Bytes,
                 uint32_t Array) {
    Instruction *I = Use.user();
    const Loop *Innermost = LI.getLoopFor(I->getParent());
    NvraNestAccess Facts{};
    Facts.array = Array;
    Facts.innermost = indexOf(Innermost);
    Facts.writes = Use.What == PointerUse::Write;
    const SCEV *Ptr = SE.getSCEV(Use.pointer());
    const SCEV *At = SE.getMinusSCEV(Ptr, SE.getSCEV(&Local));
    Facts.first_step = StepLoops.size();
    Facts.base = isa<SCEVCouldNotCompute>(At) ? uint32_t(NVRA_OFFSET_DATA)
                                              : classify(At);
    Facts.n_steps = StepLoops.size() - Facts.first_step;
    // An offset that cannot be computed (a phi of pointers): the pointer's
    // own variation stands for it.
    const SCEV *Varying = isa<SCEVCouldNotCompute>(At) ? Ptr : At;
    Facts.deepest_varying = NVRA_NONE;
    for (const Loop *L = Innermost; L; L = L->getParentLoop())
      if (!SE.isLoopInvariant(Varying, L)) {
        Facts.deepest_varying = indexOf(L);
        break;
      }
    // Only the loop judged asks it, of the accesses in its own body, and
    // only without a constant trip count: each answer walks the loop.
    Facts.from_iterations = Innermost == &Judged && RuntimeTrips &&
                            computedFromIterations(Use.pointer(), Judged);
    const DataLayout &DL = Local.getDataLayout();
    uint64_t Size = 0;
    if (auto *Load = dyn_cast<LoadInst>(I))
      Size = DL.getTypeStoreSize(Load->getType());
    else if (auto *Store = dyn_cast<StoreInst>(I))
      Size = DL.getTypeStoreSize(Store->getValueOperand()->getType());
    Facts.elements = Size ? std::max<uint64_t>(Bytes / Size, 1) : Bytes;
    Facts.copy_elements = Facts.elements;
    if (!isa<SCEVCouldNotCompute>(At) && At->getType()->isIntegerTy() && Size) {
      ConstantRange Any =
          ConstantRange::getFull(SE.getTypeSizeInBits(At->getType()));
      Facts.copy_elements = std::max<uint64_t>(
          elementsAgreeing(knownAtStart(At, DL), Any, Size, Bytes).size(), 1);
    }
    Accesses.push_back(Facts);
  }

public:
  /// The facts \p Judged's verdict is made from.
  NestFacts(LoopStandardAnalysisResults &AR, const Loop &Judged)
      : SE(AR.SE), LI(AR.LI), TTI(AR.TTI), AC(AR.AC), Judged(Judged),
        RuntimeTrips(SE.getSmallConstantTripCount(&Judged) == 0) {}

  uint32_t loopIndex(const Loop &L) { return indexOf(&L); }

  /// \p Local (\p Bytes long) as an array of the nest, with every access
  /// to it.
  void addArray(AllocaInst &Local, uint64_t Bytes) {
    uint32_t Array = Arrays.size();
    NvraNestArray Facts{};
    Facts.bytes = Bytes;
    bool Complete = walkPointerUses(Local, [&](const PointerUse &Use) {
      switch (Use.What) {
      case PointerUse::Read:
      case PointerUse::Write:
        if (!Use.Simple)
          Facts.escapes = true;
        else
          addAccess(Use, Local, Bytes, Array);
        break;
      case PointerUse::Escape:
        Facts.escapes = true;
        break;
      case PointerUse::Derive:
      case PointerUse::Merge:
      case PointerUse::CastSpace:
      case PointerUse::Marker:
        break;
      }
      return true;
    });
    Facts.escapes |= !Complete;
    Arrays.push_back(Facts);
  }

  NvraNest nest() const {
    NvraNest N{};
    N.loops = Loops.data();
    N.n_loops = Loops.size();
    N.arrays = Arrays.data();
    N.n_arrays = Arrays.size();
    N.accesses = Accesses.data();
    N.n_accesses = Accesses.size();
    N.step_loops = StepLoops.data();
    N.n_step_loops = StepLoops.size();
    return N;
  }

  const NvraNestLoop &loop(uint32_t I) const { return Loops[I]; }
  const NvraNestArray &array(uint32_t I) const { return Arrays[I]; }
};

/// Why a loop is left to LLVM, for its remark.
const char *whyLeft(uint32_t Verdict) {
  switch (Verdict) {
  case NVRA_LOOP_NOT_NEEDED:
    return "the array's offsets vary with inner loops or with data only, "
           "and it becomes registers without unrolling this loop";
  case NVRA_LOOP_ROLLED_FOR_SELECTS:
    return "its iterations are long beside the selects that make the array "
           "registers with the loop rolled "
           "(-nvregalloc-promote-rolled-insts-per-select)";
  case NVRA_LOOP_BECOMES_REGISTERS:
    return "the array becomes registers all the same, by selects: kept "
           "rolled, the loop would buy nothing";
  case NVRA_LOOP_TOO_MANY_TRIPS:
    return "too many iterations";
  case NVRA_LOOP_UNROLLED_TOO_BIG:
    return "too big once unrolled";
  case NVRA_LOOP_ARRAY_TOO_BIG:
    return "array over the bytes promoted for "
           "(-nvregalloc-promote-max-array-bytes, or promote=small)";
  case NVRA_LOOP_INDEXED_BY_DATA:
    return "the array is indexed by data, and no rewrite makes it registers";
  default:
    return "the array stays in memory: another loop over it stays rolled, "
           "or the source keeps one so, or its address escapes";
  }
}

class PromoteLocalsLoopsPass
    : public PassInfoMixin<PromoteLocalsLoopsPass> {
public:
  PreservedAnalyses run(Loop &L, LoopAnalysisManager &,
                        LoopStandardAnalysisResults &AR, LPMUpdater &);
};
} // namespace

void registerLocalLoopsPass(PassBuilder &Builder) {
  registerPassName<LoopPassManager, PromoteLocalsLoopsPass>(Builder,
                                                            LoopsPassArg);
  Builder.registerLateLoopOptimizationsEPCallback(
      [](LoopPassManager &LPM, OptimizationLevel) {
        LPM.addPass(PromoteLocalsLoopsPass());
      });
}

PreservedAnalyses PromoteLocalsLoopsPass::run(Loop &L, LoopAnalysisManager &,
                                              LoopStandardAnalysisResults &AR,
                                              LPMUpdater &) {
  Function &F = *L.getHeader()->getParent();
  // A loop the source or LLVM decided for, or the plan already (late).
  if (hasUnrollTransformation(&L) != TM_Unspecified ||
      findOptionMDForLoop(&L, LateUnrollMark) || !promotesLocals(F))
    return PreservedAnalyses::all();
  SetVector<AllocaInst *> Locals = localsWalkedBy(L, AR.SE);
  if (Locals.empty())
    return PreservedAnalyses::all();
  NestFacts Facts(AR, L);
  for (AllocaInst *Local : Locals) {
    uint64_t Bytes = 0;
    localArray(Local, F, Bytes);
    Facts.addArray(*Local, Bytes);
  }
  NvraPromoteLimits Limits = promoteLimits(F);
  NvraNest Nest = Facts.nest();
  uint32_t Own = Facts.loopIndex(L);
  NvraLoopPlan Plan =
      nvra_plan_local_loop(NVRA_ABI_VERSION, &Limits, &Nest, Own);
  if (Plan.verdict == NVRA_LOOP_NOTHING || Plan.array >= Nest.n_arrays)
    return PreservedAnalyses::all();

  LLVMContext &Context = F.getContext();
  const NvraNestLoop &Trips = Facts.loop(Own);
  // "function F: loop over an N-byte local array, T iterations of S
  // instructions: ", what each remark begins with.
  auto Described = [&](auto Remark) {
    Remark << "function " << F.getName() << ": loop over a "
           << ore::NV("ArrayBytes", Facts.array(Plan.array).bytes)
           << "-byte local array, ";
    if (Trips.trip_count == 0)
      Remark << "a trip count that is not a constant: ";
    else
      Remark << ore::NV("TripCount", Trips.trip_count) << " iterations of "
             << ore::NV("IterationInsts", Trips.iteration_insts)
             << " instructions: ";
    return Remark;
  };
  auto Mark = [&](StringRef Name, Metadata *Value) {
    SmallVector<Metadata *, 2> Operands{MDString::get(Context, Name)};
    if (Value)
      Operands.push_back(Value);
    return MDNode::get(Context, Operands);
  };
  switch (Plan.verdict) {
  case NVRA_LOOP_FULL_UNROLL:
  case NVRA_LOOP_FULL_UNROLL_LATE: {
    // Only a bound known: unroll.full asks for the exact trip count, and
    // unroll.enable has LLVM unroll by the bound (up to its
    // -unroll-max-upperbound, which the core keeps to). Late: our mark,
    // which nvregalloc-promote-locals-loops-late makes unroll.full before
    // LLVM's loop unroller.
    bool ByBound = Trips.trip_count == 0;
    bool Late = Plan.verdict == NVRA_LOOP_FULL_UNROLL_LATE;
    MDNode *Full = Mark(Late      ? LateUnrollMark
                        : ByBound ? "llvm.loop.unroll.enable"
                                  : "llvm.loop.unroll.full",
                        nullptr);
    L.setLoopID(
        makePostTransformationMetadata(Context, L.getLoopID(), {}, {Full}));
    auto Remark = Described(OptimizationRemark(
        LoopsPassArg, "UnrollForLocal", L.getStartLoc(), L.getHeader()));
    if (ByBound)
      Remark << "unrolled by its bound of "
             << ore::NV("MaxTripCount", Trips.max_trip_count)
             << " iterations (about ";
    else if (Late)
      Remark << "unrolled fully by LLVM's loop unroller, after the "
                "function's simplification (about ";
    else
      Remark << "unrolled fully (about ";
    Context.diagnose(Remark << ore::NV("UnrolledInsts", Plan.unrolled_insts)
                            << " instructions)");
    break;
  }
  case NVRA_LOOP_KEEP_ROLLED: {
    Metadata *False =
        ConstantAsMetadata::get(ConstantInt::getFalse(Context));
    MDNode *Marks[] = {Mark("llvm.loop.unroll.disable", nullptr),
                       Mark("llvm.loop.vectorize.enable", False)};
    L.setLoopID(
        makePostTransformationMetadata(Context, L.getLoopID(), {}, Marks));
    Context.diagnose(
        Described(OptimizationRemark(LoopsPassArg, "KeepLocalWide",
                                     L.getStartLoc(), L.getHeader()))
        << "left rolled, one access per iteration (no unrolling or "
           "vectorizing)");
    break;
  }
  default:
    Context.diagnose(
        Described(OptimizationRemarkMissed(LoopsPassArg, "UnrollForLocal",
                                           L.getStartLoc(), L.getHeader()))
        << "left to LLVM (" << whyLeft(Plan.verdict) << ")");
  }
  // Loop metadata is no analysis's input.
  return PreservedAnalyses::all();
}

} // namespace nvregalloc

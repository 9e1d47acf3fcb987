//===- PromoteLocalsPass.cpp - nvregalloc-promote-locals ----------------===//
//
// Local arrays into registers, in the middle end (clang -fpass-plugin, opt),
// for NVPTX only, on by default. The core's promote module says why and
// decides; the passes find the facts and apply the verdicts, each in a file
// of its own, in the order the pipeline runs them:
// - nvregalloc-promote-locals-copies (TypedCopiesPass.cpp), early;
// - nvregalloc-promote-locals-calls (LocalCallsPass.cpp), before the
//   inliner;
// - nvregalloc-promote-locals-param (ParamInPlacePass.cpp), after each
//   function's inlining, before its loop passes;
// - nvregalloc-promote-locals-loops (LocalLoopsPass.cpp), right before the
//   full unroller, and nvregalloc-promote-locals-loops-late
//   (LocalLoopsLatePass.cpp), before the vectorizer and LLVM's loop
//   unroller;
// - nvregalloc-promote-locals-forward (LocalForwardingPass.cpp), after the
//   function's scalar optimizations;
// - last in the middle end: nvregalloc-promote-locals-byval
//   (DeadByvalStoresPass.cpp), -param again, -select (LocalSelectsPass.cpp),
//   -align (LocalAlignPass.cpp), LLVM's InferAlignment, and -expand
//   (ExpandCopiesPass.cpp);
// - in llc, right after NaryReassociate: nvregalloc-promote-locals-zext
//   (NonNegativeZextPass.cpp).
// This file holds the options they share, what they share of the facts, and
// their places in the middle end (Plugin.cpp puts -zext in llc's).
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "RustBridge.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/ConstantRange.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/KnownBits.h"
#include "llvm/Transforms/Scalar/InferAlignment.h"
#include "llvm/Transforms/Utils/LoopUtils.h"

using namespace llvm;

namespace nvregalloc {

/// The function-options choice this pass applies (src/choices.rs).
static const FunctionChoice PromoteOff("promote", "off");
/// ... and its level, which bounds the limits (`promote=small`).
static const FunctionNumberChoice PromoteLevel("promote");

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
    cl::desc("A memset or memcpy longer than NVPTX lowers inline "
             "(64 bytes), and of at most this many bytes, becomes loads and "
             "stores as wide as its alignment instead of a byte loop"),
    cl::init(NVRA_PROMOTE_DEFAULT_MAX_EXPANDED_BYTES));
static ShowDefault MaxExpandedBytesDefault(MaxExpandedBytes);

static cl::opt<unsigned> RolledInstsPerSelect(
    "nvregalloc-promote-rolled-insts-per-select",
    cl::desc("A loop with a constant trip count over a local array small "
             "enough for selects stays rolled, its accesses made selects, "
             "when an iteration has at least this many instructions per "
             "select (0: such loops are unrolled fully)"),
    cl::init(NVRA_PROMOTE_DEFAULT_ROLLED_INSTS_PER_SELECT));
static ShowDefault RolledInstsPerSelectDefault(RolledInstsPerSelect);

bool promotesLocalsIn(const Module &M) {
  return PromoteLocals && M.getTargetTriple().isNVPTX();
}

bool promotesLocals(const Function &F) {
  return PromoteLocals && F.getParent()->getTargetTriple().isNVPTX() &&
         !PromoteOff.isMadeFor(F);
}

NvraPromoteLimits promoteLimits(const Function &F) {
  NvraPromoteLimits L{};
  L.max_trip_count = MaxTripCount;
  L.max_unrolled_insts = MaxUnrolledInsts;
  L.max_array_bytes = MaxArrayBytes;
  L.inline_budget = InlineBudget;
  L.max_dynamic_array_bytes = MaxDynamicArrayBytes;
  L.max_selects = MaxSelects;
  L.max_expanded_bytes = MaxExpandedBytes;
  L.rolled_insts_per_select = RolledInstsPerSelect;
  if (std::optional<uint32_t> Level = PromoteLevel.madeFor(F))
    nvra_promote_limits_at_level(int32_t(*Level), &L);
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

std::string describeLocal(AllocaInst &Local) {
  std::string Text = "local ";
  StringRef Name = Local.getName();
  for (DbgVariableRecord *Declare : findDVRDeclares(&Local))
    Name = Declare->getVariable()->getName();
  if (!Name.empty())
    Text += "'" + Name.str() + "' ";
  uint64_t Bytes = 0;
  localArray(&Local, *Local.getFunction(), Bytes);
  return Text + "of " + std::to_string(Bytes) + " bytes";
}

/// IR instructions in the blocks of \p L, inner loops' included once.
static uint64_t instructionsIn(const Loop &L) {
  uint64_t Size = 0;
  for (const BasicBlock *BB : L.blocks())
    Size += BB->size();
  return Size;
}

uint64_t iterationSize(const Loop &L, ScalarEvolution &SE) {
  uint64_t Size = instructionsIn(L);
  for (const Loop *Inner : L.getSubLoops()) {
    unsigned Trips = std::max(SE.getSmallConstantTripCount(Inner), 1u);
    Size += iterationSize(*Inner, SE) * Trips - instructionsIn(*Inner);
  }
  return Size;
}

uint32_t sourceUnroll(const Loop &L) {
  TransformationMode Mode = hasUnrollTransformation(&L);
  if (Mode == TM_Unspecified)
    return NVRA_SOURCE_UNSPECIFIED;
  return Mode == TM_ForcedByUser &&
                 getBooleanLoopAttribute(&L, "llvm.loop.unroll.full")
             ? NVRA_SOURCE_FULL
             : NVRA_SOURCE_OTHER;
}

SetVector<AllocaInst *> localsWalkedBy(const Loop &L, ScalarEvolution &SE) {
  const Function &F = *L.getHeader()->getParent();
  SetVector<AllocaInst *> Locals;
  for (const BasicBlock *BB : L.blocks())
    for (const Instruction &I : *BB)
      for (const Value *Ptr : addresses(I)) {
        uint64_t Bytes = 0;
        auto *Local = const_cast<AllocaInst *>(localArray(Ptr, F, Bytes));
        if (Local &&
            !SE.isLoopInvariant(SE.getSCEV(const_cast<Value *>(Ptr)), &L))
          Locals.insert(Local);
      }
  return Locals;
}

SmallVector<uint64_t, 16> elementsAgreeing(const KnownBits &Known,
                                           const ConstantRange &Range,
                                           uint64_t Size, uint64_t Bytes) {
  SmallVector<uint64_t, 16> Elements;
  for (uint64_t At = 0; At + Size <= Bytes; At += Size) {
    APInt Value(Known.getBitWidth(), At);
    if ((Value & Known.Zero).isZero() && (Value & Known.One) == Known.One &&
        Range.contains(Value))
      Elements.push_back(At);
  }
  return Elements;
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

void registerPromoteLocals(PassBuilder &Builder) {
  registerPassName<FunctionPassManager, TypedCopiesPass>(Builder,
                                                         TypedCopiesPassArg);
  registerPassName<FunctionPassManager, DeadByvalStoresPass>(
      Builder, DeadByvalStoresPassArg);
  registerPassName<FunctionPassManager, PromoteLocalsAlignPass>(
      Builder, AlignPassArg);
  registerPassName<FunctionPassManager, LocalForwardingPass>(
      Builder, LocalForwardingPassArg);
  registerPassName<FunctionPassManager, ExpandCopiesPass>(
      Builder, ExpandCopiesPassArg);
  registerPassName<FunctionPassManager, LocalSelectsPass>(
      Builder, LocalSelectsPassArg);
  registerPassName<FunctionPassManager, ReadParamInPlacePass>(
      Builder, ParamInPlacePassArg);

  Builder.registerPipelineEarlySimplificationEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel Level, ThinOrFullLTOPhase) {
        if (Level != OptimizationLevel::O0)
          MPM.addPass(createModuleToFunctionPassAdaptor(TypedCopiesPass()));
      });
  registerLocalCallsPass(Builder);
  // After each function's callees are inlined, before its loop passes.
  Builder.registerPeepholeEPCallback(
      [](FunctionPassManager &FPM, OptimizationLevel Level) {
        if (Level != OptimizationLevel::O0)
          FPM.addPass(ReadParamInPlacePass(/*TellKept=*/false));
      });
  registerLocalLoopsPass(Builder);
  registerLocalLoopsLatePass(Builder);
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
        Last.addPass(ReadParamInPlacePass());
        Last.addPass(LocalSelectsPass());
        Last.addPass(PromoteLocalsAlignPass());
        Last.addPass(InferAlignmentPass());
        Last.addPass(ExpandCopiesPass());
        MPM.addPass(createModuleToFunctionPassAdaptor(std::move(Last)));
      });
}

} // namespace nvregalloc

//===- LocalCallsPass.cpp - nvregalloc-promote-locals-calls -------------===//
//
// Part of nvregalloc-promote-locals (PromoteLocalsPass.cpp), for NVPTX only,
// off with it. A call that takes a pointer into one of its caller's allocas
// keeps the local in memory unless it is inlined. Each such call is
// reported with its callee's size, whether it is recursive, whether LLVM's
// inliner takes it anyway (its inline cost at the pipeline's threshold)
// and the smallest of its locals that inlining could free (one whose
// address goes nowhere else a call inlined would not follow); the calls the
// core picks within the caller's budget get the call-site attribute
// alwaysinline, which LLVM's inliners honour. A call the source decides for
// (noinline, optnone) keeps its decision. Each verdict is a remark. A
// function that every call in the module inlines so, and that the module
// keeps for callers elsewhere, lends its marks to a private copy those
// calls inline instead (the core decides: promote::private_inline_copy).
//
// A module pass after the early per-function cleanup (SROA has run, so an
// alloca still there is one whose address escapes or whose offsets vary)
// and before the inliner, callees before callers: a callee counts at its
// size once the calls it inlines for its own locals are in it. Inlined
// before the callee is simplified, the callee's loops over the local meet
// the loop plan in the caller, where the local is an array (HeCBench's
// kalman: 512-byte matrices multiplied by callees). A call LLVM's inliner
// takes anyway and whose callee reaches the local at constant offsets only
// is left to the inliner: marked, it would only be inlined earlier, its
// code optimized in another order (HeCBench's lrn_bwd_kernel took 72 -> 80
// registers for a lambda's captures so, with no local access fewer).
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "PointerUses.h"
#include "RustBridge.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SCCIterator.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/CallGraph.h"
#include "llvm/Analysis/InlineCost.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace llvm;

namespace nvregalloc {
namespace {

/// Whether a call may be inlined here: a callee with a body that neither
/// it nor the call site keeps out of line.
bool inlinable(const CallBase &Call) {
  const Function *Callee = Call.getCalledFunction();
  return Callee && !Callee->isDeclaration() &&
         !Callee->hasFnAttribute(Attribute::NoInline) &&
         !Callee->hasFnAttribute(Attribute::OptimizeNone) &&
         !Call.isNoInline();
}

/// Whether \p Local's address goes where inlining would not follow it (a
/// store of the address, a call that stays a call, a volatile access): it
/// stays in memory whatever is inlined.
bool escapesBeyondInlining(AllocaInst &Local) {
  return !walkPointerUses(Local, [](const PointerUse &Use) {
    switch (Use.What) {
    case PointerUse::Read:
    case PointerUse::Write:
      return Use.Simple;
    case PointerUse::Escape: {
      const auto *Call = dyn_cast<CallBase>(Use.user());
      return Call && Call->isArgOperand(Use.U) && inlinable(*Call);
    }
    case PointerUse::CastSpace:
      return false;
    default:
      return true;
    }
  });
}

/// Whether \p Param, a pointer parameter, is reached at an offset that is
/// not a constant, in its function or in the callees it is passed on to
/// (\p Depth levels of them; past those, or where it goes anywhere else, it
/// counts as walked).
bool walked(Argument &Param, unsigned Depth) {
  return !walkPointerUses(Param, [&](const PointerUse &Use) {
    switch (Use.What) {
    case PointerUse::Marker:
      return true;
    case PointerUse::Read:
    case PointerUse::Write:
    case PointerUse::Derive:
      return Use.Offset.has_value();
    case PointerUse::Escape: {
      auto *Call = dyn_cast<CallBase>(Use.user());
      return Depth > 0 && Use.Offset && Call && Call->isArgOperand(Use.U) &&
             inlinable(*Call) &&
             !walked(*Call->getCalledFunction()->getArg(
                         Call->getArgOperandNo(Use.U)),
                     Depth - 1);
    }
    default:
      return false;
    }
  });
}

/// Whether the callee of \p Call walks a local it is passed (a loop over it,
/// or an index from data), there or in what it calls: only inlined does a
/// loop over it meet the loop plan in the caller.
bool calleeWalks(CallBase &Call) {
  Function &Caller = *Call.getFunction();
  Function &Callee = *Call.getCalledFunction();
  for (const Use &Arg : Call.args()) {
    uint64_t Bytes = 0;
    if (Arg->getType()->isPointerTy() &&
        localArray(Arg.get(), Caller, Bytes) &&
        Arg.getOperandNo() < Callee.arg_size() &&
        walked(*Callee.getArg(Arg.getOperandNo()), /*Depth=*/3))
      return true;
  }
  return false;
}

/// A call taking a local's address, with what the core is told of it.
struct LocalCall {
  CallBase *Call;
  NvraLocalCall Facts;
  /// The largest local it takes, for the remark.
  uint64_t LocalBytes;
};

/// Whether LLVM's inliner takes a call by its callee's cost as it is now,
/// at the pipeline's threshold.
class InlinerView {
  FunctionAnalysisManager &FAM;
  InlineParams Params;

public:
  InlinerView(FunctionAnalysisManager &FAM, OptimizationLevel Level)
      : FAM(FAM), Params(getInlineParams(Level.getSpeedupLevel(),
                                         Level.getSizeLevel())) {}

  bool takes(CallBase &Call) {
    auto Assumptions = [&](Function &F) -> AssumptionCache & {
      return FAM.getResult<AssumptionAnalysis>(F);
    };
    auto LibraryInfo = [&](Function &F) -> const TargetLibraryInfo & {
      return FAM.getResult<TargetLibraryAnalysis>(F);
    };
    Function &Callee = *Call.getCalledFunction();
    return bool(getInlineCost(Call, Params,
                              FAM.getResult<TargetIRAnalysis>(Callee),
                              Assumptions, LibraryInfo));
  }
};

/// \p Call's facts, if it takes a local's address and may be inlined for it
/// here; the callee counted at \p CalleeInsts.
std::optional<LocalCall> localCall(CallBase &Call, unsigned CalleeInsts,
                                   bool Recursive, InlinerView &Inliner) {
  if (!inlinable(Call) || Call.hasFnAttr(Attribute::AlwaysInline))
    return std::nullopt;
  Function &Caller = *Call.getFunction();
  LocalCall Found{&Call, {}, 0};
  Found.Facts.array_bytes = UINT64_MAX;
  for (const Use &Arg : Call.args()) {
    uint64_t Bytes = 0;
    const AllocaInst *Local = Arg->getType()->isPointerTy()
                                  ? localArray(Arg.get(), Caller, Bytes)
                                  : nullptr;
    if (!Local)
      continue;
    Found.LocalBytes = std::max(Found.LocalBytes, Bytes);
    if (!escapesBeyondInlining(*const_cast<AllocaInst *>(Local)))
      Found.Facts.array_bytes = std::min(Found.Facts.array_bytes, Bytes);
  }
  if (Found.LocalBytes == 0)
    return std::nullopt;
  Found.Facts.callee_insts = CalleeInsts;
  Found.Facts.callee_walks = calleeWalks(Call);
  Found.Facts.by_value = any_of(Call.args(), [&](const Use &Arg) {
    uint64_t Bytes = 0;
    return Call.isByValArgument(Arg.getOperandNo()) &&
           localArray(Arg.get(), Caller, Bytes);
  });
  Found.Facts.recursive =
      Recursive || Call.getCalledFunction() == &Caller;
  Found.Facts.inlined_by_llvm =
      !Found.Facts.recursive && Inliner.takes(Call);
  return Found;
}

/// The core's verdicts on \p Calls, all of one caller, applied and told;
/// the calls marked go into \p Marked. Returns the IR instructions they
/// will add.
unsigned decide(MutableArrayRef<LocalCall> Calls,
                SmallPtrSetImpl<CallBase *> &Marked) {
  Function &Caller = *Calls.front().Call->getFunction();
  SmallVector<NvraLocalCall, 8> Facts;
  for (const LocalCall &Call : Calls)
    Facts.push_back(Call.Facts);
  NvraPromoteLimits Limits = promoteLimits(Caller);
  unsigned Before = Caller.getInstructionCount(), Added = 0;
  SmallVector<uint32_t, 8> Verdicts(Calls.size());
  nvra_choose_local_calls(NVRA_ABI_VERSION, &Limits, Facts.data(),
                          Facts.size(), Verdicts.data());
  for (size_t I = 0; I != Calls.size(); ++I)
    if (Verdicts[I] == NVRA_CALL_INLINE)
      Added += Facts[I].callee_insts;
  for (size_t I = 0; I != Calls.size(); ++I) {
    CallBase &Call = *Calls[I].Call;
    StringRef Callee = Call.getCalledFunction()->getName();
    uint64_t Bytes = Calls[I].LocalBytes;
    if (Verdicts[I] == NVRA_CALL_INLINE) {
      Call.addFnAttr(Attribute::AlwaysInline);
      Marked.insert(&Call);
      Caller.getContext().diagnose(
          OptimizationRemark(CallsPassArg, "InlineForLocal", &Call)
          << "call to " << Callee << " takes a local's address ("
          << ore::NV("LocalBytes", Bytes) << " bytes): inlined ("
          << ore::NV("CalleeInsts", Facts[I].callee_insts)
          << " instructions; caller " << ore::NV("CallerBefore", Before)
          << " -> about " << ore::NV("CallerAfter", Before + Added) << ")");
      continue;
    }
    std::string Why =
        Verdicts[I] == NVRA_CALL_RECURSIVE ? "recursive"
        : Verdicts[I] == NVRA_CALL_INLINED_BY_LLVM
            ? "its inliner takes it by its own cost, and the callee reaches "
              "the local at constant offsets only"
        : Verdicts[I] == NVRA_CALL_STAYS_IN_MEMORY
            ? "each local it takes stays in memory inlined or not: too big "
              "for registers, or its address goes elsewhere too"
            : "over the caller's budget of " +
                  std::to_string(Limits.inline_budget) + " instructions";
    Caller.getContext().diagnose(
        OptimizationRemarkMissed(CallsPassArg, "InlineForLocal", &Call)
        << "call to " << Callee << " takes a local's address ("
        << ore::NV("LocalBytes", Bytes) << " bytes): left to LLVM (" << Why
        << ")");
  }
  return Added;
}

/// The facts the core judges a private copy of \p F by; \p WithMarks: the
/// functions holding a marked call.
NvraInlinedFunction
inlinedFunction(Function &F, const SmallPtrSetImpl<CallBase *> &Marked,
                const SmallPtrSetImpl<const Function *> &WithMarks) {
  NvraInlinedFunction Facts{};
  Facts.entry = F.getCallingConv() == CallingConv::PTX_Kernel;
  bool OnlyCalled = true;
  for (const Use &U : F.uses()) {
    auto *Call = dyn_cast<CallBase>(U.getUser());
    if (!Call || !Call->isCallee(&U)) {
      OnlyCalled = false;
      continue;
    }
    ++Facts.calls;
    Facts.calls_inlined += Marked.contains(Call);
  }
  Facts.kept_for_others =
      OnlyCalled && !F.isDiscardableIfUnused() && !F.isInterposable();
  Facts.inlines_for_locals = WithMarks.contains(&F);
  return Facts;
}

/// The functions the core gives a private copy (promote::private_inline_copy):
/// the marked calls to each inline the copy, internal and with the marks
/// of its body, and the function keeps its body for callers in other
/// modules as LLVM's inliner alone makes it: its marks are taken away.
/// Returns whether any was copied.
bool copyInlinedFunctions(Module &M, SmallPtrSetImpl<CallBase *> &Marked) {
  // Every function judged before any copy adds calls.
  SmallPtrSet<const Function *, 16> WithMarks;
  for (const CallBase *Call : Marked)
    WithMarks.insert(Call->getFunction());
  SmallVector<Function *, 8> Copied;
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    NvraInlinedFunction Facts = inlinedFunction(F, Marked, WithMarks);
    if (nvra_private_inline_copy(NVRA_ABI_VERSION, &Facts))
      Copied.push_back(&F);
  }
  DenseMap<const Function *, Function *> CopyOf;
  for (Function *F : Copied) {
    ValueToValueMapTy Map;
    Function *Copy = CloneFunction(F, Map);
    Copy->setName(F->getName() + ".inlined");
    Copy->setLinkage(GlobalValue::InternalLinkage);
    Copy->setComdat(nullptr);
    for (Instruction &I : instructions(*F))
      if (auto *Call = dyn_cast<CallBase>(&I); Call && Marked.contains(Call))
        Marked.insert(cast<CallBase>(Map[Call]));
    CopyOf[F] = Copy;
  }
  SmallVector<CallBase *, 16> Calls(Marked.begin(), Marked.end());
  for (CallBase *Call : Calls) {
    if (CopyOf.contains(Call->getFunction())) {
      Call->removeFnAttr(Attribute::AlwaysInline);
      Marked.erase(Call);
    } else if (Function *Copy = CopyOf.lookup(Call->getCalledFunction())) {
      Call->setCalledFunction(Copy);
    }
  }
  for (Function *F : Copied)
    F->getContext().diagnose(
        OptimizationRemark(CallsPassArg, "PrivateCopy",
                           DiagnosticLocation(F->getSubprogram()),
                           &F->getEntryBlock())
        << "function " << F->getName()
        << ": every call to it here is inlined for locals, so they inline a "
           "private copy; the function itself, for callers in other "
           "modules, keeps LLVM's own inlining");
  return !Copied.empty();
}

/// Level: the pipeline's, whose inline threshold tells the calls LLVM's
/// inliner takes anyway (opt's -passes= by name: O3's).
class PromoteLocalsCallsPass : public PassInfoMixin<PromoteLocalsCallsPass> {
  OptimizationLevel Level;

public:
  explicit PromoteLocalsCallsPass(OptimizationLevel Level = OptimizationLevel::O3)
      : Level(Level) {}
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM);
};

} // namespace

void registerLocalCallsPass(PassBuilder &Builder) {
  registerPassName<ModulePassManager, PromoteLocalsCallsPass>(Builder,
                                                              CallsPassArg);
  Builder.registerPipelineEarlySimplificationEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel Level, ThinOrFullLTOPhase) {
        if (Level != OptimizationLevel::O0)
          MPM.addPass(PromoteLocalsCallsPass(Level));
      });
}

PreservedAnalyses PromoteLocalsCallsPass::run(Module &M,
                                              ModuleAnalysisManager &MAM) {
  if (!promotesLocalsIn(M))
    return PreservedAnalyses::all();
  InlinerView Inliner(
      MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager(),
      Level);
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
  bool Changed = false;
  SmallPtrSet<CallBase *, 16> Marked;
  for (Function *Caller : CalleesFirst) {
    if (Caller->isDeclaration() || !promotesLocals(*Caller))
      continue;
    SmallVector<LocalCall, 8> Calls;
    for (Instruction &I : instructions(*Caller))
      if (auto *Call = dyn_cast<CallBase>(&I); Call && inlinable(*Call))
        if (std::optional<LocalCall> Found =
                localCall(*Call, SizeOf(*Call->getCalledFunction()),
                          Recursive.contains(Call->getCalledFunction()),
                          Inliner))
          Calls.push_back(*Found);
    if (Calls.empty())
      continue;
    unsigned Added = decide(Calls, Marked);
    Changed |= Added != 0;
    Grown[Caller] = Caller->getInstructionCount() + Added;
  }
  Changed |= copyInlinedFunctions(M, Marked);
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace nvregalloc

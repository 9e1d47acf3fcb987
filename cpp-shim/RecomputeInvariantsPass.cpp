//===- RecomputeInvariantsPass.cpp - nvregalloc-recompute-invariants ------===//
//
// In llc, NVPTX only, after the LSR judge: values LICM and GVN hoisted out
// of loops computed again at their uses in the loops, for the functions a
// function-options file marks invariants=recomputed (the tuner's choice,
// where ptxas's count decides) or, judged, where the estimated pressure
// says the hoisted values cost an occupancy step (the core's forms_judge;
// off by default, see choices::INVARIANTS for why). ptxas does not sink a hoisted value back into its loop, so
// each stays live across the whole loop (bezier-surface: 25 pieces of
// `pow` live across a division's slow path, 56 registers against nvcc's 32;
// docs/register-study.md).
//
// The pass copies the function and, in the copy, gives each block of a loop
// that reads a hoisted value its own computation of it before the first
// read, from the values it is computed from: those defined outside the loop
// that are computed again too, up to -nvregalloc-invariant-tree-limit
// instructions per value, and the loop's own values, arguments, constants,
// loads and calls as they are. What recomputing leaves unread goes. The
// core judges the copy (lean) against the function (rich), and the copy's
// body replaces the function's only where the core says so; the copy is
// erased either way. Recomputing a value where the original dominates, from
// the same operands, gives the same value: only instructions that read and
// write no memory, have no side effects and are not convergent are
// recomputed, and no `freeze` (each of which may choose its own value).
//
// `invariants=recomputed` in a function-options file recomputes unjudged,
// `invariants=judged` or -nvregalloc-judge-invariants judges, and
// `invariants=hoisted` (the default) leaves the function as stock.
//
//===----------------------------------------------------------------------===//

#include "IrForms.h"
#include "Passes.h"
#include "RustBridge.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Pass.h"

#include <memory>
#include <optional>

using namespace llvm;

#define DEBUG_TYPE "nvregalloc-recompute-invariants"
STATISTIC(NumRecomputed,
          "Hoisted values recomputed in their loops' blocks (kept forms)");

namespace nvregalloc {

static cl::opt<bool> JudgeInvariants(
    "nvregalloc-judge-invariants",
    cl::desc("Recompute values hoisted out of loops at their uses in the "
             "loops where the estimated register pressure says the hoisted "
             "ones cost an occupancy step (invariants=... in a "
             "function-options file: not for that function)"),
    cl::init(false));
static ShowDefault JudgeInvariantsDefault(JudgeInvariants);
static cl::opt<unsigned> InvariantMinGrowth(
    "nvregalloc-invariant-min-growth",
    cl::desc("Percent by which the hoisted values must raise the judge's "
             "estimate before they are recomputed in their loops"),
    cl::init(coreDefaults().invariant_min_growth));
static ShowDefault InvariantMinGrowthDefault(InvariantMinGrowth);
static cl::opt<unsigned> InvariantTreeLimit(
    "nvregalloc-invariant-tree-limit",
    cl::desc("Most instructions computed again for one hoisted value at a "
             "use in a loop; a value that needs more stays hoisted"),
    cl::init(coreDefaults().invariant_tree_limit));
static ShowDefault InvariantTreeLimitDefault(InvariantTreeLimit);
static const FunctionChoice Hoisted("invariants", "hoisted");
static const FunctionChoice Recomputed("invariants", "recomputed");
static const FunctionChoice Judged("invariants", "judged");

namespace {
/// Whether computing \p I again where it dominates, from the same operands,
/// gives the value it gave.
bool isRecomputable(const Instruction &I) {
  if (isa<PHINode>(I) || isa<FreezeInst>(I) || isa<AllocaInst>(I) ||
      I.isTerminator() || I.isEHPad() || I.getType()->isVoidTy() ||
      I.getType()->isTokenTy() || I.mayReadOrWriteMemory() ||
      I.mayHaveSideEffects())
    return false;
  if (const auto *Call = dyn_cast<CallBase>(&I))
    return Call->getIntrinsicID() != Intrinsic::not_intrinsic &&
           !Call->isConvergent() && !Call->hasOperandBundles();
  return true;
}

/// Appends to \p Tree, operands first, what computing \p V again in \p L
/// takes: V and the recomputable values outside L it is computed from.
/// False where that is more than the limit.
bool collectTree(Instruction &V, const Loop &L,
                 SmallVectorImpl<Instruction *> &Tree,
                 SmallPtrSetImpl<Instruction *> &Seen) {
  if (!Seen.insert(&V).second)
    return true;
  for (Value *Op : V.operand_values()) {
    auto *OpInst = dyn_cast<Instruction>(Op);
    if (OpInst && !L.contains(OpInst) && isRecomputable(*OpInst) &&
        !collectTree(*OpInst, L, Tree, Seen))
      return false;
  }
  Tree.push_back(&V);
  return Tree.size() <= InvariantTreeLimit;
}

/// Whether \p U reads its value in a block of \p L (a PHI reads on an edge,
/// which is not recomputed).
bool readsIn(const Loop &L, const Use &U) {
  auto *User = dyn_cast<Instruction>(U.getUser());
  return User && !isa<PHINode>(User) && L.contains(User);
}

/// Recomputes, in each block of each loop of \p F, the hoisted values the
/// block reads; the number of values recomputed.
unsigned recomputeInvariants(Function &F) {
  DominatorTree DT(F);
  LoopInfo LI(DT);
  unsigned Count = 0;
  // Outer loops first: a value read in an inner loop is then computed in
  // the block that reads it, not in the inner loop's preheader.
  for (Loop *L : LI.getLoopsInPreorder()) {
    SmallVector<Instruction *, 16> Hoisted;
    for (BasicBlock &BB : F)
      if (!L->contains(&BB))
        for (Instruction &I : BB)
          if (isRecomputable(I) &&
              any_of(I.uses(), [&](Use &U) { return readsIn(*L, U); }))
            Hoisted.push_back(&I);
    // Each value with its computation, and per block of L that reads it,
    // its first read there: the value is computed again right before it,
    // so that it is live no longer than it must be.
    SmallVector<std::pair<Instruction *, SmallVector<Instruction *, 8>>, 16>
        Trees;
    DenseMap<BasicBlock *, SmallVector<std::pair<Instruction *, unsigned>, 8>>
        FirstReads;
    for (Instruction *Value : Hoisted) {
      SmallVector<Instruction *, 8> Tree;
      SmallPtrSet<Instruction *, 8> Seen;
      if (!collectTree(*Value, *L, Tree, Seen))
        continue;
      DenseMap<BasicBlock *, Instruction *> First;
      for (Use &U : Value->uses())
        if (readsIn(*L, U)) {
          auto *User = cast<Instruction>(U.getUser());
          Instruction *&F = First[User->getParent()];
          if (!F || User->comesBefore(F))
            F = User;
        }
      for (auto [Block, F] : First)
        FirstReads[Block].push_back({F, static_cast<unsigned>(Trees.size())});
      Trees.emplace_back(Value, std::move(Tree));
    }
    for (auto &[Block, Reads] : FirstReads) {
      // In the order of the reads, so that a value computed for an earlier
      // read, and shared by a later one, comes before both.
      llvm::sort(Reads, [](const auto &A, const auto &B) {
        return A.first->comesBefore(B.first);
      });
      DenseMap<llvm::Value *, llvm::Value *> Again;
      for (auto [First, Index] : Reads) {
        auto &[Value, Tree] = Trees[Index];
        for (Instruction *I : Tree) {
          if (Again.count(I))
            continue;
          Instruction *Copy = I->clone();
          Copy->setName(I->getName());
          Copy->insertBefore(First->getIterator());
          for (Use &Op : Copy->operands())
            if (llvm::Value *A = Again.lookup(Op.get()))
              Op.set(A);
          Again[I] = Copy;
        }
        Value->replaceUsesWithIf(Again[Value], [&, Block = Block](Use &U) {
          return readsIn(*L, U) &&
                 cast<Instruction>(U.getUser())->getParent() == Block;
        });
      }
    }
    Count += Trees.size();
  }
  for (bool Erased = true; Erased;) {
    Erased = false;
    for (BasicBlock &BB : F)
      for (Instruction &I : make_early_inc_range(BB))
        if (I.use_empty() && isRecomputable(I)) {
          I.eraseFromParent();
          Erased = true;
        }
  }
  return Count;
}

class RecomputeInvariantsPass : public FunctionPass {
public:
  static char ID;
  static constexpr char Description[] =
      "nvregalloc: values hoisted out of loops recomputed in them where "
      "they cost an occupancy step";
  RecomputeInvariantsPass() : FunctionPass(ID) {}
  StringRef getPassName() const override { return Description; }
  bool runOnFunction(Function &F) override {
    // One value per key: a function marked recomputed is never judged.
    bool Recompute = Recomputed.isMadeFor(F);
    bool Judge = !Recompute && (Judged.isMadeFor(F) ||
                                (JudgeInvariants && !Hoisted.isMadeFor(F)));
    if (!(Judge || Recompute) ||
        any_of(F, [](const BasicBlock &BB) { return BB.hasAddressTaken(); }))
      return false;
    std::unique_ptr<Function, void (*)(Function *)> Copy(
        copyFunction(F), [](Function *C) { C->eraseFromParent(); });
    unsigned Count = recomputeInvariants(*Copy);
    if (Count == 0)
      return false;
    LLVMContext &Context = F.getContext();
    std::optional<NvraFormsPlan> Plan;
    if (Judge)
      Plan = judgeForms(*Copy, F, estimateSlack(), InvariantMinGrowth);
    auto Described = [&](auto Remark) {
      Remark << "function " << F.getName() << ": "
             << ore::NV("Values", Count) << " values hoisted out of loops";
      if (Plan)
        Remark << ": about " << ore::NV("RegistersHoisted", Plan->peak_rich)
               << " registers hoisted, "
               << ore::NV("RegistersRecomputed", Plan->peak_lean)
               << " recomputed (estimated)";
      return Remark;
    };
    if (Plan && Plan->verdict != NVRA_FORMS_LEAN) {
      Context.diagnose(Described(OptimizationRemarkAnalysis(
                           RecomputeInvariantsPassArg, "InvariantsHoisted",
                           DebugLoc(), &F.getEntryBlock()))
                       << ": kept hoisted");
      return false;
    }
    moveBody(F, *Copy);
    // The entry block is the copy's now.
    Context.diagnose(Described(OptimizationRemark(RecomputeInvariantsPassArg,
                                                  "InvariantsRecomputed",
                                                  DebugLoc(),
                                                  &F.getEntryBlock()))
                     << (Plan ? ": recomputed in the loops, for an occupancy "
                                "step"
                              : ": recomputed in the loops "
                                "(invariants=recomputed)"));
    NumRecomputed += Count;
    return true;
  }
};
} // namespace

char RecomputeInvariantsPass::ID = 0;
const void *const RecomputeInvariantsPassID = &RecomputeInvariantsPass::ID;
static RegisterPass<RecomputeInvariantsPass>
    Registration(RecomputeInvariantsPassArg,
                 RecomputeInvariantsPass::Description);

} // namespace nvregalloc

//===- LsrJudgePass.cpp - nvregalloc-lsr-judge ---------------------------===//
//
// In llc, NVPTX only: LLVM's loop strength reduction kept where it costs no
// occupancy step (the core's lsr_judge says why it can cost one). On the
// first loop of a function it reaches, nvregalloc-lsr-gate (right before LSR)
// calls snapshotBeforeLsr, which keeps a copy of the function as it is then;
// this pass, right after LSR has run on every loop of the function, hands the
// core both forms' IR and, where the core says LSR's form runs fewer warps,
// puts the copy's body back in the function. The copy never reaches code
// generation: it is erased here either way. A remark reports each verdict
// with both estimates. `lsr=on` in a function-options file keeps LSR's form
// unjudged (stock), `lsr=off` keeps LSR off (LsrGatePass.cpp), and
// -nvregalloc-judge-lsr=false makes `on` the default.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "RustBridge.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Pass.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <memory>

using namespace llvm;

namespace nvregalloc {

static cl::opt<bool> JudgeLsr(
    "nvregalloc-judge-lsr",
    cl::desc("Keep LLVM's loop strength reduction only where the estimated "
             "register pressure says it costs no occupancy step (lsr=on in a "
             "function-options file: not for that function)"),
    cl::init(true));
static ShowDefault JudgeLsrDefault(JudgeLsr);
static cl::opt<unsigned> LsrSlack(
    "nvregalloc-lsr-slack",
    cl::desc("Registers ptxas is assumed to need beyond the LSR judge's "
             "estimated pressure, when it counts occupancy steps"),
    cl::init(coreDefaults().lsr_slack));
static ShowDefault LsrSlackDefault(LsrSlack);
static cl::opt<unsigned> LsrMinGrowth(
    "nvregalloc-lsr-min-growth",
    cl::desc("Percent by which LSR must raise the judge's estimate before "
             "the judge undoes it"),
    cl::init(coreDefaults().lsr_min_growth));
static ShowDefault LsrMinGrowthDefault(LsrMinGrowth);
static const FunctionChoice LsrJudged("lsr", "judged");
static const FunctionChoice LsrOn("lsr", "on");

namespace {
/// A function's IR in the core's terms (NvraIrFunction), with the arrays
/// it points into.
struct FlatIr {
  std::vector<NvraIrValue> Values;
  std::vector<NvraIrBlock> Blocks;
  std::vector<NvraIrInst> Insts;
  std::vector<uint32_t> Uses, Succs;

  explicit FlatIr(const Function &F) {
    const DataLayout &DL = F.getDataLayout();
    DenseMap<const Value *, uint32_t> Ids;
    auto Define = [&](const Value &V, bool Argument) {
      Type *T = V.getType();
      uint32_t Bits = T->isSized() ? DL.getTypeSizeInBits(T).getKnownMinValue()
                                   : 0;
      Ids[&V] = Values.size();
      Values.push_back({Bits, T->isIntOrIntVectorTy(1), Argument});
    };
    for (const Argument &A : F.args())
      Define(A, true);
    DenseMap<const BasicBlock *, uint32_t> BlockIds;
    for (const BasicBlock &BB : F) {
      BlockIds[&BB] = BlockIds.size();
      for (const Instruction &I : BB)
        if (!I.getType()->isVoidTy())
          Define(I, false);
    }
    auto Use = [&](const Value *V) {
      auto It = Ids.find(V);
      if (It != Ids.end())
        Uses.push_back(It->second);
    };
    for (const BasicBlock &BB : F) {
      NvraIrBlock Block{};
      Block.first_inst = Insts.size();
      for (const Instruction &I : BB) {
        auto It = Ids.find(&I);
        NvraIrInst Inst{It == Ids.end() ? NVRA_IR_NO_VALUE : It->second,
                        static_cast<uint32_t>(Uses.size()), 0};
        if (!isa<PHINode>(I))
          for (const Value *Op : I.operand_values())
            Use(Op);
        Inst.num_uses = Uses.size() - Inst.first_use;
        Insts.push_back(Inst);
      }
      Block.num_insts = Insts.size() - Block.first_inst;
      Block.first_succ = Succs.size();
      for (const BasicBlock *S : successors(&BB))
        Succs.push_back(BlockIds[S]);
      Block.num_succs = Succs.size() - Block.first_succ;
      Blocks.push_back(Block);
    }
    // What the successors' PHIs read on each block's edges, after all the
    // instructions' operands.
    for (auto [Block, BB] : zip(Blocks, F)) {
      Block.first_exit_use = Uses.size();
      for (const BasicBlock *S : successors(&BB))
        for (const PHINode &Phi : S->phis())
          Use(Phi.getIncomingValueForBlock(&BB));
      Block.num_exit_uses = Uses.size() - Block.first_exit_use;
    }
  }

  NvraIrFunction view(const Function &F) const {
    return {F.getCallingConv() == CallingConv::PTX_Kernel,
            static_cast<uint32_t>(Values.size()),
            static_cast<uint32_t>(Blocks.size()),
            static_cast<uint32_t>(Insts.size()),
            static_cast<uint32_t>(Uses.size()),
            static_cast<uint32_t>(Succs.size()),
            Values.data(),
            Blocks.data(),
            Insts.data(),
            Uses.data(),
            Succs.data()};
  }
};

/// Each function's copy from before LSR, until the judge has used it.
DenseMap<const Function *, Function *> &snapshots() {
  static DenseMap<const Function *, Function *> Snapshots;
  return Snapshots;
}

/// Replaces \p F's body with \p Copy's, which is left empty.
void restore(Function &F, Function &Copy) {
  for (BasicBlock &BB : F)
    BB.dropAllReferences();
  while (!F.empty())
    F.begin()->eraseFromParent();
  F.splice(F.end(), &Copy);
  for (auto [Old, New] : zip(Copy.args(), F.args()))
    Old.replaceAllUsesWith(&New);
}

class LsrJudgePass : public FunctionPass {
public:
  static char ID;
  static constexpr char Description[] =
      "nvregalloc: loop strength reduction kept where it costs no "
      "occupancy step";
  LsrJudgePass() : FunctionPass(ID) {}
  StringRef getPassName() const override { return Description; }
  bool runOnFunction(Function &F) override {
    auto It = snapshots().find(&F);
    if (It == snapshots().end())
      return false;
    std::unique_ptr<Function, void (*)(Function *)> Copy(
        It->second, [](Function *C) { C->eraseFromParent(); });
    snapshots().erase(It);
    FlatIr Before(*Copy), After(F);
    NvraIrFunction BeforeView = Before.view(F), AfterView = After.view(F);
    std::string Gpu = F.getFnAttribute("target-cpu").getValueAsString().str();
    NvraLsrPlan Plan = nvra_judge_lsr(NVRA_ABI_VERSION, Gpu.c_str(), LsrSlack,
                                      LsrMinGrowth, &BeforeView, &AfterView);
    if (Plan.verdict == NVRA_LSR_UNMEASURED)
      return false;
    auto Described = [&](auto Remark) {
      Remark << "function " << F.getName() << ": about "
             << ore::NV("RegistersWithLsr", Plan.peak_after)
             << " registers with loop strength reduction, "
             << ore::NV("RegistersWithoutLsr", Plan.peak_before)
             << " without (estimated, " << ore::NV("Slack", LsrSlack.getValue())
             << " added for ptxas): ";
      return Remark;
    };
    LLVMContext &Context = F.getContext();
    if (Plan.verdict == NVRA_LSR_KEEP) {
      Context.diagnose(Described(OptimizationRemarkAnalysis(
                           LsrJudgePassArg, "LsrKept", DebugLoc(),
                           &F.getEntryBlock()))
                       << "kept");
      return false;
    }
    restore(F, *Copy);
    // The entry block is the copy's now.
    Context.diagnose(Described(OptimizationRemark(LsrJudgePassArg, "LsrUndone",
                                                  DebugLoc(),
                                                  &F.getEntryBlock()))
                     << "undone, for an occupancy step");
    return true;
  }
};
} // namespace

bool judgesLsr(const Function &F) {
  return !LsrOn.isMadeFor(F) && (JudgeLsr || LsrJudged.isMadeFor(F));
}

void snapshotBeforeLsr(Function &F) {
  if (snapshots().count(&F) ||
      any_of(F, [](const BasicBlock &BB) { return BB.hasAddressTaken(); }))
    return;
  ValueToValueMapTy Map;
  Function *Copy = CloneFunction(&F, Map);
  Copy->setLinkage(GlobalValue::PrivateLinkage);
  snapshots()[&F] = Copy;
}

char LsrJudgePass::ID = 0;
const void *const LsrJudgePassID = &LsrJudgePass::ID;
static RegisterPass<LsrJudgePass> Registration(LsrJudgePassArg,
                                               LsrJudgePass::Description);

} // namespace nvregalloc

//===- IrForms.cpp - two forms of a function's IR, for the forms judge ----===//

#include "IrForms.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <string>
#include <vector>

using namespace llvm;

namespace nvregalloc {

namespace {
/// A function's IR in the core's terms (NvraIrFunction), with the arrays
/// it points into.
struct FlatIr {
  std::vector<NvraIrValue> Values;
  std::vector<NvraIrBlock> Blocks;
  std::vector<NvraIrInst> Insts;
  std::vector<uint32_t> Uses, Succs;
  bool IsKernel;

  explicit FlatIr(const Function &F)
      : IsKernel(F.getCallingConv() == CallingConv::PTX_Kernel) {
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

  NvraIrFunction view() const {
    return {IsKernel,
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
} // namespace

Function *copyFunction(Function &F) {
  ValueToValueMapTy Map;
  Function *Copy = CloneFunction(&F, Map);
  Copy->setLinkage(GlobalValue::PrivateLinkage);
  return Copy;
}

NvraFormsPlan judgeForms(const Function &Lean, const Function &Rich,
                         unsigned Slack, unsigned MinGrowth) {
  FlatIr LeanIr(Lean), RichIr(Rich);
  // The copy is private: the calling convention is the original's.
  LeanIr.IsKernel = RichIr.IsKernel =
      Lean.getCallingConv() == CallingConv::PTX_Kernel ||
      Rich.getCallingConv() == CallingConv::PTX_Kernel;
  NvraIrFunction LeanView = LeanIr.view(), RichView = RichIr.view();
  std::string Gpu =
      Rich.getFnAttribute("target-cpu").getValueAsString().str();
  return nvra_judge_forms(NVRA_ABI_VERSION, Gpu.c_str(), Slack, MinGrowth,
                          &LeanView, &RichView);
}

void moveBody(Function &F, Function &Copy) {
  for (BasicBlock &BB : F)
    BB.dropAllReferences();
  while (!F.empty())
    F.begin()->eraseFromParent();
  F.splice(F.end(), &Copy);
  for (auto [Old, New] : zip(Copy.args(), F.args()))
    Old.replaceAllUsesWith(&New);
}

} // namespace nvregalloc

//===- SharedSpillsPass.cpp - nvregalloc-shared-spills -------------------===//
//
// A function-options file's `spill=shared` lets ptxas put a kernel's spills
// in shared memory: this pass puts `.pragma "enable_smem_spilling";` in the
// kernel's body, as an inline asm statement at its entry (NVPTX has no other
// way to print a pragma inside a function; CUDA code writes the same asm).
// ptxas then keeps spilled values in shared memory sized for the kernel's
// block (for 1,024 threads where the block size is not declared) instead of
// local memory.
//
// ptxas cannot do it safely in every kernel: one that calls a function (the
// callee's frame follows the ABI in local memory) or uses dynamic shared
// memory (whose size only the launch knows, and which the spill area would
// share) is left alone, with a missed remark saying which; so is PTX older
// than ISA 8.7, which ptxas rejects with the pragma. Whether the
// shared memory it takes costs blocks per SM only ptxas's report and the
// block size can tell, so nvregalloc-tune writes the choice. Without a
// function-options file the pass is not in the pipeline.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "RustBridge.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/CodeGen/StackProtector.h"
#include "llvm/CodeGen/TargetPassConfig.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Pass.h"
#include "llvm/Support/NVPTXAddrSpace.h"
#include "llvm/Target/TargetMachine.h"

#include <algorithm>

using namespace llvm;

namespace nvregalloc {

/// The function-options choice this pass applies (src/choices.rs).
static const FunctionChoice SpillShared("spill", "shared");

namespace {

/// Whether \p F uses \p Global, directly or through constant expressions.
bool usesGlobal(const Function &F, const GlobalVariable &Global) {
  SmallVector<const User *, 8> Work(Global.users());
  SmallPtrSet<const User *, 8> Seen;
  while (!Work.empty()) {
    const User *U = Work.pop_back_val();
    if (!Seen.insert(U).second)
      continue;
    if (const auto *I = dyn_cast<Instruction>(U)) {
      if (I->getFunction() == &F)
        return true;
    } else if (isa<Constant>(U)) {
      Work.append(U->user_begin(), U->user_end());
    }
  }
  return false;
}

/// PTX ISA 8.7 introduced the pragma; ptxas rejects it in older PTX.
constexpr unsigned FirstPtxVersion = 87;

/// The PTX version \p Features ask for ("+ptx88": 88), 0 if none: NVPTX
/// then emits its oldest for the GPU, older than FirstPtxVersion.
unsigned ptxVersion(StringRef Features) {
  unsigned Version = 0;
  SmallVector<StringRef, 8> Parts;
  Features.split(Parts, ',');
  for (StringRef Part : Parts) {
    unsigned N;
    if (Part.consume_front("+ptx") && !Part.getAsInteger(10, N))
      Version = std::max(Version, N);
  }
  return Version;
}

/// What keeps ptxas from spilling the kernel \p F to shared memory, or empty.
std::string whyNot(const Function &F, const TargetMachine &TM) {
  if (ptxVersion(TM.getSubtargetImpl(F)->getFeatureString()) < FirstPtxVersion)
    return "its PTX ISA is older than 8.7, the first with the pragma";
  for (const Instruction &I : instructions(F)) {
    const auto *Call = dyn_cast<CallBase>(&I);
    if (!Call || Call->isInlineAsm() || isa<IntrinsicInst>(Call))
      continue;
    const Function *Callee = Call->getCalledFunction();
    return Callee ? ("it calls " + Callee->getName()).str()
                  : "it makes an indirect call";
  }
  // Dynamic shared memory is an `extern __shared__` array: a declaration.
  for (const GlobalVariable &Global : F.getParent()->globals())
    if (Global.getAddressSpace() == NVPTXAS::ADDRESS_SPACE_SHARED &&
        Global.isDeclaration() && usesGlobal(F, Global))
      return ("it uses dynamic shared memory (" + Global.getName() + ")")
          .str();
  return "";
}

class SharedSpillsPass : public FunctionPass {
public:
  static char ID;
  static constexpr char Description[] =
      "nvregalloc: ptxas spills to shared memory for spill=shared";
  SharedSpillsPass() : FunctionPass(ID) {}
  StringRef getPassName() const override { return Description; }
  void getAnalysisUsage(AnalysisUsage &AU) const override {
    AU.addRequired<TargetPassConfig>();
    AU.setPreservesCFG();
    // Instruction selection reads the stack protector's layout; an inline
    // asm statement touches no stack object.
    AU.addPreserved<StackProtector>();
  }
  bool runOnFunction(Function &F) override {
    if (skipFunction(F) || F.getCallingConv() != CallingConv::PTX_Kernel ||
        !SpillShared.isMadeFor(F))
      return false;
    LLVMContext &Context = F.getContext();
    BasicBlock &Entry = F.getEntryBlock();
    std::string Refusal =
        whyNot(F, getAnalysis<TargetPassConfig>().getTM<TargetMachine>());
    if (!Refusal.empty()) {
      Context.diagnose(OptimizationRemarkMissed(SharedSpillsPassArg,
                                                "SharedSpills", nullptr,
                                                &Entry)
                       << "function " << F.getName()
                       << ": spills left in local memory (" << Refusal
                       << ")");
      return false;
    }
    IRBuilder<> Builder(&*Entry.getFirstInsertionPt());
    Builder.CreateCall(
        InlineAsm::get(FunctionType::get(Builder.getVoidTy(), false),
                       ".pragma \"enable_smem_spilling\";", "",
                       /*hasSideEffects=*/true));
    Context.diagnose(OptimizationRemark(SharedSpillsPassArg, "SharedSpills",
                                        nullptr, &Entry)
                     << "function " << F.getName()
                     << ": ptxas may spill to shared memory "
                        "(.pragma \"enable_smem_spilling\")");
    return true;
  }
};
} // namespace

char SharedSpillsPass::ID = 0;
const void *const SharedSpillsPassID = &SharedSpillsPass::ID;
static RegisterPass<SharedSpillsPass>
    Registration(SharedSpillsPassArg, SharedSpillsPass::Description);

} // namespace nvregalloc

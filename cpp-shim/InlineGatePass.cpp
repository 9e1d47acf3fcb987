//===- InlineGatePass.cpp - nvregalloc-inline-gate ----------------------===//
//
// A function-options file may say `inline=always` for a function: it and
// every function it calls, directly or through others, are then to be
// inlined wherever they are called, as nvcc inlines device functions, and
// not only where LLVM's inliner finds it cheap (see the Rust core's
// Options::inline_always for why that can save registers: ptxas compiles an
// out-of-line function into every kernel that calls it). LLVM's inliners
// honour a function's alwaysinline attribute, so nvregalloc-inline-gate, a
// module pass at the start of the middle end's pipeline (before any
// inliner), gives those functions that attribute. The callees count because
// inlining one function into a bigger caller can leave a call it made
// cheaply out of line there. A function the source keeps out of line
// (__noinline__, optnone) keeps its attribute, and the functions only it
// calls are not reached; a kernel, which nothing calls, gets no attribute,
// but what it calls does.
//
// A new-pass-manager pass: it runs where the middle end runs (clang
// -fpass-plugin, opt -load-pass-plugin, also alone as
// -passes=nvregalloc-inline-gate), not in llc, whose input was optimized
// already.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "RustBridge.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/CallingConv.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"

using namespace llvm;

namespace nvregalloc {

/// The function-options choice this pass applies (src/choices.rs).
static const FunctionChoice InlineAlways("inline", "always");

namespace {
class InlineGatePass : public PassInfoMixin<InlineGatePass> {
public:
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    if (FunctionOptions.empty() || !M.getTargetTriple().isNVPTX())
      return PreservedAnalyses::all();
    // The named functions, then what they call, each once.
    SmallVector<Function *, 16> Work;
    SmallPtrSet<Function *, 16> Seen;
    for (Function &F : M)
      if (!F.isDeclaration() && InlineAlways.isMadeFor(F) &&
          Seen.insert(&F).second)
        Work.push_back(&F);
    bool Changed = false;
    while (!Work.empty()) {
      Function &F = *Work.pop_back_val();
      // clang marks kernels noinline too: nothing calls them.
      bool Kernel = F.getCallingConv() == CallingConv::PTX_Kernel;
      if (!Kernel && F.hasFnAttribute(Attribute::NoInline))
        continue;
      if (!Kernel && !F.hasFnAttribute(Attribute::AlwaysInline)) {
        F.addFnAttr(Attribute::AlwaysInline);
        Changed = true;
        M.getContext().diagnose(
            OptimizationRemark(InlineGatePassArg, "InlineAlways",
                               F.getSubprogram(), &F.getEntryBlock())
            << "function " << F.getName()
            << ": inlined wherever it is called (inline=always)");
      }
      for (Instruction &I : instructions(F))
        if (auto *Call = dyn_cast<CallBase>(&I))
          if (Function *Callee = Call->getCalledFunction())
            if (!Callee->isDeclaration() && Seen.insert(Callee).second)
              Work.push_back(Callee);
    }
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
};
} // namespace

void registerInlineGate(PassBuilder &Builder) {
  registerPassName<ModulePassManager, InlineGatePass>(Builder,
                                                     InlineGatePassArg);
  Builder.registerPipelineStartEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(InlineGatePass());
      });
}

} // namespace nvregalloc

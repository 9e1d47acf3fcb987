//===- Plugin.cpp - how libnvregalloc.so enters llc and clang -----------===//
//
// Loading the library (llc -load-pass-plugin, clang -fpass-plugin) constructs
// the static callback below; LLVM calls it whenever a codegen pipeline is
// built. For NVPTX targets only, it places:
// - nvregalloc-promote-locals-zext right after NaryReassociate, and
//   nvregalloc-mul-wide then nvregalloc-keep-rolled last among the IR
//   passes, right after the stack protector, ahead of instruction selection;
// - nvregalloc-cssa right after LiveVariables, the last point in SSA form
//   before PHIElimination (LiveVariables itself needs SSA form, and the pass
//   leaves it);
// - in replace-stock mode, nvregalloc-stock-coalescer-gate right before
//   LLVM's RegisterCoalescer (after TwoAddressInstruction), which it lets
//   coalesce just the functions our coalescer will not take (or, in an LLVM
//   without -join-liveintervals, LLVM's coalescer is disabled);
// - the pressure (when enabled), coalesce and color passes right after
//   StackSlotColoring, in that order: the first point where LiveIntervals is
//   no longer alive and frame indices can still be added before NVPTX's
//   PrologEpilog pass;
// - nvregalloc-lsr-gate right before LLVM's loop strength reduction (after
//   its freeze canonicalization, found by name: neither pass ID is public)
//   and nvregalloc-lsr-gate-end right after it, so that functions marked
//   lsr=off skip it and the others are copied for nvregalloc-lsr-judge,
//   which follows; with a function-options file, then
//   nvregalloc-sched-gate, which picks instruction selection's scheduler
//   per function;
// - nvregalloc-local-frame after that PrologEpilog pass and NVPTX's peephole
//   (whose IDs are not public), right after RemoveRedundantDebugValues, the
//   first public pass that follows them; with a function-options file,
//   nvregalloc-register-cap there too (its attribute is read by the
//   AsmPrinter).
//
// The middle end (clang -fpass-plugin, opt) gets nvregalloc-inline-gate
// first, nvregalloc-promote-locals-calls before the inliner,
// nvregalloc-unroll-gate and nvregalloc-promote-locals-loops at the end of
// loop simplification and nvregalloc-unroll-gate-end last, through the
// PassBuilder callback handed to the plugin entry point below.
//
// The plugin entry point llvmGetPassPluginInfo is exported by the Rust side
// (src/plugin.rs): a cdylib exports only Rust's own symbols.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"

#include "llvm/CodeGen/Passes.h"
#include "llvm/CodeGen/StackProtector.h"
#include "llvm/CodeGen/TargetPassConfig.h"
#include "llvm/InitializePasses.h"
#include "llvm/PassRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Target/RegisterTargetPassConfigCallback.h"
#include "llvm/Target/TargetMachine.h"

using namespace llvm;

static void registerPassBuilderCallbacks(void *Builder) {
  PassBuilder &PB = *static_cast<PassBuilder *>(Builder);
  nvregalloc::registerInlineGate(PB);
  nvregalloc::registerUnrollGates(PB);
  nvregalloc::registerPromoteLocals(PB);
}

/// The plugin's version and the C ABI's, for -nvregalloc-version and for
/// llc's and opt's --version (bug reports name both).
static void printVersion(raw_ostream &OS) {
  OS << "nvregalloc " << nvra_version() << " (ABI " << NVRA_ABI_VERSION
     << ")\n";
}

static cl::opt<bool> PrintVersion(
    "nvregalloc-version",
    cl::desc("Print the nvregalloc plugin's version and its ABI's"),
    cl::ValueDisallowed, cl::callback([](const bool &On) {
      if (On)
        printVersion(outs());
    }));

static const bool VersionPrinterAdded =
    (cl::AddExtraVersionPrinter(printVersion), true);

/// Runs when the library is loaded, before LLVM asks for the entry point.
static const bool HandedOver =
    (nvra_set_pass_builder_callback(registerPassBuilderCallbacks), true);

/// Brackets LLVM's loop strength reduction with the lsr=off gate, which also
/// takes the copy the LSR judge needs, and its end, and puts the judge after
/// them, then the recomputation of loop invariants (and, with a
/// function-options file, the sched=pressure gate), in
/// the function pass manager that runs instruction selection. LSR and the
/// pass before it register themselves only once they are first made, so
/// they are registered here to be found by name.
static void insertLsrPasses(TargetPassConfig &Config, bool WithChoices) {
  PassRegistry &Registry = *PassRegistry::getPassRegistry();
  initializeCanonicalizeFreezeInLoopsPass(Registry);
  initializeLoopStrengthReducePass(Registry);
  // By name: a string literal alone would pick the overload taking an ID.
  const PassInfo *Freeze = Registry.getPassInfo(StringRef("canon-freeze"));
  const PassInfo *Lsr = Registry.getPassInfo(StringRef("loop-reduce"));
  if (!Freeze || !Lsr)
    return;
  Config.insertPass(Freeze->getTypeInfo(), nvregalloc::LsrGatePassID);
  Config.insertPass(Lsr->getTypeInfo(), nvregalloc::LsrGateEndPassID);
  Config.insertPass(nvregalloc::LsrGateEndPassID, nvregalloc::LsrJudgePassID);
  Config.insertPass(nvregalloc::LsrJudgePassID,
                    nvregalloc::RecomputeInvariantsPassID);
  if (WithChoices)
    Config.insertPass(nvregalloc::RecomputeInvariantsPassID,
                      nvregalloc::SchedGatePassID);
}

/// Puts nvregalloc-promote-locals-zext right after NaryReassociate, before
/// the EarlyCSE that follows it in NVPTX's IR passes, where the addresses it
/// makes equal are merged.
static void insertNonNegativeZext(TargetPassConfig &Config) {
  PassRegistry &Registry = *PassRegistry::getPassRegistry();
  initializeNaryReassociateLegacyPassPass(Registry);
  const PassInfo *Nary = Registry.getPassInfo(StringRef("nary-reassociate"));
  if (Nary)
    Config.insertPass(Nary->getTypeInfo(), nvregalloc::NonNegativeZextPassID);
}

/// Puts nvregalloc-mul-wide last among the IR passes, after the stack
/// protector (which leaves NVPTX's functions alone), where no CSE is left to
/// merge the widenings it copies before instruction selection, and
/// nvregalloc-keep-rolled after it, where every loop is in its final form.
static void insertLastIrPasses(TargetPassConfig &Config) {
  Config.insertPass(&StackProtector::ID, nvregalloc::MulWidePassID);
  Config.insertPass(nvregalloc::MulWidePassID, nvregalloc::KeepRolledPassID);
}

static RegisterTargetPassConfigCallback InsertNvregallocPasses(
    [](TargetMachine &TM, PassManagerBase &, TargetPassConfig *Config) {
      if (!TM.getTargetTriple().isNVPTX())
        return;
      insertNonNegativeZext(*Config);
      insertLastIrPasses(*Config);
      if (nvregalloc::CoalesceMode == NVRA_COALESCE_REPLACE_STOCK) {
        if (nvregalloc::stockJoiningOption())
          Config->insertPass(&TwoAddressInstructionPassID,
                             nvregalloc::StockCoalescerGatePassID);
        else
          Config->disablePass(&RegisterCoalescerID);
      }
      if (nvregalloc::CssaCoalesce)
        Config->insertPass(&LiveVariablesID, nvregalloc::CssaPassID);
      if (nvregalloc::PressureMode != NVRA_PRESSURE_OFF ||
          !nvregalloc::FunctionOptions.empty())
        Config->insertPass(&StackSlotColoringID, nvregalloc::PressurePassID);
      insertLsrPasses(*Config, !nvregalloc::FunctionOptions.empty());
      if (!nvregalloc::FunctionOptions.empty()) {
        Config->insertPass(nvregalloc::KeepRolledPassID,
                           nvregalloc::SharedSpillsPassID);
        Config->insertPass(&RemoveRedundantDebugValuesID,
                           nvregalloc::RegisterCapPassID);
      }
      Config->insertPass(&StackSlotColoringID, nvregalloc::CoalescePassID);
      Config->insertPass(&StackSlotColoringID, nvregalloc::ColorPassID);
      Config->insertPass(&RemoveRedundantDebugValuesID,
                         nvregalloc::LocalFramePassID);
    });

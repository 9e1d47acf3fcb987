//===- ParamInPlacePass.cpp - nvregalloc-promote-locals-param -----------===//
//
// Part of nvregalloc-promote-locals (PromoteLocalsPass.cpp), for NVPTX only,
// off with it. A kernel that passes its by-value parameter on, by value, to
// a device function (a filter table, an array of band pointers) gets a local
// copy of it from clang for the call; once the callee is inlined the copy
// stays, read at whatever index the callee read it. Nothing in LLVM forwards
// it: no pass knows that a kernel's by-value parameter is read-only. NVPTX
// then copies the parameter into local memory byte by byte and reads the
// copy with ld.local, and a loop reading it at a varying index was unrolled
// to make the index a constant. nvcc reads the parameter in place (ld.param
// at a register address, a constant-bank load in SASS).
//
// Here each local whose one write copies its whole size from a kernel's
// by-value parameter, with neither written after, is replaced by the
// parameter: its reads become reads of the parameter, which NVPTXLowerArgs
// lowers to ld.param through a parameter-space pointer. The core decides
// (promote::read_param_in_place). It runs in each function's simplification
// after inlining, before the loop passes (the peephole extension point, and
// again wherever that point comes), silent about the copies it keeps: a call
// taking one may yet be inlined. Last in the middle end it runs once more and
// says why it kept each copy it keeps.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "PointerUses.h"
#include "RustBridge.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/CallingConv.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace nvregalloc {
namespace {

/// Whether anything may write \p Param, a by-value parameter: a store, a
/// memset or memcpy into it, or its address going anywhere a write could
/// come from.
bool mayBeWritten(Argument &Param) {
  return !walkPointerUses(Param, [](const PointerUse &Use) {
    return Use.What == PointerUse::Read || Use.What == PointerUse::Derive ||
           Use.What == PointerUse::Merge || Use.What == PointerUse::Marker;
  });
}

/// A local \p Copy writes whole from a kernel's by-value parameter.
struct ParamCopy {
  AllocaInst *Local;
  MemTransferInst *Copy;
  Argument *Param;
  uint64_t ParamOffset;
  uint64_t Bytes;
  NvraParamCopy Facts;
  /// What reads the local (loads and memcpy sources), and its markers.
  SmallVector<PointerUse, 16> Reads;
  SmallVector<Instruction *, 4> Markers;
};

/// \p Local's facts, if its one write copies its whole size from a by-value
/// parameter of \p F at a constant offset, within the parameter.
std::optional<ParamCopy> copyOfParam(AllocaInst &Local, Function &F) {
  const DataLayout &DL = F.getDataLayout();
  std::optional<TypeSize> Size = Local.getAllocationSize(DL);
  if (!Size || Size->isScalable())
    return std::nullopt;
  ParamCopy Found{&Local, nullptr, nullptr, 0, Size->getFixedValue(), {}, {},
                  {}};
  unsigned Writes = 0;
  bool Walked = walkPointerUses(Local, [&](const PointerUse &Use) {
    switch (Use.What) {
    case PointerUse::Read:
      Found.Reads.push_back(Use);
      if (!Use.Simple)
        Found.Facts.local_escapes = true;
      break;
    case PointerUse::Write:
      ++Writes;
      if (auto *Copy = dyn_cast<MemTransferInst>(Use.user());
          Copy && Use.Simple && Use.Offset == 0 && !Found.Copy)
        Found.Copy = Copy;
      break;
    case PointerUse::Marker:
      Found.Markers.push_back(Use.user());
      break;
    case PointerUse::Derive:
      break;
    case PointerUse::Merge:
    case PointerUse::CastSpace:
    case PointerUse::Escape:
      Found.Facts.local_escapes = true;
      break;
    }
    return true;
  });
  if (!Found.Copy)
    return std::nullopt;
  // A use the walk could not follow may be anything.
  Found.Facts.local_escapes |= !Walked;
  auto *Length = dyn_cast<ConstantInt>(Found.Copy->getLength());
  APInt Offset(DL.getIndexTypeSizeInBits(Found.Copy->getSource()->getType()),
               0);
  auto *Param = dyn_cast<Argument>(
      Found.Copy->getSource()->stripAndAccumulateConstantOffsets(DL, Offset,
                                                                 true));
  if (!Length || Length->getZExtValue() != Found.Bytes || !Param ||
      Param->getParent() != &F || !Param->hasByValAttr() ||
      Offset.isNegative() ||
      Offset.getZExtValue() + Found.Bytes >
          DL.getTypeAllocSize(Param->getParamByValType()))
    return std::nullopt;
  Found.Param = Param;
  Found.ParamOffset = Offset.getZExtValue();
  Found.Facts.local_written = Writes > 1;
  return Found;
}

/// Reads \p Found.Local's readers from the parameter: each read's alignment
/// becomes what the parameter's place guarantees, and the local goes.
void readInPlace(ParamCopy &Found) {
  Align ParamAlign = Found.Param->getParamAlign().valueOrOne();
  Align Base = commonAlignment(
      std::min(ParamAlign, Found.Local->getAlign()), Found.ParamOffset);
  for (const PointerUse &Read : Found.Reads) {
    if (auto *Load = dyn_cast<LoadInst>(Read.user()))
      Load->setAlignment(std::min(Load->getAlign(), Base));
    else if (auto *Copy = dyn_cast<MemTransferInst>(Read.user()))
      Copy->setSourceAlignment(
          std::min(Copy->getSourceAlign().valueOrOne(), Base));
  }
  for (Instruction *Marker : Found.Markers)
    Marker->eraseFromParent();
  Found.Copy->eraseFromParent();
  Value *InPlace = Found.Param;
  if (Found.ParamOffset != 0)
    InPlace = IRBuilder<>(Found.Local).CreateConstInBoundsGEP1_64(
        Type::getInt8Ty(Found.Local->getContext()), Found.Param,
        Found.ParamOffset, Found.Local->getName() + ".in.param");
  Found.Local->replaceAllUsesWith(InPlace);
  Found.Local->eraseFromParent();
}

const char *whyKept(uint32_t Verdict) {
  switch (Verdict) {
  case NVRA_PARAM_WRITTEN:
    return "the parameter is written, or its address escapes";
  case NVRA_PARAM_LOCAL_WRITTEN:
    return "the copy is written";
  default:
    return "the copy's address escapes, or it is read through a pointer "
           "that may point elsewhere";
  }
}
} // namespace

PreservedAnalyses ReadParamInPlacePass::run(Function &F,
                                            FunctionAnalysisManager &) {
  if (F.getCallingConv() != CallingConv::PTX_Kernel || !promotesLocals(F) ||
      none_of(F.args(), [](Argument &A) { return A.hasByValAttr(); }))
    return PreservedAnalyses::all();
  DenseMap<Argument *, bool> Written;
  auto ParamWritten = [&](Argument &Param) {
    auto [It, New] = Written.try_emplace(&Param, false);
    if (New)
      It->second = mayBeWritten(Param);
    return It->second;
  };
  // A copy of a copy of the parameter is one once the first is read in
  // place: another round takes it. Each parameter is told once, after the
  // last round.
  MapVector<Argument *, unsigned> ReadInPlace;
  SmallVector<std::pair<ParamCopy, uint32_t>, 4> Kept;
  for (bool Again = true; Again;) {
    Again = false;
    Kept.clear();
    SmallVector<AllocaInst *, 8> Locals;
    for (Instruction &I : instructions(F))
      if (auto *Local = dyn_cast<AllocaInst>(&I))
        Locals.push_back(Local);
    for (AllocaInst *Local : Locals) {
      std::optional<ParamCopy> Found = copyOfParam(*Local, F);
      if (!Found)
        continue;
      Found->Facts.param_written = ParamWritten(*Found->Param);
      uint32_t Verdict =
          nvra_read_param_in_place(NVRA_ABI_VERSION, &Found->Facts);
      if (Verdict != NVRA_PARAM_READ_IN_PLACE) {
        Kept.push_back({std::move(*Found), Verdict});
        continue;
      }
      ++ReadInPlace[Found->Param];
      readInPlace(*Found);
      Again = true;
    }
  }
  auto Described = [&](auto Remark, Argument &Param, unsigned Copies) {
    Remark << "function " << F.getName() << ": "
           << (Copies == 1 ? "local copy" : "local copies")
           << " of by-value parameter " << ore::NV("Param", Param.getArgNo())
           << " (" << ore::NV("Bytes", F.getDataLayout().getTypeAllocSize(
                                           Param.getParamByValType()))
           << " bytes): ";
    return Remark;
  };
  for (auto &[Param, Copies] : ReadInPlace)
    F.getContext().diagnose(
        Described(OptimizationRemark(ParamInPlacePassArg, "ReadParamInPlace",
                                     &F),
                  *Param, Copies)
        << ore::NV("Copies", Copies)
        << " read in place from the parameter, not copied");
  if (TellKept)
    for (auto &[Copy, Verdict] : Kept)
      F.getContext().diagnose(
          Described(OptimizationRemarkMissed(ParamInPlacePassArg,
                                             "ReadParamInPlace", Copy.Local),
                    *Copy.Param, 1)
          << "kept (" << whyKept(Verdict) << ")");
  bool Changed = !ReadInPlace.empty();
  if (!Changed)
    return PreservedAnalyses::all();
  PreservedAnalyses CFGKept;
  CFGKept.preserveSet<CFGAnalyses>();
  return CFGKept;
}

} // namespace nvregalloc

//===- ExpandCopiesPass.cpp - nvregalloc-promote-locals-expand -----------===//
//
// Part of nvregalloc-promote-locals (PromoteLocalsPass.cpp), for NVPTX only,
// off with it. A memset or memcpy of a constant length, in any state space.
// NVPTX makes one over 64 bytes a loop of byte accesses, which ptxas unrolls
// (a zeroed 136-byte local array: 136 STL.U8, where nvcc makes 17 STL.64),
// and a shorter one accesses of at most 8 bytes (a float4 copied through
// pointers: two 8-byte loads and stores, where nvcc makes one 16-byte load
// and store; the pass reports whether both ends are locals or shared
// memory, where the core widens those). It becomes loads and stores as wide
// as the pointers' alignment, in the width promote::lower_copy chooses, or
// a rolled loop of them past its limit. It runs last in the middle end,
// after the alignment of locals, so that nothing merges them back.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "RustBridge.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Support/NVPTXAddrSpace.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/LoopUtils.h"

using namespace llvm;
using namespace llvm::PatternMatch;

namespace nvregalloc {

namespace {
/// Whether \p Ptr points into a local or into shared memory, where no
/// global memory can be reached.
bool pointsOnChip(const Value *Ptr) {
  const Value *Object = getUnderlyingObject(Ptr);
  auto InSpace = [](unsigned Space) {
    return Space == NVPTXAS::ADDRESS_SPACE_SHARED ||
           Space == NVPTXAS::ADDRESS_SPACE_LOCAL;
  };
  auto *Global = dyn_cast<GlobalVariable>(Object);
  return isa<AllocaInst>(Object) ||
         InSpace(Object->getType()->getPointerAddressSpace()) ||
         (Global && InSpace(Global->getAddressSpace()));
}

/// The type of a \p Bytes-byte access: an integer, or four 32-bit ones for
/// 16 bytes (`st.local.v4.b32`).
Type *accessType(LLVMContext &Context, uint64_t Bytes) {
  if (Bytes == 16)
    return FixedVectorType::get(Type::getInt32Ty(Context), 4);
  return Type::getIntNTy(Context, Bytes * 8);
}

/// A constant of \p Ty with every byte \p Byte.
Constant *filledWith(Type *Ty, const APInt &Byte) {
  auto *Vector = dyn_cast<FixedVectorType>(Ty);
  Type *Element = Vector ? Vector->getElementType() : Ty;
  Constant *Word = ConstantInt::get(
      Element, APInt::getSplat(Element->getIntegerBitWidth(), Byte));
  return Vector ? ConstantVector::getSplat(Vector->getElementCount(), Word)
                : Word;
}
} // namespace

PreservedAnalyses ExpandCopiesPass::run(Function &F,
                                        FunctionAnalysisManager &) {
  if (!promotesLocals(F))
    return PreservedAnalyses::all();
  const DataLayout &DL = F.getDataLayout();
  SmallVector<MemIntrinsic *, 8> Candidates;
  for (Instruction &I : instructions(F))
    if (auto *Copy = dyn_cast<MemIntrinsic>(&I);
        Copy && isa<MemSetInst, MemCpyInst>(Copy) && !Copy->isVolatile() &&
        isa<ConstantInt>(Copy->getLength()))
      Candidates.push_back(Copy);
  NvraPromoteLimits Limits = promoteLimits(F);
  bool Changed = false, Looped = false;
  for (MemIntrinsic *Copy : Candidates) {
    auto *Set = dyn_cast<MemSetInst>(Copy);
    auto *Transfer = dyn_cast<MemCpyInst>(Copy);
    // A memset of a value known only at run time is rare: left to NVPTX.
    auto *Byte = Set ? dyn_cast<ConstantInt>(Set->getValue()) : nullptr;
    if (Set && !Byte)
      continue;
    Align DestAlign = std::max(Copy->getDestAlign().valueOrOne(),
                               getKnownAlignment(Copy->getRawDest(), DL));
    Align SourceAlign =
        Transfer ? std::max(Transfer->getSourceAlign().valueOrOne(),
                            getKnownAlignment(Transfer->getRawSource(), DL))
                 : DestAlign;
    NvraMemCopy Facts{};
    Facts.bytes = cast<ConstantInt>(Copy->getLength())->getZExtValue();
    Facts.align = std::min(DestAlign, SourceAlign).value();
    Facts.on_chip = pointsOnChip(Copy->getRawDest()) &&
                    (!Transfer || pointsOnChip(Transfer->getRawSource()));
    NvraCopyLowering Lowering =
        nvra_lower_copy(NVRA_ABI_VERSION, &Limits, &Facts);
    uint64_t Width = Lowering.width;
    if (Width == 0 || !isPowerOf2_64(Width))
      continue;
    Type *Wide = accessType(F.getContext(), Width);
    // One piece of Ty at Offset (a constant, or the loop's byte offset),
    // known to be a multiple of Known.
    auto Piece = [&](IRBuilder<> &Builder, Type *Ty, Value *Offset,
                     uint64_t Known) {
      auto At = [&](Value *Base) {
        return match(Offset, m_Zero()) ? Base
                                       : Builder.CreateInBoundsGEP(
                                             Builder.getInt8Ty(), Base, Offset);
      };
      Value *Stored;
      if (Set)
        Stored = filledWith(Ty, Byte->getValue());
      else
        Stored = Builder.CreateAlignedLoad(Ty, At(Transfer->getRawSource()),
                                           commonAlignment(SourceAlign, Known));
      Builder.CreateAlignedStore(Stored, At(Copy->getRawDest()),
                                 commonAlignment(DestAlign, Known));
    };
    uint64_t Offset = 0;
    unsigned Pieces = 0;
    if (Lowering.loop) {
      // Whole Width pieces in a loop that ptxas leaves rolled (NVPTX prints
      // llvm.loop.unroll.disable as .pragma "nounroll"); the rest after it.
      uint64_t Trips = Facts.bytes / Width;
      auto [Body, Index] = SplitBlockAndInsertSimpleForLoop(
          ConstantInt::get(Type::getInt64Ty(F.getContext()), Trips),
          Copy->getIterator());
      IRBuilder<> Builder(Body);
      Piece(Builder, Wide, Builder.CreateMul(Index, Builder.getInt64(Width)),
            Width);
      LLVMContext &Context = F.getContext();
      MDNode *Disable = MDNode::get(
          Context, MDString::get(Context, "llvm.loop.unroll.disable"));
      Body->getParent()->getTerminator()->setMetadata(
          LLVMContext::MD_loop,
          makePostTransformationMetadata(Context, nullptr, {}, {Disable}));
      Looped = true;
      Offset = Trips * Width;
      Pieces = Trips;
    }
    IRBuilder<> Builder(Copy);
    for (; Offset < Facts.bytes; ++Pieces) {
      // Pieces of non-increasing powers of two: each offset is a multiple
      // of the piece at it, so each piece keeps its width's alignment.
      uint64_t Size = Width;
      while (Size > Facts.bytes - Offset)
        Size /= 2;
      Piece(Builder, accessType(F.getContext(), Size),
            Builder.getInt64(Offset), Offset);
      Offset += Size;
    }
    F.getContext().diagnose(
        OptimizationRemark(ExpandCopiesPassArg, "ExpandCopy", Copy)
        << "function " << F.getName() << ": " << (Set ? "memset" : "memcpy")
        << " of " << ore::NV("Bytes", Facts.bytes) << " bytes: "
        << ore::NV("Pieces", Pieces)
        << (Set ? " stores" : " loads and as many stores") << " of up to "
        << ore::NV("Width", Width) << " bytes"
        << (Lowering.loop ? ", in a loop left rolled" : "")
        << ", where NVPTX's would be narrower");
    Copy->eraseFromParent();
    Changed = true;
  }
  if (!Changed)
    return PreservedAnalyses::all();
  if (Looped)
    return PreservedAnalyses::none();
  PreservedAnalyses Kept;
  Kept.preserveSet<CFGAnalyses>();
  return Kept;
}

} // namespace nvregalloc

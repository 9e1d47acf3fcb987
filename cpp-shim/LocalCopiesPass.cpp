//===- LocalCopiesPass.cpp - rewrites that free local memory -----------===//
//
// Part of nvregalloc-promote-locals (PromoteLocalsPass.cpp), for NVPTX only,
// off with it. Shapes clang leaves in local memory where nvcc does not:
// - nvregalloc-promote-locals-copies: a small local that is only ever
//   copied whole by memcpy/memmove (`float4 t = *a; *a = *b; *b = t;`
//   becomes a 16-byte alloca between two memcpys). SROA promotes only what
//   a load or store gives a type, and InstCombine turns only copies of up to
//   8 bytes into loads and stores, so the alloca stays. Each copy becomes a
//   load and a store of the alloca's own type (one with no padding, which a
//   typed copy would not keep), which SROA then promotes. It runs before the
//   inliner, on each function, where the copies are made.
// - nvregalloc-promote-locals-byval: stores into a kernel's by-value
//   parameter. NVPTX copies a parameter that is written to local memory
//   (the parameter space is read-only), so a store that nothing reads keeps
//   a local frame alive (CUB's GridEvenShare, filled in by the kernel, is
//   one). The parameter's memory dies when the kernel returns, so a store
//   no load of the parameter can read is dead; DSE does not delete stores to
//   a byval argument. It runs last in the middle end.
// - nvregalloc-promote-locals-forward: loads of what a store put in a local
//   earlier in the same block. GVN forwards a store to a load only within
//   the 100 instructions memdep scans back (-memdep-block-scan-limit), and
//   a fully unrolled loop over a matrix puts them further apart; EarlyCSE
//   ran before the unroller and SROA does not take a local it cannot split.
//   In one pass over each block, each load at a constant offset takes the
//   value of the last store there of the same type, for locals whose address
//   goes only to loads, stores, GEPs and memory intrinsics (which forget
//   what they write over). It runs after the function's scalar
//   optimizations; InstCombine then deletes an alloca left with stores only.
// - nvregalloc-promote-locals-expand: a memset or memcpy of a local, of a
//   constant length over the 64 bytes NVPTX lowers inline. NVPTX makes a
//   longer one a loop of byte accesses, which ptxas unrolls (a zeroed
//   136-byte array: 136 STL.U8, where nvcc makes 17 STL.64). It becomes
//   loads and stores as wide as the pointers' alignment, in the width
//   promote::expanded_copy_width chooses. It runs last in the middle end,
//   after the alignment of locals, so that nothing merges them back.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "RustBridge.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/CallingConv.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/LoopUtils.h"

using namespace llvm;
using namespace llvm::PatternMatch;

namespace nvregalloc {

static cl::opt<uint64_t> MaxCopiedBytes(
    "nvregalloc-promote-max-copied-bytes",
    cl::desc("Locals only copied whole by memcpy, of at most this many "
             "bytes, are copied by typed loads and stores instead"),
    cl::init(NVRA_PROMOTE_DEFAULT_MAX_COPIED_BYTES));
static ShowDefault MaxCopiedBytesDefault(MaxCopiedBytes);

namespace {
/// Whether a load and store of \p Ty copy all of its bytes: no padding.
bool copiesWhole(Type *Ty, const DataLayout &DL) {
  if (!Ty->isSized() || DL.getTypeStoreSize(Ty) != DL.getTypeAllocSize(Ty))
    return false;
  if (auto *Struct = dyn_cast<StructType>(Ty))
    return !DL.getStructLayout(Struct)->hasPadding() &&
           all_of(Struct->elements(),
                  [&](Type *E) { return copiesWhole(E, DL); });
  if (auto *Array = dyn_cast<ArrayType>(Ty))
    return copiesWhole(Array->getElementType(), DL);
  return Ty->isSingleValueType();
}

/// The whole-size copies into and out of \p Alloca, if that is all it is
/// used for (besides lifetime markers).
bool wholeCopies(AllocaInst &Alloca, uint64_t Bytes,
                 SmallVectorImpl<MemTransferInst *> &Copies) {
  for (User *U : Alloca.users()) {
    if (auto *Marker = dyn_cast<IntrinsicInst>(U);
        Marker && Marker->isLifetimeStartOrEnd())
      continue;
    auto *Copy = dyn_cast<MemTransferInst>(U);
    auto *Length = Copy ? dyn_cast<ConstantInt>(Copy->getLength()) : nullptr;
    if (!Length || Copy->isVolatile() || Length->getZExtValue() != Bytes ||
        Copy->getRawDest() == Copy->getRawSource())
      return false;
    Copies.push_back(Copy);
  }
  return !Copies.empty();
}
} // namespace

PreservedAnalyses TypedCopiesPass::run(Function &F,
                                       FunctionAnalysisManager &) {
  if (!promotesLocals(F))
    return PreservedAnalyses::all();
  const DataLayout &DL = F.getDataLayout();
  SmallVector<AllocaInst *, 8> Allocas;
  for (Instruction &I : instructions(F))
    if (auto *Alloca = dyn_cast<AllocaInst>(&I))
      Allocas.push_back(Alloca);
  bool Changed = false;
  for (AllocaInst *Alloca : Allocas) {
    Type *Ty = Alloca->getAllocatedType();
    std::optional<TypeSize> Size = Alloca->getAllocationSize(DL);
    SmallVector<MemTransferInst *, 4> Copies;
    if (!Size || Size->isScalable() || Size->getFixedValue() > MaxCopiedBytes ||
        !copiesWhole(Ty, DL) ||
        !wholeCopies(*Alloca, Size->getFixedValue(), Copies))
      continue;
    for (MemTransferInst *Copy : Copies) {
      IRBuilder<> Builder(Copy);
      LoadInst *Value = Builder.CreateAlignedLoad(
          Ty, Copy->getRawSource(), Copy->getSourceAlign().valueOrOne());
      Builder.CreateAlignedStore(Value, Copy->getRawDest(),
                                 Copy->getDestAlign().valueOrOne());
      Copy->eraseFromParent();
    }
    Changed = true;
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

PreservedAnalyses DeadByvalStoresPass::run(Function &F,
                                           FunctionAnalysisManager &) {
  if (F.getCallingConv() != CallingConv::PTX_Kernel || !promotesLocals(F))
    return PreservedAnalyses::all();
  const DataLayout &DL = F.getDataLayout();
  bool Changed = false;
  for (Argument &Param : F.args()) {
    if (!Param.hasByValAttr())
      continue;
    // Every access at a constant offset, through constant GEPs only;
    // anything else may read the parameter, and it is left as it is.
    struct Access {
      Instruction *Inst;
      uint64_t Begin, End;
    };
    SmallVector<Access, 8> Loads, Stores;
    SmallVector<std::pair<Value *, uint64_t>, 8> Work{{&Param, 0}};
    bool Known = true;
    while (!Work.empty() && Known) {
      auto [Ptr, Offset] = Work.pop_back_val();
      for (User *U : Ptr->users()) {
        if (auto *GEP = dyn_cast<GEPOperator>(U)) {
          APInt More(DL.getIndexTypeSizeInBits(GEP->getType()), 0);
          if (!GEP->accumulateConstantOffset(DL, More) || More.isNegative()) {
            Known = false;
            break;
          }
          Work.push_back({GEP, Offset + More.getZExtValue()});
        } else if (auto *Load = dyn_cast<LoadInst>(U)) {
          Loads.push_back({Load, Offset,
                           Offset + DL.getTypeStoreSize(Load->getType())});
        } else if (auto *Store = dyn_cast<StoreInst>(U);
                   Store && Store->getPointerOperand() == Ptr &&
                   Store->isSimple()) {
          Type *Stored = Store->getValueOperand()->getType();
          Stores.push_back(
              {Store, Offset, Offset + DL.getTypeStoreSize(Stored)});
        } else {
          Known = false;
          break;
        }
      }
    }
    if (!Known)
      continue;
    for (const Access &Store : Stores) {
      bool Read = any_of(Loads, [&](const Access &Load) {
        return Load.Begin < Store.End && Store.Begin < Load.End;
      });
      if (!Read) {
        Store.Inst->eraseFromParent();
        Changed = true;
      }
    }
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

namespace {
/// Each load, store and memory intrinsic that accesses one local, with the
/// constant byte offset it accesses at, if it has one.
using LocalAccesses = DenseMap<const Instruction *, std::optional<int64_t>>;

/// The accesses to \p Alloca; false if its address goes anywhere else (a
/// call, a store of the address itself, a volatile access), where an
/// access this pass does not see could read or write it.
bool collectAccesses(AllocaInst &Alloca, const DataLayout &DL,
                     LocalAccesses &Out) {
  SmallVector<std::pair<Value *, std::optional<int64_t>>, 16> Work{
      {&Alloca, 0}};
  while (!Work.empty()) {
    auto [Ptr, Offset] = Work.pop_back_val();
    for (User *U : Ptr->users()) {
      auto *I = dyn_cast<Instruction>(U);
      if (!I)
        return false;
      if (auto *GEP = dyn_cast<GetElementPtrInst>(I)) {
        APInt More(DL.getIndexTypeSizeInBits(GEP->getType()), 0);
        std::optional<int64_t> Next;
        if (Offset && GEP->accumulateConstantOffset(DL, More))
          Next = *Offset + More.getSExtValue();
        Work.push_back({GEP, Next});
      } else if (auto *Load = dyn_cast<LoadInst>(I)) {
        if (!Load->isSimple())
          return false;
        Out[Load] = Offset;
      } else if (auto *Store = dyn_cast<StoreInst>(I)) {
        if (!Store->isSimple() || Store->getValueOperand() == Ptr)
          return false;
        Out[Store] = Offset;
      } else if (auto *Intrinsic = dyn_cast<IntrinsicInst>(I)) {
        if (Intrinsic->isLifetimeStartOrEnd() || Intrinsic->isDroppable())
          continue;
        auto *Memory = dyn_cast<MemIntrinsic>(Intrinsic);
        if (!Memory || Memory->isVolatile())
          return false;
        Out[Memory] = std::nullopt;
      } else {
        return false;
      }
    }
  }
  return true;
}

/// One pass over \p Block for one local: each load at a constant offset
/// that reads exactly what the last store there wrote (same offset, same
/// type, nothing written over it since) takes the stored value. Returns
/// the loads replaced.
unsigned forwardInBlock(BasicBlock &Block, const LocalAccesses &Accesses,
                        const DataLayout &DL) {
  struct Stored {
    int64_t Begin, End;
    Value *Written;
  };
  SmallVector<Stored, 16> Live; // disjoint byte ranges
  unsigned Forwarded = 0;
  for (Instruction &I : make_early_inc_range(Block)) {
    auto Found = Accesses.find(&I);
    if (Found == Accesses.end())
      continue;
    std::optional<int64_t> Offset = Found->second;
    if (auto *Store = dyn_cast<StoreInst>(&I)) {
      if (!Offset) {
        Live.clear();
        continue;
      }
      Value *Written = Store->getValueOperand();
      int64_t End = *Offset + DL.getTypeStoreSize(Written->getType());
      erase_if(Live, [&](const Stored &S) {
        return S.Begin < End && *Offset < S.End;
      });
      Live.push_back({*Offset, End, Written});
    } else if (auto *Load = dyn_cast<LoadInst>(&I)) {
      auto Hit = find_if(Live, [&](const Stored &S) {
        return Offset && S.Begin == *Offset &&
               S.Written->getType() == Load->getType();
      });
      if (Hit == Live.end())
        continue;
      Load->replaceAllUsesWith(Hit->Written);
      Load->eraseFromParent();
      ++Forwarded;
    } else {
      // A memory intrinsic may write the local anywhere (one that only
      // copies out of it is rare enough not to tell apart).
      Live.clear();
    }
  }
  return Forwarded;
}
} // namespace

PreservedAnalyses LocalForwardingPass::run(Function &F,
                                           FunctionAnalysisManager &) {
  if (!promotesLocals(F))
    return PreservedAnalyses::all();
  const DataLayout &DL = F.getDataLayout();
  SmallVector<AllocaInst *, 8> Allocas;
  for (Instruction &I : F.getEntryBlock())
    if (auto *Alloca = dyn_cast<AllocaInst>(&I))
      Allocas.push_back(Alloca);
  unsigned Forwarded = 0;
  for (AllocaInst *Alloca : Allocas) {
    LocalAccesses Accesses;
    if (!collectAccesses(*Alloca, DL, Accesses))
      continue;
    unsigned Here = 0;
    for (BasicBlock &Block : F)
      Here += forwardInBlock(Block, Accesses, DL);
    if (Here == 0)
      continue;
    Forwarded += Here;
    F.getContext().diagnose(
        OptimizationRemark(LocalForwardingPassArg, "ForwardLocal", Alloca)
        << "function " << F.getName() << ": " << ore::NV("Loads", Here)
        << " loads from a local take the value stored before them");
  }
  if (Forwarded == 0)
    return PreservedAnalyses::all();
  PreservedAnalyses Kept;
  Kept.preserveSet<CFGAnalyses>();
  return Kept;
}

namespace {
/// Whether \p Ptr points into a local (an alloca) of \p F.
bool pointsToLocal(const Value *Ptr, const Function &F) {
  uint64_t Bytes = 0;
  return localArray(Ptr, F, Bytes) != nullptr;
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

PreservedAnalyses ExpandLocalCopiesPass::run(Function &F,
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
  NvraPromoteLimits Limits = promoteLimits();
  bool Changed = false, Looped = false;
  for (MemIntrinsic *Copy : Candidates) {
    auto *Set = dyn_cast<MemSetInst>(Copy);
    auto *Transfer = dyn_cast<MemCpyInst>(Copy);
    // A memset of a value known only at run time is rare: left to NVPTX.
    auto *Byte = Set ? dyn_cast<ConstantInt>(Set->getValue()) : nullptr;
    if ((Set && !Byte) ||
        !(pointsToLocal(Copy->getRawDest(), F) ||
          (Transfer && pointsToLocal(Transfer->getRawSource(), F))))
      continue;
    Align DestAlign = std::max(Copy->getDestAlign().valueOrOne(),
                               getKnownAlignment(Copy->getRawDest(), DL));
    Align SourceAlign =
        Transfer ? std::max(Transfer->getSourceAlign().valueOrOne(),
                            getKnownAlignment(Transfer->getRawSource(), DL))
                 : DestAlign;
    NvraLocalCopy Facts{};
    Facts.bytes = cast<ConstantInt>(Copy->getLength())->getZExtValue();
    Facts.align = std::min(DestAlign, SourceAlign).value();
    NvraCopyLowering Lowering =
        nvra_lower_local_copy(NVRA_ABI_VERSION, &Limits, &Facts);
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
        OptimizationRemark(ExpandLocalCopiesPassArg, "ExpandLocalCopy", Copy)
        << "function " << F.getName() << ": " << (Set ? "memset" : "memcpy")
        << " of " << ore::NV("Bytes", Facts.bytes) << " bytes of a local: "
        << ore::NV("Pieces", Pieces)
        << (Set ? " stores" : " loads and as many stores") << " of up to "
        << ore::NV("Width", Width) << " bytes"
        << (Lowering.loop ? ", in a loop left rolled" : "")
        << ", not a loop over each byte");
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

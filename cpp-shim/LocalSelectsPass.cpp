//===- LocalSelectsPass.cpp - nvregalloc-promote-locals-select ---------===//
//
// Part of nvregalloc-promote-locals (PromoteLocalsPass.cpp), for NVPTX only,
// off with it. A small local array that some load or store indexes by a
// value computed from data (a bucket chosen by comparisons, an entry looked
// up), or by the counter of a loop left rolled for its long iterations
// (nvregalloc-promote-locals-loops), stays in local memory: SROA splits a
// local only where every offset is a constant, and ptxas keeps such an
// array in registers only while it is small and has few such accesses.
// Here each such access becomes
// accesses at each offset it may have (an element of the access's type,
// within the local, agreeing with what the offset's known bits and range
// allow) and selects among them: a load picks the element whose offset
// equals its own, a store writes each element it may reach with its value
// or the element's own. SROA, run on the function right after, then makes
// the local scalars. The core decides (promote::selects_local: small, not
// too many selects, used by a loop that does not fill it, and each loop
// that steps an offset long beside the selects it would run); each local
// gets a remark. It runs last in the middle end, after the unrollers, where
// what is still a local would be local memory; a loop left rolled whose
// accesses it makes selects is marked so for ptxas.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "PointerUses.h"
#include "RustBridge.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/Utils/Local.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Support/KnownBits.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Utils/LoopUtils.h"

#include <memory>
#include <variant>

using namespace llvm;
using namespace llvm::PatternMatch;

namespace nvregalloc {
namespace {

/// How a local is used, when every use is one this pass can rewrite or SROA
/// can split once it has (else the rewrite would only add accesses): loads
/// and stores of one element type, memory intrinsics and lifetime markers
/// at constant offsets, through GEPs, phis and selects.
struct LocalUses {
  Type *Element = nullptr;
  /// The loads and stores at an offset that is not a constant (decided by
  /// data, or stepped by a loop).
  SmallVector<Instruction *, 8> Dynamic;
  /// The stores and memory intrinsics that write it at a constant offset.
  SmallVector<Instruction *, 8> Writes;
  /// The loads and stores at a constant offset of a type other than the
  /// element's that covers whole elements (`= {0, 0}` of a `uint32_t[2]` is
  /// one 8-byte store), split into the elements' before the rewrite.
  SmallVector<Instruction *, 4> Wide;
  /// The GEPs, phis and selects of the local's address.
  SmallVector<Instruction *, 8> Pointers;
};

/// Why a local indexed at offsets that are not constants is not one this
/// pass can rewrite, for its remark.
enum class Unfit {
  /// Its address goes to a call, is stored, compared or cast to an integer.
  Escapes,
  /// A volatile or atomic access.
  NotSimple,
  /// A phi or select merges its address with another pointer's.
  MayPointElsewhere,
  /// Accessed as elements of two types, or partly.
  MixedElements,
  /// A memory intrinsic of a length or at an offset that is not a
  /// constant.
  DynamicIntrinsic,
};

const char *whyUnfit(Unfit Why) {
  switch (Why) {
  case Unfit::Escapes:
    return "its address goes to a call, or is stored, compared or made an "
           "integer";
  case Unfit::NotSimple:
    return "a volatile or atomic access";
  case Unfit::MayPointElsewhere:
    return "a phi or select merges its address with another pointer";
  case Unfit::MixedElements:
    return "it is accessed as elements of two types, or in part of an "
           "element";
  case Unfit::DynamicIntrinsic:
    return "a memset or memcpy of it has a length or an offset that is not a "
           "constant";
  }
  llvm_unreachable("every Unfit is named");
}

/// Whether \p Ty is an element a select can choose: a scalar that fills
/// its bytes.
bool selectable(Type *Ty, const DataLayout &DL) {
  return (Ty->isIntegerTy() || Ty->isFloatingPointTy() || Ty->isPointerTy()) &&
         DL.getTypeStoreSize(Ty) == DL.getTypeAllocSize(Ty) &&
         isPowerOf2_64(DL.getTypeStoreSize(Ty));
}

/// The type of a load or store.
Type *accessedType(const Instruction &I) {
  if (const auto *Load = dyn_cast<LoadInst>(&I))
    return Load->getType();
  return cast<StoreInst>(I).getValueOperand()->getType();
}

/// Whether a load or store of \p Ty at a constant offset covers whole
/// elements of \p Element, into which it can be split: integers and
/// floating-point values of a multiple of its size (made integers and
/// shifted), or vectors of it.
bool coversElements(Type *Ty, Type *Element, const DataLayout &DL) {
  if (auto *Vector = dyn_cast<FixedVectorType>(Ty))
    return Vector->getElementType() == Element;
  uint64_t Size = DL.getTypeStoreSize(Ty);
  uint64_t ElementSize = DL.getTypeStoreSize(Element);
  return DL.isLittleEndian() && !Element->isPointerTy() &&
         selectable(Ty, DL) && Size > ElementSize && Size % ElementSize == 0;
}

/// \p Alloca's uses, or why one is of a kind this pass cannot rewrite: an
/// escape, a pointer that may also point elsewhere, a volatile or atomic
/// access, two element types (but for whole elements at a constant offset),
/// or one at a constant offset not on an element.
std::variant<LocalUses, Unfit> usesOf(AllocaInst &Alloca, uint64_t Bytes) {
  const DataLayout &DL = Alloca.getDataLayout();
  LocalUses Uses;
  SmallPtrSet<Value *, 8> Seen{&Alloca};
  /// The loads and stores at a constant offset, checked against the element
  /// type once the walk knows it: the type of the accesses at offsets that
  /// are not constants.
  SmallVector<std::pair<Instruction *, uint64_t>, 8> AtConstant;
  std::optional<Unfit> Why;
  auto Fail = [&](Unfit Reason) {
    Why = Reason;
    return false;
  };
  auto Access = [&](Instruction &I, Value *Ptr) {
    APInt Offset(DL.getIndexTypeSizeInBits(Ptr->getType()), 0);
    if (Ptr->stripAndAccumulateConstantOffsets(DL, Offset, true) != &Alloca) {
      Type *Ty = accessedType(I);
      if ((Uses.Element && Uses.Element != Ty) || !selectable(Ty, DL) ||
          Bytes % DL.getTypeStoreSize(Ty) != 0)
        return Fail(Unfit::MixedElements);
      Uses.Element = Ty;
      Uses.Dynamic.push_back(&I);
      return true;
    }
    if (isa<StoreInst>(I))
      Uses.Writes.push_back(&I);
    if (Offset.isNegative())
      return Fail(Unfit::MixedElements);
    AtConstant.emplace_back(&I, Offset.getZExtValue());
    return true;
  };
  bool Fits = walkPointerUses(Alloca, [&](const PointerUse &Use) {
    Instruction *I = Use.user();
    Value *Ptr = Use.pointer();
    switch (Use.What) {
    case PointerUse::Derive:
    case PointerUse::Merge:
      if (Seen.insert(I).second)
        Uses.Pointers.push_back(I);
      return isa<GetElementPtrInst, PHINode, SelectInst>(I) ||
             Fail(Unfit::Escapes);
    case PointerUse::Marker:
      return true;
    case PointerUse::Read:
    case PointerUse::Write:
      if (!Use.Simple)
        return Fail(Unfit::NotSimple);
      if (isa<LoadInst, StoreInst>(I))
        return Access(*I, Ptr);
      // What SROA splits: a memory intrinsic of a constant length at a
      // constant offset.
      if (Use.What == PointerUse::Write)
        Uses.Writes.push_back(I);
      return (isa<ConstantInt>(cast<MemIntrinsic>(I)->getLength()) &&
              Use.Offset.has_value()) ||
             Fail(Unfit::DynamicIntrinsic);
    default:
      return Fail(Unfit::Escapes);
    }
  });
  if (!Fits)
    return Why.value_or(Unfit::Escapes);
  // A phi or select that merges the local's address with another pointer
  // may point elsewhere.
  for (Instruction *Pointer : Uses.Pointers)
    if (isa<PHINode, SelectInst>(Pointer) &&
        any_of(Pointer->operands(), [&](Value *Operand) {
          return Operand->getType()->isPointerTy() && !Seen.contains(Operand);
        }))
      return Unfit::MayPointElsewhere;
  if (!Uses.Element)
    return Uses;
  uint64_t ElementSize = DL.getTypeStoreSize(Uses.Element);
  for (auto [I, Offset] : AtConstant) {
    Type *Ty = accessedType(*I);
    uint64_t Size = DL.getTypeStoreSize(Ty);
    if (Offset % ElementSize != 0 || Offset + Size > Bytes)
      return Unfit::MixedElements;
    if (Ty == Uses.Element)
      continue;
    if (!coversElements(Ty, Uses.Element, DL))
      return Unfit::MixedElements;
    Uses.Wide.push_back(I);
  }
  return Uses;
}

/// Whether some load or store of \p Alloca is at an offset that is not a
/// constant: a local this pass is about.
bool indexedAtVaryingOffsets(AllocaInst &Alloca) {
  bool Varying = false;
  walkPointerUses(Alloca, [&](const PointerUse &Use) {
    Varying |=
        (Use.What == PointerUse::Read || Use.What == PointerUse::Write) &&
        isa<LoadInst, StoreInst>(Use.user()) && !Use.Offset;
    return !Varying;
  });
  return Varying;
}

/// Splits \p Access, a load or store at a constant offset that covers whole
/// elements of \p Element (coversElements), into one per element, at the
/// same place.
void splitIntoElements(Instruction &Access, Type *Element) {
  const DataLayout &DL = Access.getDataLayout();
  IRBuilder<> Builder(&Access);
  Value *Ptr = getLoadStorePointerOperand(&Access);
  Align Alignment = getLoadStoreAlignment(&Access);
  Type *Ty = accessedType(Access);
  uint64_t ElementSize = DL.getTypeStoreSize(Element);
  unsigned Pieces = DL.getTypeStoreSize(Ty) / ElementSize;
  auto *Vector = dyn_cast<FixedVectorType>(Ty);
  IntegerType *Whole = Builder.getIntNTy(DL.getTypeStoreSizeInBits(Ty));
  IntegerType *Piece = Builder.getIntNTy(DL.getTypeStoreSizeInBits(Element));
  auto PieceAt = [&](unsigned J) {
    return std::make_pair(
        Builder.CreateConstInBoundsGEP1_64(Builder.getInt8Ty(), Ptr,
                                           J * ElementSize),
        commonAlignment(Alignment, J * ElementSize));
  };
  if (auto *Store = dyn_cast<StoreInst>(&Access)) {
    Value *Stored = Store->getValueOperand();
    Value *Bits = Vector ? nullptr : Builder.CreateBitCast(Stored, Whole);
    for (unsigned J = 0; J != Pieces; ++J) {
      Value *Part;
      if (Vector) {
        Part = Builder.CreateExtractElement(Stored, J);
      } else {
        Part = Builder.CreateTrunc(
            J ? Builder.CreateLShr(Bits, J * Piece->getBitWidth()) : Bits,
            Piece);
        Part = Builder.CreateBitCast(Part, Element);
      }
      auto [At, PartAlign] = PieceAt(J);
      Builder.CreateAlignedStore(Part, At, PartAlign);
    }
  } else {
    Value *Result = Vector ? PoisonValue::get(Ty) : nullptr;
    for (unsigned J = 0; J != Pieces; ++J) {
      auto [At, PartAlign] = PieceAt(J);
      Value *Part = Builder.CreateAlignedLoad(Element, At, PartAlign);
      if (Vector) {
        Result = Builder.CreateInsertElement(Result, Part, J);
        continue;
      }
      Value *Shifted =
          Builder.CreateZExt(Builder.CreateBitCast(Part, Piece), Whole);
      if (J)
        Shifted = Builder.CreateShl(Shifted, J * Piece->getBitWidth());
      Result = Result ? Builder.CreateOr(Result, Shifted) : Shifted;
    }
    if (!Vector)
      Result = Builder.CreateBitCast(Result, Ty);
    Access.replaceAllUsesWith(Result);
  }
  Access.eraseFromParent();
}

/// Builds each pointer into one local as its byte offset from the local,
/// an integer computed where the pointer is.
class OffsetBuilder {
  AllocaInst &Local;
  IntegerType *Int;
  DenseMap<Value *, Value *> Built;
  SmallVector<Instruction *, 16> Made;

  /// Records what it makes, for erase().
  IRBuilder<ConstantFolder, IRBuilderCallbackInserter> Builder;

public:
  explicit OffsetBuilder(AllocaInst &Local)
      : Local(Local),
        Int(cast<IntegerType>(
            Local.getDataLayout().getIndexType(Local.getType()))),
        Builder(Local.getContext(), ConstantFolder(),
                IRBuilderCallbackInserter(
                    [this](Instruction *I) { Made.push_back(I); })) {}

  Value *of(Value *Ptr) {
    if (Ptr == &Local)
      return ConstantInt::get(Int, 0);
    if (Value *Known = Built.lookup(Ptr))
      return Known;
    if (auto *Phi = dyn_cast<PHINode>(Ptr)) {
      // Made before its incoming offsets, which a loop may build from it.
      Builder.SetInsertPoint(Phi);
      PHINode *Offset = Builder.CreatePHI(Int, Phi->getNumIncomingValues());
      Built[Ptr] = Offset;
      for (unsigned I = 0; I != Phi->getNumIncomingValues(); ++I)
        Offset->addIncoming(of(Phi->getIncomingValue(I)),
                            Phi->getIncomingBlock(I));
      return Offset;
    }
    Value *Result;
    if (auto *GEP = dyn_cast<GetElementPtrInst>(Ptr)) {
      Value *Base = of(GEP->getPointerOperand());
      Builder.SetInsertPoint(GEP);
      Value *Own = Builder.CreateSExtOrTrunc(
          emitGEPOffset(&Builder, Local.getDataLayout(), GEP), Int);
      // No add of a zero base: each level of it is one fewer that known
      // bits look through (six in all).
      Result = match(Base, m_Zero()) ? Own : Builder.CreateAdd(Base, Own);
    } else {
      auto *Select = cast<SelectInst>(Ptr);
      Value *True = of(Select->getTrueValue());
      Value *False = of(Select->getFalseValue());
      Builder.SetInsertPoint(Select);
      Result = Builder.CreateSelect(Select->getCondition(), True, False);
    }
    return Built[Ptr] = Result;
  }

  /// Erases what was built, when the local is left as it was.
  void erase() {
    for (Instruction *I : Made)
      I->replaceAllUsesWith(PoisonValue::get(I->getType()));
    for (Instruction *I : Made)
      I->eraseFromParent();
  }
};

/// The offsets of the elements of \p Size bytes within \p Bytes that
/// \p Offset may be, as its known bits and range allow.
SmallVector<uint64_t, 16> elementsAt(Value *Offset, uint64_t Size,
                                     uint64_t Bytes, const DataLayout &DL) {
  return elementsAgreeing(
      computeKnownBits(Offset, DL),
      computeConstantRange(Offset, /*ForSigned=*/false), Size, Bytes);
}

/// What varies the offset of a load or store into a local.
struct Variation {
  /// The loops whose counters step it.
  SmallPtrSet<const Loop *, 4> Stepping;
  /// Data decides it: a value ScalarEvolution cannot see through (one
  /// loaded), or no expression at all (a phi or select of pointers).
  bool ByData = false;
};

Variation variationOf(Instruction &Access, AllocaInst &Local,
                      ScalarEvolution &SE) {
  Variation Found;
  const SCEV *Offset =
      SE.getMinusSCEV(SE.getSCEV(getLoadStorePointerOperand(&Access)),
                      SE.getSCEV(&Local));
  if (isa<SCEVCouldNotCompute>(Offset)) {
    Found.ByData = true;
    return Found;
  }
  // Every node visited: the predicate never finds what it looks for.
  SCEVExprContains(Offset, [&](const SCEV *S) {
    if (const auto *Rec = dyn_cast<SCEVAddRecExpr>(S))
      Found.Stepping.insert(Rec->getLoop());
    Found.ByData |= isa<SCEVUnknown>(S);
    return false;
  });
  return Found;
}

/// What varies a local's loads and stores, all of them: the loops with a
/// constant trip count among those that step them, and whether data
/// decides any.
Variation variationOf(AllocaInst &Local, ScalarEvolution &SE) {
  Variation All;
  walkPointerUses(Local, [&](const PointerUse &Use) {
    Instruction *I = Use.user();
    if (!isa<LoadInst, StoreInst>(I) ||
        (Use.What != PointerUse::Read && Use.What != PointerUse::Write))
      return true;
    Variation One = variationOf(*I, Local, SE);
    All.ByData |= One.ByData;
    for (const Loop *L : One.Stepping)
      if (SE.getSmallConstantTripCount(L))
        All.Stepping.insert(L);
    return true;
  });
  return All;
}

/// The loops that step the offsets of a local's accesses into it, for the
/// walk facts of NvraDynamicLocal: a loop left rolled runs each access's
/// selects every iteration.
class Walks {
  ScalarEvolution &SE;
  LoopInfo &LI;
  /// Per loop with a constant trip count, the selects one iteration runs.
  DenseMap<const Loop *, uint64_t> SelectsPerIteration;
  bool ByRuntimeLoop = false;

public:
  Walks(ScalarEvolution &SE, LoopInfo &LI) : SE(SE), LI(LI) {}

  /// \p Access, into \p Local, which selects among \p Elements elements;
  /// whether data decides its offset (variationOf), not only loops'
  /// counters.
  bool add(Instruction &Access, AllocaInst &Local, uint64_t Elements) {
    Variation Found = variationOf(Access, Local, SE);
    for (const Loop *Walk : Found.Stepping) {
      if (SE.getSmallConstantTripCount(Walk) == 0) {
        ByRuntimeLoop = true;
        continue;
      }
      if (!Walk->contains(&Access))
        continue;
      uint64_t Copies = 1;
      for (const Loop *L = LI.getLoopFor(Access.getParent()); L != Walk;
           L = L->getParentLoop())
        Copies *= std::max(SE.getSmallConstantTripCount(L), 1u);
      SelectsPerIteration[Walk] += Elements * Copies;
    }
    return Found.ByData;
  }

  /// Marks each loop that steps an offset llvm.loop.unroll.disable, once
  /// its accesses are selects: the core took the selects for its
  /// iterations being long beside them, and ptxas, which unrolls a short
  /// loop by itself once LLVM has narrowed its counter to the selects' 32
  /// bits, would make the copies that rule left out (HeCBench's wlcpow:
  /// 1,809 SASS instructions unrolled so, 1,052 rolled).
  void keepRolled(LLVMContext &Context) const {
    MDNode *Disable = MDNode::get(
        Context, {MDString::get(Context, "llvm.loop.unroll.disable")});
    for (const auto &Walk : SelectsPerIteration) {
      auto *L = const_cast<Loop *>(Walk.first);
      L->setLoopID(makePostTransformationMetadata(Context, L->getLoopID(),
                                                  {}, {Disable}));
    }
  }

  /// The facts: whether a runtime loop walks, and each other loop that
  /// does, kept in \p Loops, which must outlive \p Facts' use.
  void describe(NvraDynamicLocal &Facts,
                SmallVectorImpl<NvraLoopWalk> &Loops) const {
    Facts.walked_by_runtime_loop = ByRuntimeLoop;
    for (auto [Walk, Selects] : SelectsPerIteration) {
      NvraLoopWalk Walking{};
      Walking.selects_per_iteration = Selects;
      Walking.iteration_insts =
          std::min<uint64_t>(iterationSize(*Walk, SE), UINT32_MAX);
      Loops.push_back(Walking);
    }
    Facts.walks = Loops.data();
    Facts.n_walks = Loops.size();
  }
};

/// Why a local is left in memory, for its remark.
const char *whyLeft(uint32_t Verdict) {
  switch (Verdict) {
  case NVRA_SELECTS_NOT_REUSED:
    return "no loop works on what was set before it";
  case NVRA_SELECTS_WALKING_LOOP:
    return "a loop that steps an offset has a runtime trip count, or is "
           "short beside its selects";
  default:
    return "over the limits";
  }
}

/// Rewrites \p Access (a load or store at \p Offset into \p Local) into
/// accesses at each of \p Elements and selects among them.
void rewrite(Instruction &Access, Value *Offset, AllocaInst &Local,
             Type *Element, ArrayRef<uint64_t> Elements) {
  IRBuilder<> Builder(&Access);
  auto ElementAt = [&](uint64_t At) {
    return std::make_pair(
        Builder.CreateConstInBoundsGEP1_64(Builder.getInt8Ty(), &Local, At),
        commonAlignment(Local.getAlign(), At));
  };
  // Compared in 32 bits: an offset outside the local is undefined, and
  // every one inside fits, so the low half decides. A 64-bit compare keeps
  // the offset's register pair live through every select (HeCBench's s8n
  // k_cube_select_two: 38 registers so, 35 in 32 bits).
  Value *Narrow = Builder.CreateTrunc(Offset, Builder.getInt32Ty());
  auto IsAt = [&](uint64_t At) {
    return Builder.CreateICmpEQ(Narrow, Builder.getInt32(At));
  };
  if (auto *Load = dyn_cast<LoadInst>(&Access)) {
    // The first element where none other matches: the offset is one of
    // them, or the load reads out of bounds, which is undefined.
    Value *Read = nullptr;
    for (uint64_t At : Elements) {
      auto [Ptr, Alignment] = ElementAt(At);
      Value *Value = Builder.CreateAlignedLoad(Element, Ptr, Alignment);
      Read = Read ? Builder.CreateSelect(IsAt(At), Value, Read) : Value;
    }
    Load->replaceAllUsesWith(Read ? Read : PoisonValue::get(Element));
  } else {
    Value *Stored = cast<StoreInst>(Access).getValueOperand();
    for (uint64_t At : Elements) {
      auto [Ptr, Alignment] = ElementAt(At);
      Value *Old = Builder.CreateAlignedLoad(Element, Ptr, Alignment);
      Builder.CreateAlignedStore(Builder.CreateSelect(IsAt(At), Stored, Old),
                                 Ptr, Alignment);
    }
  }
  Access.eraseFromParent();
}

/// Erases the pointers into the local that nothing outside them uses any
/// more (a phi of them may use itself through a GEP).
void eraseUnused(ArrayRef<Instruction *> Pointers) {
  SmallPtrSet<Instruction *, 16> Dead(Pointers.begin(), Pointers.end());
  SmallVector<Instruction *, 16> Live;
  for (Instruction *I : Pointers)
    if (any_of(I->users(),
               [&](User *U) { return !Dead.contains(cast<Instruction>(U)); }))
      Live.push_back(I);
  while (!Live.empty()) {
    Instruction *I = Live.pop_back_val();
    if (!Dead.erase(I))
      continue;
    for (Value *Operand : I->operands())
      if (auto *Inner = dyn_cast<Instruction>(Operand);
          Inner && Dead.contains(Inner))
        Live.push_back(Inner);
  }
  for (Instruction *I : Dead)
    I->replaceAllUsesWith(PoisonValue::get(I->getType()));
  for (Instruction *I : Dead)
    I->eraseFromParent();
}

/// One local indexed at offsets that are not constants: what is known of
/// it, the core's verdict, and the offsets built for its selects (erased
/// unless they are made).
class Candidate {
public:
  AllocaInst &Local;
  uint64_t Bytes;
  Variation Varies;

  Candidate(AllocaInst &Local, uint64_t Bytes)
      : Local(Local), Bytes(Bytes), Found(Unfit::Escapes) {}

  bool makes() const { return Verdict == NVRA_SELECTS_MAKE; }

  /// Finds its uses, the elements each access may reach and the loops
  /// that step them, and asks the core.
  void judge(ScalarEvolution &SE, LoopInfo &LI,
             const NvraPromoteLimits &Limits) {
    Found = usesOf(Local, Bytes);
    auto *Uses = std::get_if<LocalUses>(&Found);
    if (!Uses || Uses->Dynamic.empty())
      return;
    const DataLayout &DL = Local.getDataLayout();
    uint64_t Size = DL.getTypeStoreSize(Uses->Element);
    Offsets = std::make_unique<OffsetBuilder>(Local);
    Facts.bytes = Bytes;
    Facts.accesses = Uses->Dynamic.size();
    Walked = std::make_unique<Walks>(SE, LI);
    for (Instruction *Access : Uses->Dynamic) {
      Value *Offset = Offsets->of(getLoadStorePointerOperand(Access));
      Targets.emplace_back(Offset, elementsAt(Offset, Size, Bytes, DL));
      Facts.selected += Targets.back().second.size();
      if (!Walked->add(*Access, Local, Targets.back().second.size()))
        continue;
      Facts.indexed_by_data = true;
      const Loop *In = LI.getLoopFor(Access->getParent());
      Facts.reused_in_loop |=
          In && none_of(Uses->Writes, [&](Instruction *Write) {
            return In->contains(Write);
          });
    }
    Walked->describe(Facts, WalkingLoops);
    Verdict = nvra_selects_local(NVRA_ABI_VERSION, &Limits, &Facts);
  }

  /// Makes the selects, where the core would and no local that a loop
  /// stepping this one's offsets steps too stays in memory (\p Blocker,
  /// if any); else erases what was built. Each local gets a remark.
  bool apply(Function &F, const Candidate *Blocker) {
    LLVMContext &Context = F.getContext();
    if (auto *Why = std::get_if<Unfit>(&Found)) {
      Context.diagnose(
          OptimizationRemarkMissed(LocalSelectsPassArg, "SelectLocal", &Local)
          << "function " << F.getName() << ": " << describeLocal(Local)
          << " indexed by data or a loop's counter: left in memory ("
          << whyUnfit(*Why) << ")");
      return false;
    }
    LocalUses &Uses = std::get<LocalUses>(Found);
    if (!Offsets)
      return false;
    auto Described = [&](auto Remark) {
      Remark << "function " << F.getName() << ": " << describeLocal(Local)
             << " indexed by data"
             << (Facts.n_walks || Facts.walked_by_runtime_loop
                     ? " or a loop's counter, "
                     : ", ")
             << ore::NV("Accesses", uint64_t(Uses.Dynamic.size()))
             << " such accesses reaching "
             << ore::NV("Elements", Facts.selected) << " elements in all: ";
      return Remark;
    };
    if (!makes() || Blocker) {
      Offsets->erase();
      auto Remark = Described(OptimizationRemarkMissed(
          LocalSelectsPassArg, "SelectLocal", &Local));
      if (makes())
        Remark << "left in memory (a loop that steps it steps "
               << describeLocal(Blocker->Local)
               << " too, which stays in memory: the loop is left as LLVM "
                  "has it)";
      else
        Remark << "left in memory (" << whyLeft(Verdict) << ")";
      Context.diagnose(Remark);
      return false;
    }
    for (Instruction *Access : Uses.Wide)
      splitIntoElements(*Access, Uses.Element);
    for (size_t I = 0; I != Targets.size(); ++I)
      rewrite(*Uses.Dynamic[I], Targets[I].first, Local, Uses.Element,
              Targets[I].second);
    eraseUnused(Uses.Pointers);
    Walked->keepRolled(Context);
    Context.diagnose(
        Described(OptimizationRemark(LocalSelectsPassArg, "SelectLocal",
                                     &Local))
        << "each becomes selects among them, the local registers");
    return true;
  }

private:
  std::variant<LocalUses, Unfit> Found;
  std::unique_ptr<OffsetBuilder> Offsets;
  SmallVector<std::pair<Value *, SmallVector<uint64_t, 16>>, 8> Targets;
  NvraDynamicLocal Facts{};
  SmallVector<NvraLoopWalk, 4> WalkingLoops;
  std::unique_ptr<Walks> Walked;
  uint32_t Verdict = NVRA_SELECTS_LEAVE;
};

} // namespace

PreservedAnalyses LocalSelectsPass::run(Function &F,
                                        FunctionAnalysisManager &FAM) {
  if (!promotesLocals(F))
    return PreservedAnalyses::all();
  ScalarEvolution &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
  LoopInfo &LI = FAM.getResult<LoopAnalysis>(F);
  NvraPromoteLimits Limits = promoteLimits(F);
  // Every local indexed by data or a loop's counter, judged first, made
  // selects after: the locals a rolled loop steps are taken together.
  SmallVector<Candidate, 8> Candidates;
  for (Instruction &I : instructions(F)) {
    auto *Local = dyn_cast<AllocaInst>(&I);
    uint64_t Bytes = 0;
    if (!Local || !Local->isStaticAlloca() || !localArray(Local, F, Bytes) ||
        !indexedAtVaryingOffsets(*Local))
      continue;
    Candidate &C = Candidates.emplace_back(*Local, Bytes);
    C.Varies = variationOf(*Local, SE);
    C.judge(SE, LI, Limits);
  }
  // A loop with a constant trip count stays rolled for the selects of every
  // small local whose offsets it steps, or for none: where one of them,
  // indexed by no data (unrolling the loop would have made it registers),
  // stays in memory because it cannot be made selects, the others are left
  // as they are and so is the loop, rather than paying registers and
  // selects for a loop that still reads local memory every iteration.
  DenseMap<const Loop *, const Candidate *> Blocking;
  for (const Candidate &C : Candidates)
    if (!C.makes() && !C.Varies.ByData &&
        C.Bytes <= Limits.max_dynamic_array_bytes)
      for (const Loop *L : C.Varies.Stepping)
        Blocking.try_emplace(L, &C);
  bool Changed = false;
  for (Candidate &C : Candidates) {
    const Candidate *Blocker = nullptr;
    for (const Loop *L : C.Varies.Stepping)
      if (const Candidate *Other = Blocking.lookup(L); Other && !Blocker)
        Blocker = Other;
    Changed |= C.apply(F, Blocker);
  }
  if (!Changed)
    return PreservedAnalyses::all();
  // Only instructions were added and erased: the CFG SROA reads is as it was.
  PreservedAnalyses Rewritten;
  Rewritten.preserveSet<CFGAnalyses>();
  FAM.invalidate(F, Rewritten);
  SROAPass(SROAOptions::ModifyCFG).run(F, FAM);
  return PreservedAnalyses::none();
}

} // namespace nvregalloc

//===- PointerUses.cpp - the uses of an object's address ------------------===//

#include "PointerUses.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"

using namespace llvm;

namespace nvregalloc {

Instruction *PointerUse::user() const { return cast<Instruction>(U->getUser()); }

Value *PointerUse::pointer() const { return U->get(); }

namespace {
PointerUse classify(Use &U, std::optional<int64_t> Offset,
                    const DataLayout &DL) {
  auto *I = cast<Instruction>(U.getUser());
  auto Is = [&](PointerUse::Kind What, bool Simple = false) {
    return PointerUse{What, &U, Simple, Offset};
  };
  if (auto *Load = dyn_cast<LoadInst>(I))
    return Is(PointerUse::Read, Load->isSimple());
  if (auto *Store = dyn_cast<StoreInst>(I))
    return U.getOperandNo() == StoreInst::getPointerOperandIndex()
               ? Is(PointerUse::Write, Store->isSimple())
               : Is(PointerUse::Escape);
  if (auto *GEP = dyn_cast<GetElementPtrInst>(I)) {
    if (U.getOperandNo() != GetElementPtrInst::getPointerOperandIndex())
      return Is(PointerUse::Escape);
    APInt More(DL.getIndexTypeSizeInBits(GEP->getType()), 0);
    std::optional<int64_t> Next;
    if (Offset && GEP->accumulateConstantOffset(DL, More))
      Next = *Offset + More.getSExtValue();
    return PointerUse{PointerUse::Derive, &U, false, Next};
  }
  if (isa<BitCastInst>(I))
    return Is(PointerUse::Derive);
  if (isa<AddrSpaceCastInst>(I))
    return Is(PointerUse::CastSpace);
  if (isa<PHINode>(I) || (isa<SelectInst>(I) && U.getOperandNo() != 0))
    return PointerUse{PointerUse::Merge, &U, false, std::nullopt};
  if (auto *Intrinsic = dyn_cast<IntrinsicInst>(I)) {
    if (Intrinsic->isLifetimeStartOrEnd() || Intrinsic->isDroppable())
      return Is(PointerUse::Marker);
    if (auto *Memory = dyn_cast<MemIntrinsic>(Intrinsic)) {
      bool Simple = !Memory->isVolatile();
      if (&U == &Memory->getRawDestUse())
        return Is(PointerUse::Write, Simple);
      if (auto *Transfer = dyn_cast<MemTransferInst>(Memory);
          Transfer && &U == &Transfer->getRawSourceUse())
        return Is(PointerUse::Read, Simple);
    }
  }
  return Is(PointerUse::Escape);
}
} // namespace

bool walkPointerUses(Value &Object,
                     function_ref<bool(const PointerUse &)> Visit) {
  const DataLayout *DL = nullptr;
  if (auto *I = dyn_cast<Instruction>(&Object))
    DL = &I->getDataLayout();
  else if (auto *Arg = dyn_cast<Argument>(&Object))
    DL = &Arg->getParent()->getDataLayout();
  else
    return false;
  SmallVector<std::pair<Value *, std::optional<int64_t>>, 16> Work{
      {&Object, 0}};
  SmallPtrSet<const Value *, 16> Seen{&Object};
  while (!Work.empty()) {
    auto [Ptr, Offset] = Work.pop_back_val();
    for (Use &U : Ptr->uses()) {
      if (!isa<Instruction>(U.getUser()))
        return false; // a constant expression: not walked, not known
      PointerUse Found = classify(U, Offset, *DL);
      if (!Visit(Found))
        return false;
      bool Derived = Found.What == PointerUse::Derive ||
                     Found.What == PointerUse::Merge ||
                     Found.What == PointerUse::CastSpace;
      if (Derived && Seen.insert(Found.user()).second)
        Work.push_back({Found.user(), Found.Offset});
    }
  }
  return true;
}

} // namespace nvregalloc

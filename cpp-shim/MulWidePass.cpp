//===- MulWidePass.cpp - nvregalloc-mul-wide ------------------------------===//
//
// In llc, NVPTX only: the last IR pass before instruction selection, for
// the functions given `widen=block` (or all, -nvregalloc-widen-in-block).
// A 32-bit index widened to 64 bits in one block and scaled only in others
// (a GEP over elements of more than one byte, a multiply or a left shift by
// a constant) gets a copy of its widening (`zext`, `sext`) in each.
//
// Instruction selection sees one block at a time. Given `shl (zext x), 4`
// in one block it makes `mul.wide.u32 x, 16`: one IMAD.WIDE in SASS, and x
// stays a 32-bit register. Given the `zext` in another block, it makes
// `cvt.u64.u32` there, keeps its 64-bit result live across blocks (two
// registers), and shifts or multiplies it in 64 bits: ptxas, which cannot
// tell the high half is an extension, computes both halves. LLVM's IR
// passes widen where the index is first used, usually the entry block, and
// EarlyCSE and GVN merge later copies into it, so a kernel that branches
// after its first address pays in every block after; nvcc widens in each
// block. HeCBench's phmm: 247 SASS instructions, 177 with the copies
// (nvcc 172).
//
// A widening is copied only where every use outside its block is such a
// scaling, with a multiplier of 32 bits, unsigned for `zext`, signed for
// `sext` (LLVM's own test for `mul.wide`): then its 64-bit value dies in its
// own block, and no block gains a conversion or a longer live range. The
// value is the same everywhere. Yet ptxas allocates the result its own way
// and sometimes takes more registers, so which functions get it is a
// per-function choice (choices::WIDEN), off by default, that nvregalloc-tune
// tries. A remark per function says how many copies it made. It runs after
// CodeGenPrepare and every CSE, so the copies reach instruction selection.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"
#include "RustBridge.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/CodeGen/StackProtector.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Pass.h"

using namespace llvm;
using namespace llvm::PatternMatch;

namespace nvregalloc {

static cl::opt<bool> WidenInBlock(
    "nvregalloc-widen-in-block",
    cl::desc("Copy a 32-bit index's widening into each block that scales it, "
             "so that instruction selection makes mul.wide there (widen=block "
             "in a function-options file: for that function)"),
    cl::init(false));
static ShowDefault WidenInBlockDefault(WidenInBlock);
/// The function-options choices that take a function in or out
/// (src/choices.rs); without either, the command line decides.
static const FunctionChoice WidenBlock("widen", "block");
static const FunctionChoice WidenOff("widen", "off");

namespace {

/// What \p User multiplies its operand \p OperandNo by, where instruction
/// selection turns that into a multiply or shift: a GEP index over elements
/// of more than one byte, `mul` by a constant, `shl` by a constant.
std::optional<APInt> multiplier(const Instruction &User, unsigned OperandNo) {
  const DataLayout &DL = User.getDataLayout();
  if (const auto *GEP = dyn_cast<GetElementPtrInst>(&User)) {
    if (OperandNo == 0)
      return std::nullopt;
    gep_type_iterator Index = gep_type_begin(GEP);
    std::advance(Index, OperandNo - 1);
    if (Index.isStruct())
      return std::nullopt;
    TypeSize Size = Index.getSequentialElementStride(DL);
    if (Size.isScalable() || Size.getFixedValue() <= 1)
      return std::nullopt;
    return APInt(64, Size.getFixedValue());
  }
  const APInt *Constant;
  if (OperandNo == 0 && match(&User, m_Mul(m_Value(), m_APInt(Constant))))
    return *Constant;
  if (OperandNo == 0 && match(&User, m_Shl(m_Value(), m_APInt(Constant))) &&
      Constant->ult(63))
    return APInt::getOneBitSet(64, Constant->getZExtValue());
  return std::nullopt;
}

/// Whether instruction selection folds \p Ext, scaled by \p Multiplier,
/// into `mul.wide`: a 32-bit value widened to 64 bits, and a multiplier of
/// 32 bits, signed as the extension is.
bool foldsIntoMulWide(const CastInst &Ext, const APInt &Multiplier) {
  if (!Ext.getSrcTy()->isIntegerTy(32) || !Ext.getDestTy()->isIntegerTy(64))
    return false;
  if (isa<ZExtInst>(Ext))
    return Multiplier.isIntN(32);
  return isa<SExtInst>(Ext) && Multiplier.isSignedIntN(32);
}

class MulWidePass : public FunctionPass {
public:
  static char ID;
  static constexpr char Description[] =
      "nvregalloc: widenings copied into the blocks that scale them";
  MulWidePass() : FunctionPass(ID) {}
  StringRef getPassName() const override { return Description; }
  void getAnalysisUsage(AnalysisUsage &AU) const override {
    AU.setPreservesCFG();
    // Instruction selection reads the stack protector's layout; nothing
    // here touches a stack object.
    AU.addPreserved<StackProtector>();
  }
  bool runOnFunction(Function &F) override {
    if (skipFunction(F) || WidenOff.isMadeFor(F) ||
        !(WidenInBlock || WidenBlock.isMadeFor(F)))
      return false;
    SmallVector<CastInst *, 8> Widenings;
    for (Instruction &I : instructions(F))
      if (auto *Ext = dyn_cast<CastInst>(&I);
          Ext && isa<ZExtInst, SExtInst>(Ext) && copiedEverywhere(*Ext))
        Widenings.push_back(Ext);
    unsigned Copies = 0;
    for (CastInst *Ext : Widenings) {
      DenseMap<BasicBlock *, CastInst *> CopyIn;
      for (Use &U : make_early_inc_range(Ext->uses())) {
        auto *User = cast<Instruction>(U.getUser());
        BasicBlock *Block = User->getParent();
        if (Block == Ext->getParent())
          continue;
        CastInst *&Copy = CopyIn[Block];
        if (!Copy) {
          Copy = cast<CastInst>(Ext->clone());
          Copy->insertBefore(firstUserIn(*Ext, *Block)->getIterator());
          Copy->setName(Ext->getName());
          ++Copies;
        }
        U.set(Copy);
      }
      if (Ext->use_empty())
        Ext->eraseFromParent();
    }
    if (Copies)
      F.getContext().diagnose(
          OptimizationRemark(MulWidePassArg, "MulWide", &F)
          << "function " << F.getName() << ": "
          << ore::NV("Copies", Copies)
          << " widenings copied into the blocks that scale them");
    return Copies != 0;
  }

private:
  /// Whether every use of \p Ext outside its block scales it into
  /// `mul.wide`, and there is one: then the copies end the 64-bit value's
  /// life in its own block, and the 32-bit one live in its place is never
  /// more registers. Where another use keeps the 64-bit value live across
  /// blocks anyway, a copy would only keep the 32-bit one live beside it.
  static bool copiedEverywhere(const CastInst &Ext) {
    bool Scaled = false;
    for (const Use &U : Ext.uses()) {
      const auto *User = cast<Instruction>(U.getUser());
      if (User->getParent() == Ext.getParent())
        continue;
      std::optional<APInt> Scale = multiplier(*User, U.getOperandNo());
      if (isa<PHINode>(User) || !Scale || !foldsIntoMulWide(Ext, *Scale))
        return false;
      Scaled = true;
    }
    return Scaled;
  }

  /// The first instruction of \p Block that uses \p Ext.
  static Instruction *firstUserIn(const CastInst &Ext, BasicBlock &Block) {
    for (Instruction &I : Block)
      if (is_contained(I.operands(), &Ext))
        return &I;
    llvm_unreachable("a block given is one where Ext has a user");
  }
};
} // namespace

char MulWidePass::ID = 0;
const void *const MulWidePassID = &MulWidePass::ID;
static RegisterPass<MulWidePass>
    Registration(MulWidePassArg, MulWidePass::Description);

} // namespace nvregalloc

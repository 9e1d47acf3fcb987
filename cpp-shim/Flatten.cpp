//===- Flatten.cpp - MachineFunction <-> NvraFunction translation --------===//
//
// Facts only, as LLVM describes each block, instruction and operand; what
// they mean for the passes (which opcodes are cheap to recompute, which
// defs an instruction writes before reading its uses) is the core's.
//
//===----------------------------------------------------------------------===//

#include "Flatten.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/CodeGen/MachineBlockFrequencyInfo.h"
#include "llvm/CodeGen/MachineFrameInfo.h"
#include "llvm/CodeGen/MachineMemOperand.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstr.h"
#include "llvm/CodeGen/MachineInstrBuilder.h"
#include "llvm/CodeGen/MachineLoopInfo.h"
#include "llvm/CodeGen/MachineRegisterInfo.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/Support/NVPTXAddrSpace.h"


using namespace llvm;

namespace nvregalloc {

static uint32_t instKind(const MachineInstr &MI) {
  if (MI.isPHI())
    return NVRA_INST_PHI;
  if (MI.isImplicitDef())
    return NVRA_INST_IMPLICIT_DEF;
  if (MI.isCopy() || MI.isMoveReg())
    return NVRA_INST_COPY;
  if (MI.isCall())
    return NVRA_INST_CALL;
  if (MI.isTerminator())
    return NVRA_INST_TERMINATOR;
  if (MI.isMoveImmediate())
    return NVRA_INST_MOVE_IMM;
  return NVRA_INST_OTHER;
}

FlatFunction::FlatFunction(MachineFunction &MF, const MachineLoopInfo &MLI,
                           const MachineBlockFrequencyInfo &MBFI)
    : MF(MF), Name(MF.getName().str()) {
  const MachineRegisterInfo &MRI = MF.getRegInfo();
  const TargetRegisterInfo &TRI = *MF.getSubtarget().getRegisterInfo();
  const TargetInstrInfo &TII = *MF.getSubtarget().getInstrInfo();

  DenseMap<const MachineBasicBlock *, uint32_t> BlockIndex;
  for (const MachineBasicBlock &MBB : MF)
    BlockIndex[&MBB] = BlockIndex.size();

  for (MachineBasicBlock &MBB : MF) {
    BlockPtrs.push_back(&MBB);
    NvraBlock B{};
    B.first_inst = Insts.size();
    B.first_succ = Succs.size();
    for (const MachineBasicBlock *S : MBB.successors())
      Succs.push_back(BlockIndex.lookup(S));
    B.num_succs = Succs.size() - B.first_succ;
    B.first_pred = Preds.size();
    for (const MachineBasicBlock *P : MBB.predecessors())
      Preds.push_back(BlockIndex.lookup(P));
    B.num_preds = Preds.size() - B.first_pred;
    B.loop_depth = MLI.getLoopDepth(&MBB);
    B.frequency = MBFI.getBlockFreqRelativeToEntryBlock(&MBB);

    for (MachineInstr &MI : MBB) {
      // Debug instructions carry no value; apply() drops the locations of
      // the ones whose register is renamed.
      if (MI.isDebugInstr())
        continue;
      NvraInst I{};
      I.kind = instKind(MI);
      I.opcode = MI.getOpcode();
      I.opcode_name = TII.getName(MI.getOpcode()).data();
      I.first_operand = Operands.size();
      if (MI.hasUnmodeledSideEffects())
        I.flags |= NVRA_INST_HAS_SIDE_EFFECTS;
      if (MI.mayLoad())
        I.flags |= NVRA_INST_MAY_LOAD;
      if (MI.mayStore())
        I.flags |= NVRA_INST_MAY_STORE;
      if (TII.isTriviallyReMaterializable(MI))
        I.flags |= NVRA_INST_REMATERIALIZABLE;
      if (MI.isInlineAsm())
        I.asm_text = MI.getOperand(InlineAsm::MIOp_AsmString).getSymbolName();
      if (!MI.mayLoadOrStore() &&
          any_of(MI.operands(),
                 [](const MachineOperand &MO) { return MO.isFI(); }))
        I.flags |= NVRA_INST_FRAME_ADDRESS;

      // Operand index in MI -> index among this instruction's vreg operands.
      SmallVector<uint32_t, 8> Position(MI.getNumOperands(), NVRA_NONE);
      for (unsigned OpIdx = 0, E = MI.getNumOperands(); OpIdx != E; ++OpIdx) {
        const MachineOperand &MO = MI.getOperand(OpIdx);
        if (!MO.isReg() || !MO.getReg())
          continue;
        if (MO.getReg().isPhysical()) {
          if (!MRI.isReserved(MO.getReg()))
            I.flags |= NVRA_INST_HAS_PHYS_REG;
          continue;
        }
        NvraOperand Op{};
        Op.vreg = MO.getReg().virtRegIndex();
        Op.tied_to = NVRA_NONE;
        Op.incoming_block = NVRA_NONE;
        Op.asm_operand = NVRA_NONE;
        unsigned AsmOperand;
        if (MI.isInlineAsm() && MI.findInlineAsmFlagIdx(OpIdx, &AsmOperand) >= 0)
          Op.asm_operand = AsmOperand;
        // A PHI lists (value, predecessor) pairs after its result.
        if (MI.isPHI() && MO.isUse())
          Op.incoming_block = BlockIndex.lookup(MI.getOperand(OpIdx + 1).getMBB());
        if (MO.isDef())
          Op.flags |= NVRA_OPERAND_DEF;
        if (MO.isImplicit())
          Op.flags |= NVRA_OPERAND_IMPLICIT;
        if (MO.isUndef())
          Op.flags |= NVRA_OPERAND_UNDEF;
        if (MO.getSubReg())
          Op.flags |= NVRA_OPERAND_SUBREG;
        if (MO.isEarlyClobber())
          Op.flags |= NVRA_OPERAND_EARLY_CLOBBER;
        Position[OpIdx] = Operands.size() - I.first_operand;
        Operands.push_back(Op);
        OperandIndexInMI.push_back(OpIdx);
      }
      for (unsigned OpIdx = 0, E = MI.getNumOperands(); OpIdx != E; ++OpIdx) {
        const MachineOperand &MO = MI.getOperand(OpIdx);
        if (Position[OpIdx] != NVRA_NONE && MO.isTied())
          Operands[I.first_operand + Position[OpIdx]].tied_to =
              Position[MI.findTiedOperandIdx(OpIdx)];
      }
      I.num_operands = Operands.size() - I.first_operand;
      InstRecords.push_back(I);
      Insts.push_back(&MI);
    }
    B.num_insts = Insts.size() - B.first_inst;
    Blocks.push_back(B);
  }

  DenseMap<unsigned, uint32_t> ClassIndex;
  for (unsigned Idx = 0, E = MRI.getNumVirtRegs(); Idx != E; ++Idx) {
    const TargetRegisterClass *RC =
        MRI.getRegClassOrNull(Register::index2VirtReg(Idx));
    if (!RC) {
      VRegClass.push_back(NVRA_NONE);
      continue;
    }
    auto [It, Inserted] = ClassIndex.try_emplace(RC->getID(), ClassNames.size());
    if (Inserted) {
      ClassNames.push_back(TRI.getRegClassName(RC));
      ClassRCs.push_back(RC);
    }
    VRegClass.push_back(It->second);
  }

  Fn.abi_version = NVRA_ABI_VERSION;
  Fn.sizeof_function = sizeof(NvraFunction);
  Fn.sizeof_block = sizeof(NvraBlock);
  Fn.sizeof_inst = sizeof(NvraInst);
  Fn.sizeof_operand = sizeof(NvraOperand);
  Fn.num_blocks = Blocks.size();
  Fn.num_insts = InstRecords.size();
  Fn.num_operands = Operands.size();
  Fn.num_vregs = VRegClass.size();
  Fn.num_classes = ClassNames.size();
  Fn.name = Name.c_str();
  Fn.blocks = Blocks.data();
  Fn.succs = Succs.data();
  Fn.preds = Preds.data();
  Fn.insts = InstRecords.data();
  Fn.operands = Operands.data();
  Fn.vreg_class = VRegClass.data();
  Fn.class_names = ClassNames.data();
}

/// The NVPTX instructions spill code is made of, by name: the target's
/// opcode enum is not public.
static constexpr const char *SpillOpcodeNames[] = {
    "LD_i16", "LD_i32", "LD_i64", "ST_i16", "ST_i32", "ST_i64",
    "SELP_b16ii", "SETP_i16ri"};

std::string FlatFunction::resolveSpillParts(const NvraResult &Result) {
  if (Result.num_new_classes == 0 && Result.num_spill_ops == 0)
    return "";
  const TargetRegisterInfo &TRI = *MF.getSubtarget().getRegisterInfo();
  const TargetInstrInfo &TII = *MF.getSubtarget().getInstrInfo();
  for (uint32_t K = 0; K != Result.num_new_classes; ++K) {
    StringRef Wanted = Result.new_class_names[K];
    auto Named = [&](const TargetRegisterClass *RC) {
      return Wanted == TRI.getRegClassName(RC);
    };
    auto It = llvm::find_if(TRI.regclasses(), Named);
    if (It == TRI.regclasses().end())
      return ("the target has no register class named " + Wanted).str();
    ClassRCs.push_back(*It);
  }
  for (StringRef Name : SpillOpcodeNames) {
    unsigned Opc = 0, E = TII.getNumOpcodes();
    while (Opc != E && TII.getName(Opc) != Name)
      ++Opc;
    if (Opc == E)
      return ("the target has no instruction named " + Name).str();
    SpillOpcodes[Name] = Opc;
  }
  return "";
}

// Spill code as NVPTX's instruction selector writes a local load or store:
//   ST_iN src, sem, scope, addrspace, width, base, offset
//   LD_iN dst, sem, scope, addrspace, sign, width, used-bytes, base, offset
// with the slot's frame index as the base; a predicate goes through a 16-bit
// register on either side (selp.b16 before the store, setp.ne.b16 after the
// reload). PrologEpilog turns the frame index into the frame register;
// nvregalloc-local-frame then makes it the local one (%SPL), which a .local
// access needs.
void FlatFunction::insertSpillCode(const NvraResult &Result) {
  MachineRegisterInfo &MRI = MF.getRegInfo();
  const TargetRegisterInfo &TRI = *MF.getSubtarget().getRegisterInfo();
  const TargetInstrInfo &TII = *MF.getSubtarget().getInstrInfo();
  constexpr unsigned LocalAddressSpace = NVPTXAS::ADDRESS_SPACE_LOCAL,
                     Relaxed = 0, NoScope = 0, Untyped = 3;
  for (uint32_t K = 0; K != Result.num_new_vregs; ++K)
    MRI.createVirtualRegister(ClassRCs[Result.new_vreg_classes[K]]);
  SmallVector<int, 8> SlotFI;
  for (uint32_t K = 0; K != Result.num_slots; ++K) {
    const TargetRegisterClass &RC = *ClassRCs[Result.slot_classes[K]];
    SlotFI.push_back(MF.getFrameInfo().CreateSpillStackObject(
        TRI.getSpillSize(RC), TRI.getSpillAlign(RC)));
  }
  for (uint32_t K = 0; K != Result.num_substitutions; ++K) {
    const NvraUseSubstitution &S = Result.substitutions[K];
    uint32_t Flat = InstRecords[S.inst].first_operand + S.operand;
    Insts[S.inst]->getOperand(OperandIndexInMI[Flat]).setReg(
        Register::index2VirtReg(S.vreg));
  }
  auto Opcode = [&](StringRef Name) { return SpillOpcodes.lookup(Name); };
  DenseMap<const MachineInstr *, MachineInstr *> LastAfter;
  for (uint32_t K = 0; K != Result.num_spill_ops; ++K) {
    const NvraSpillOp &Op = Result.spill_ops[K];
    MachineInstr *At = Insts[Op.inst];
    MachineBasicBlock &MBB = *At->getParent();
    MachineBasicBlock::iterator Where = At->getIterator();
    if (Op.after) {
      MachineInstr *&Last = LastAfter[At];
      Where = std::next((Last ? Last : At)->getIterator());
    }
    Register Reg = Register::index2VirtReg(Op.reg);
    MachineInstr *New;
    if (Op.kind == NVRA_SPILL_REMAT) {
      New = MF.CloneMachineInstr(Insts[Op.source_inst]);
      New->getOperand(0).setReg(Reg);
      MBB.insert(Where, New);
    } else if (Op.kind == NVRA_SPILL_CONVERT) {
      // As the selector writes `zext i1 to i16` and `icmp ne i16 x, 0`.
      constexpr unsigned CmpNotEqual = 1;
      Register Src = Register::index2VirtReg(Op.src);
      bool ToPredicate = TRI.getRegSizeInBits(*MRI.getRegClass(Reg)) == 1;
      New = ToPredicate
                ? BuildMI(MBB, Where, DebugLoc(), TII.get(Opcode("SETP_i16ri")), Reg)
                      .addReg(Src)
                      .addImm(0)
                      .addImm(CmpNotEqual)
                : BuildMI(MBB, Where, DebugLoc(), TII.get(Opcode("SELP_b16ii")), Reg)
                      .addImm(1)
                      .addImm(0)
                      .addReg(Src);
    } else {
      int FI = SlotFI[Op.slot];
      const TargetRegisterClass &RC = *ClassRCs[Result.slot_classes[Op.slot]];
      unsigned Bits = TRI.getSpillSize(RC) * 8;
      bool Store = Op.kind == NVRA_SPILL_STORE;
      MachinePointerInfo Slot = MachinePointerInfo::getFixedStack(MF, FI);
      Slot.AddrSpace = LocalAddressSpace;
      MachineMemOperand *MMO = MF.getMachineMemOperand(
          Slot, Store ? MachineMemOperand::MOStore : MachineMemOperand::MOLoad,
          LLT::scalar(Bits), TRI.getSpillAlign(RC));
      std::string Name = (Twine(Store ? "ST_i" : "LD_i") + Twine(Bits)).str();
      MachineInstrBuilder B =
          Store ? BuildMI(MBB, Where, DebugLoc(), TII.get(Opcode(Name)))
                      .addReg(Reg)
                      .addImm(Relaxed)
                      .addImm(NoScope)
                      .addImm(LocalAddressSpace)
                      .addImm(Bits)
                : BuildMI(MBB, Where, DebugLoc(), TII.get(Opcode(Name)), Reg)
                      .addImm(Relaxed)
                      .addImm(NoScope)
                      .addImm(LocalAddressSpace)
                      .addImm(Untyped)
                      .addImm(Bits)
                      .addImm(-1);
      New = B.addFrameIndex(FI).addImm(0).addMemOperand(MMO);
    }
    if (Op.after)
      LastAfter[At] = New;
  }
}

bool FlatFunction::apply(const NvraResult &Result) {
  insertSpillCode(Result);
  // Rematerializations first, while operand 0 of each copy still names the
  // copy's original destination; the clone is renamed with everything else.
  SmallVector<MachineInstr *, 8> Erase;
  for (uint32_t K = 0; K != Result.num_remats; ++K) {
    MachineInstr *Copy = Insts[Result.remats[K].copy_inst];
    MachineInstr *Clone = MF.CloneMachineInstr(Insts[Result.remats[K].source_inst]);
    Clone->getOperand(0).setReg(Copy->getOperand(0).getReg());
    Copy->getParent()->insert(Copy->getIterator(), Clone);
    Erase.push_back(Copy);
  }
  bool Renamed = false;
  if (Result.num_rename == VRegClass.size() + Result.num_new_vregs) {
    for (MachineBasicBlock &MBB : MF)
      for (MachineInstr &MI : MBB)
        for (MachineOperand &MO : MI.operands()) {
          if (!MO.isReg() || !MO.getReg().isVirtual())
            continue;
          uint32_t From = MO.getReg().virtRegIndex();
          uint32_t To = Result.rename[From];
          if (To == From)
            continue;
          Renamed = true;
          // A renamed register may hold another value at this point, so a
          // debug location that named it is dropped rather than kept wrong.
          MO.setReg(MI.isDebugInstr() ? Register()
                                      : Register::index2VirtReg(To));
        }
  }
  bool Inserted = Result.num_spill_ops != 0;
  if (Renamed || Inserted) {
    // Kill flags described the old live ranges; none is required.
    for (MachineBasicBlock &MBB : MF)
      for (MachineInstr &MI : MBB)
        for (MachineOperand &MO : MI.operands())
          if (MO.isReg() && MO.isUse() && MO.getReg().isVirtual())
            MO.setIsKill(false);
  }
  MachineRegisterInfo &MRI = MF.getRegInfo();
  for (uint32_t K = 0; K != Result.num_deleted; ++K) {
    MachineInstr *MI = Insts[Result.deleted_insts[K]];
    // A copy deleted because its destination register already holds the
    // value: the def that put it there may be marked dead, and no longer is.
    const MachineOperand &Dst = MI->getOperand(0);
    if (MI->getNumOperands() == 2 && Dst.isReg() && Dst.isDef() &&
        MI->getOperand(1).isReg() && MI->getOperand(1).getReg() != Dst.getReg())
      for (MachineOperand &Def : MRI.def_operands(Dst.getReg()))
        Def.setIsDead(false);
    Erase.push_back(MI);
  }
  for (MachineInstr *MI : Erase)
    MI->eraseFromParent();
  return Renamed || !Erase.empty() || Inserted;
}

} // namespace nvregalloc

//===- Flatten.cpp - MachineFunction <-> NvraFunction translation --------===//

#include "Flatten.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/CodeGen/MachineBlockFrequencyInfo.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstr.h"
#include "llvm/CodeGen/MachineInstrBuilder.h"
#include "llvm/CodeGen/MachineLoopInfo.h"
#include "llvm/CodeGen/MachineRegisterInfo.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"

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
      I.first_operand = Operands.size();
      if (MI.isInlineAsm())
        I.flags |= NVRA_INST_HAS_INLINE_ASM;
      if (MI.hasUnmodeledSideEffects())
        I.flags |= NVRA_INST_HAS_SIDE_EFFECTS;
      if (MI.mayLoad())
        I.flags |= NVRA_INST_MAY_LOAD;
      if (MI.mayStore())
        I.flags |= NVRA_INST_MAY_STORE;
      if (TII.isTriviallyReMaterializable(MI))
        I.flags |= NVRA_INST_REMATERIALIZABLE;

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
        Position[OpIdx] = Operands.size() - I.first_operand;
        Operands.push_back(Op);
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
    if (Inserted)
      ClassNames.push_back(TRI.getRegClassName(RC));
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

bool FlatFunction::apply(const NvraResult &Result) {
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
  if (Result.num_rename == VRegClass.size()) {
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
  const TargetInstrInfo &TII = *MF.getSubtarget().getInstrInfo();
  for (uint32_t K = 0; K != Result.num_edge_copies; ++K) {
    const NvraEdgeCopy &Copy = Result.edge_copies[K];
    MachineBasicBlock &MBB = *BlockPtrs[Copy.block];
    BuildMI(MBB, MBB.getFirstTerminator(), DebugLoc(), TII.get(TargetOpcode::COPY),
            Register::index2VirtReg(Copy.dst))
        .addReg(Register::index2VirtReg(Copy.src));
  }
  if (Renamed || Result.num_edge_copies != 0) {
    // Kill flags described the old live ranges; none is required.
    for (MachineBasicBlock &MBB : MF)
      for (MachineInstr &MI : MBB)
        for (MachineOperand &MO : MI.operands())
          if (MO.isReg() && MO.isUse() && MO.getReg().isVirtual())
            MO.setIsKill(false);
  }
  for (uint32_t K = 0; K != Result.num_deleted; ++K)
    Erase.push_back(Insts[Result.deleted_insts[K]]);
  for (MachineInstr *MI : Erase)
    MI->eraseFromParent();
  return Renamed || !Erase.empty() || Result.num_edge_copies != 0;
}

} // namespace nvregalloc

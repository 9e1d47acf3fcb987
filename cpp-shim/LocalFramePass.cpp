//===- LocalFramePass.cpp - nvregalloc-local-frame ----------------------===//
//
// NVPTX's PrologEpilog pass replaces every frame index with the generic
// frame register (%SP, the depot's generic address). Stock LLVM only ever
// puts frame indices in address arithmetic that is converted to a local
// address later, but spill code loads and stores the slot directly with
// ld.local / st.local, which need the local frame register (%SPL). This pass
// makes that substitution in every local-memory access based on the frame
// register, and then drops %SP's definition if nothing reads it any more (as
// NVPTX's peephole does, which has run by then).
//
//===----------------------------------------------------------------------===//

#include "Passes.h"

#include "llvm/CodeGen/MachineFrameInfo.h"
#include "llvm/CodeGen/MachineFunctionPass.h"
#include "llvm/CodeGen/MachineMemOperand.h"
#include "llvm/CodeGen/MachineRegisterInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/Pass.h"
#include "llvm/Support/NVPTXAddrSpace.h"

using namespace llvm;

namespace nvregalloc {

namespace {
constexpr unsigned LocalAddressSpace = NVPTXAS::ADDRESS_SPACE_LOCAL;

/// The local twin of NVPTX's frame register: VRFrame64 -> VRFrameLocal64
/// (the register enum is not public, the names are).
Register localFrameRegister(const TargetRegisterInfo &TRI, Register Generic) {
  std::string Name = TRI.getName(Generic);
  Name.insert(std::string("VRFrame").size(), "Local");
  for (unsigned R = 1, E = TRI.getNumRegs(); R != E; ++R)
    if (Name == TRI.getName(R))
      return R;
  return Register();
}

class LocalFramePass : public MachineFunctionPass {
public:
  static char ID;
  static constexpr char Description[] =
      "nvregalloc: local frame register for spill code";
  LocalFramePass() : MachineFunctionPass(ID) {}
  StringRef getPassName() const override { return Description; }
  void getAnalysisUsage(AnalysisUsage &AU) const override {
    AU.setPreservesCFG();
    MachineFunctionPass::getAnalysisUsage(AU);
  }
  bool runOnMachineFunction(MachineFunction &MF) override {
    if (!MF.getFrameInfo().hasStackObjects())
      return false;
    const TargetRegisterInfo &TRI = *MF.getSubtarget().getRegisterInfo();
    Register Generic = TRI.getFrameRegister(MF);
    Register Local = localFrameRegister(TRI, Generic);
    if (!Local)
      return false;
    bool Changed = false;
    for (MachineBasicBlock &MBB : MF)
      for (MachineInstr &MI : MBB) {
        bool LocalAccess = any_of(MI.memoperands(), [](const MachineMemOperand *M) {
          return M->getAddrSpace() == LocalAddressSpace;
        });
        if (!LocalAccess)
          continue;
        for (MachineOperand &MO : MI.operands())
          if (MO.isReg() && MO.getReg() == Generic) {
            MO.setReg(Local);
            Changed = true;
          }
      }
    MachineRegisterInfo &MRI = MF.getRegInfo();
    if (Changed && MRI.use_nodbg_empty(Generic))
      for (MachineInstr &MI : make_early_inc_range(MRI.def_instructions(Generic)))
        MI.eraseFromParent();
    return Changed;
  }
};
} // namespace

char LocalFramePass::ID = 0;
const void *const LocalFramePassID = &LocalFramePass::ID;
static RegisterPass<LocalFramePass>
    Registration(LocalFramePassArg, LocalFramePass::Description);

} // namespace nvregalloc

//===- Flatten.h - MachineFunction <-> NvraFunction translation ----------===//
//
// FlatFunction owns the plain arrays that describe one MachineFunction to the
// Rust core, and applies the core's result back onto the same function. It
// decides nothing: every rule about what may be renamed lives in Rust.
//
//===----------------------------------------------------------------------===//
#ifndef NVREGALLOC_FLATTEN_H
#define NVREGALLOC_FLATTEN_H

#include "nvregalloc.h"

#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace llvm {
class MachineBasicBlock;
class MachineBlockFrequencyInfo;
class MachineFunction;
class MachineInstr;
class MachineLoopInfo;
class TargetRegisterClass;
} // namespace llvm

namespace nvregalloc {

class FlatFunction {
public:
  FlatFunction(llvm::MachineFunction &MF, const llvm::MachineLoopInfo &MLI,
               const llvm::MachineBlockFrequencyInfo &MBFI);

  const NvraFunction &abi() const { return Fn; }
  llvm::MachineInstr *instruction(uint32_t Index) const { return Insts[Index]; }

  /// Finds the register classes and instructions \p Result's spill code
  /// needs; returns what the target lacks (nothing: empty), before anything
  /// is changed. apply() needs it to have succeeded.
  std::string resolveSpillParts(const NvraResult &Result);

  /// Creates the new vregs and spill slots, substitutes uses, inserts spill
  /// code, rematerializes, renames and erases as
  /// \p Result says. Returns true if the function changed.
  bool apply(const NvraResult &Result);

private:
  llvm::MachineFunction &MF;
  std::string Name;
  std::vector<NvraBlock> Blocks;
  std::vector<uint32_t> Succs, Preds;
  std::vector<NvraInst> InstRecords;
  std::vector<NvraOperand> Operands;
  std::vector<unsigned> OperandIndexInMI; // per entry of Operands
  std::vector<const llvm::TargetRegisterClass *> ClassRCs;
  std::vector<uint32_t> VRegClass;
  std::vector<const char *> ClassNames;
  std::vector<llvm::MachineInstr *> Insts;
  std::vector<llvm::MachineBasicBlock *> BlockPtrs;
  NvraFunction Fn{};
  llvm::StringMap<unsigned> SpillOpcodes;

  void insertSpillCode(const NvraResult &Result);
};

} // namespace nvregalloc

#endif

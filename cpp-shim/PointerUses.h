//===- PointerUses.h - the uses of an object's address --------------------===//
//
// One walker of the uses of a local's (or a parameter's) address, for the
// middle-end passes: each use of the object's address, or of a pointer
// derived from it, classified once, with its constant byte offset from the
// object where one is known.
//
//===----------------------------------------------------------------------===//
#ifndef NVREGALLOC_POINTERUSES_H
#define NVREGALLOC_POINTERUSES_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <optional>

namespace llvm {
class Instruction;
class Use;
class Value;
} // namespace llvm

namespace nvregalloc {

struct PointerUse {
  enum Kind {
    /// A load from it, or a memcpy or memmove from it.
    Read,
    /// A store to it, a memset of it, or a memcpy or memmove to it.
    Write,
    /// A pointer derived from it at the same object: a GEP or a bitcast.
    /// Its uses are walked too.
    Derive,
    /// A pointer that may also be another object's: a phi or a select of it
    /// (not as a select's condition). Its uses are walked too.
    Merge,
    /// A cast to another address space. Its uses are walked too.
    CastSpace,
    /// A lifetime marker or a droppable use (an assume).
    Marker,
    /// Anything else: a call, the address stored or compared, ptrtoint.
    Escape,
  };
  Kind What;
  llvm::Use *U;
  /// Read or Write: a load or store that is neither volatile nor atomic, or
  /// a memory intrinsic that is not volatile.
  bool Simple;
  /// The byte offset of the pointer used from the object, where it is a
  /// constant.
  std::optional<int64_t> Offset;

  llvm::Instruction *user() const;
  llvm::Value *pointer() const;
};

/// Visits every use of \p Object's address and of the pointers derived from
/// it (each derived pointer once), depth first, until \p Visit returns
/// false. Returns true when every use was visited; false when \p Visit
/// stopped the walk, or a use is not an instruction's (a constant
/// expression's, which no pass here rewrites), or \p Object is neither an
/// instruction nor an argument.
bool walkPointerUses(llvm::Value &Object,
                     llvm::function_ref<bool(const PointerUse &)> Visit);

} // namespace nvregalloc

#endif

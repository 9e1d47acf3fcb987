//===- IrForms.h - two forms of a function's IR, for the forms judge ------===//
//
// The LSR judge and the recomputation of loop invariants each hold two
// forms of a function's IR at once, LLVM's (rich) and nvregalloc's (lean),
// and ask the core (forms_judge) which goes on to code generation. The
// second form lives in a copy of the function beside it in the module; the
// copy never reaches code generation.
//
//===----------------------------------------------------------------------===//
#ifndef NVREGALLOC_IRFORMS_H
#define NVREGALLOC_IRFORMS_H

#include "nvregalloc.h"

namespace llvm {
class Function;
}

namespace nvregalloc {

/// A private copy of \p F in its module, for the other form.
llvm::Function *copyFunction(llvm::Function &F);

/// The core's verdict on \p Lean and \p Rich, two forms of one function,
/// flattened as NvraIrFunction: which runs more warps by the estimate, with
/// \p Slack registers added to each and the rich form's estimate to be
/// \p MinGrowth percent over the lean one's before the lean one is taken.
NvraFormsPlan judgeForms(const llvm::Function &Lean,
                         const llvm::Function &Rich, unsigned Slack,
                         unsigned MinGrowth);

/// Replaces \p F's body with \p Copy's, leaving \p Copy empty.
void moveBody(llvm::Function &F, llvm::Function &Copy);

} // namespace nvregalloc

#endif

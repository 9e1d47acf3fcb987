//===- RustBridge.h - one call into the Rust core for one function ------===//
//
// Every nvregalloc pass runs the same way: flatten the function, hand it to
// the Rust core, report what came back (statistics, remarks, warnings) and
// apply it. The passes differ only in which core pass they ask for and in
// their options.
//
//===----------------------------------------------------------------------===//
#ifndef NVREGALLOC_RUSTBRIDGE_H
#define NVREGALLOC_RUSTBRIDGE_H

#include "nvregalloc.h"

#include "llvm/Support/CommandLine.h"

#include <cstdio>
#include <optional>
#include <string>
#include <type_traits>

namespace llvm {
class AnalysisUsage;
class Function;
class MachineFunction;
class MachineFunctionPass;
} // namespace llvm

namespace nvregalloc {

/// Options shared by every pass (K, the checker, test-only fault injection)
/// filled in; each pass then sets its own.
NvraOptions sharedOptions();

/// The core's defaults (nvra_default_options): the command-line options
/// take theirs from here, so that each default is stated once, in the core
/// (src/options.rs).
const NvraOptions &coreDefaults();

/// \p Help with " (default: \p Value)" appended, kept for the program's life
/// (an option's description is only a reference).
llvm::StringRef withDefault(llvm::StringRef Help, const std::string &Value);

/// Shows \p Opt's default in its -help text; construct one right after the
/// option (`static ShowDefault KDefault(K);`).
struct ShowDefault {
  template <typename T, bool External, typename Parser>
  explicit ShowDefault(llvm::cl::opt<T, External, Parser> &Opt) {
    const T &Default = Opt.getDefault().getValue();
    std::string Value;
    if constexpr (std::is_enum_v<T>) {
      auto &Values = Opt.getParser();
      for (unsigned I = 0, N = Values.getNumOptions(); I != N; ++I)
        if (static_cast<const llvm::cl::OptionValue<T> &>(
                Values.getOptionValue(I))
                .getValue() == Default)
          Value = Values.getOption(I).str();
    } else if constexpr (std::is_same_v<T, bool>) {
      Value = Default ? "true" : "false";
    } else if constexpr (std::is_floating_point_v<T>) {
      char Text[32];
      std::snprintf(Text, sizeof Text, "%g", double(Default));
      Value = Text;
    } else {
      Value = std::to_string(Default);
    }
    Opt.setDescription(withDefault(Opt.HelpStr, Value));
  }
};

/// One value of one per-function choice (a key and value the core defines,
/// src/choices.rs), for the lever in LLVM's pipeline that applies it.
class FunctionChoice {
public:
  /// A pair the core does not define is a bug in the lever: it says so once
  /// on stderr and is never made.
  FunctionChoice(const char *Key, const char *Value);
  /// Whether the function-options file makes this choice for \p F, compiled
  /// for its "target-cpu" (false on any error: LLVM's own behaviour).
  bool isMadeFor(const llvm::Function &F) const;

private:
  uint32_t KeyIndex = 0;
  int32_t ValueIndex = -1;
  bool Known = false;
};

/// A per-function choice read as a number, for its lever: the register
/// count of `cap=N`, or the index of an enumerated key's value (the level of
/// `unroll`).
class FunctionNumberChoice {
public:
  explicit FunctionNumberChoice(const char *Key);
  /// The number the function-options file gives \p F, if it gives one.
  std::optional<uint32_t> madeFor(const llvm::Function &F) const;
  /// The value at \p Index of an enumerated key ("?" where none is).
  const char *valueName(uint32_t Index) const;

private:
  uint32_t KeyIndex = 0;
  bool Known = false;
};

/// The analyses runCorePass reads; call from getAnalysisUsage.
void addCorePassAnalyses(llvm::AnalysisUsage &AU);

/// Asks the core whether the coalesce pass will take \p MF (on behalf of \p P,
/// whose analyses must include runCorePass's, preserving everything): empty
/// if it will, else why not.
std::string coalesceRefusal(llvm::MachineFunction &MF,
                            llvm::MachineFunctionPass &P,
                            const NvraOptions &Options);

/// Runs core pass \p Which over \p MF on behalf of \p P (named \p PassArg for
/// statistics and remarks). Returns true if the function changed.
bool runCorePass(llvm::MachineFunction &MF, llvm::MachineFunctionPass &P,
                 const char *PassArg, NvraPass Which,
                 const NvraOptions &Options);

/// A cl::opt parser that accepts only values greater than zero, so that
/// `-nvregalloc-k=0` is an error at the command line, not a surprise later.
template <typename T> class PositiveParser : public llvm::cl::parser<T> {
public:
  using llvm::cl::parser<T>::parser;
  bool parse(llvm::cl::Option &O, llvm::StringRef ArgName, llvm::StringRef Arg,
             T &Value) {
    if (llvm::cl::parser<T>::parse(O, ArgName, Arg, Value))
      return true;
    if (!(Value > T(0)))
      return O.error("'" + Arg + "' must be greater than zero");
    return false;
  }
};

} // namespace nvregalloc

#endif

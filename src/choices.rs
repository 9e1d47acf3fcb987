//! The per-function choices: the one place that says which keys a
//! function-options file (`-nvregalloc-function-options=FILE`) may set,
//! their values, what stock LLVM and the plugin do without them, and what
//! each means. The file parser below, the shim's option help and its levers
//! (through the ABI in `ffi`) and the tuner (`nvregalloc-tune`) all read
//! `KEYS`; adding a choice is a `ChoiceKey` here, the one shim lever that
//! applies it, and a test.
//!
//! The file:
//!
//! ```text
//! nvregalloc-options 1          # the format's version (optional: 1)
//! * coalesce=off                # every function not named, every GPU
//! k lsr=off                     # function k, every GPU
//! [sm_90]                       # from here on, only when compiling for sm_90
//! k lsr=off cap=40
//! ```
//!
//! A function takes the first line that names it, else the first `*` line,
//! of its GPU's section; where that section has neither, the lines before
//! any section; where they have neither, the command line's options. A
//! file without the version line is read as version 1 (files written before
//! versions existed).

use std::collections::HashMap;
use std::fmt;

use crate::options::{CoalesceMode, ColorMode, Options, PressureMode};

/// One key of a function-options file.
#[derive(Debug)]
pub struct ChoiceKey {
    pub name: &'static str,
    /// The values it takes; empty for `cap`, which takes a register count.
    pub values: &'static [&'static str],
    /// What LLVM does without the plugin.
    pub stock: &'static str,
    /// What the plugin does unless told otherwise.
    pub default: &'static str,
    /// Acts in the middle end (clang `-fpass-plugin`, opt): llc's input,
    /// already optimized IR, cannot show it.
    pub middle_end: bool,
    pub help: &'static str,
}

pub const COALESCE: ChoiceKey = ChoiceKey {
    name: "coalesce",
    values: &["after-stock", "off"],
    stock: "off",
    default: "after-stock",
    middle_end: false,
    help: "conservative coalescing after LLVM's RegisterCoalescer",
};
pub const COLOR: ChoiceKey = ChoiceKey {
    name: "color",
    values: &["off", "rename"],
    stock: "off",
    default: "off",
    middle_end: false,
    help: "rename virtual registers to the fewest PTX registers",
};
pub const PRESSURE: ChoiceKey = ChoiceKey {
    name: "pressure",
    values: &["off", "relieve"],
    stock: "off",
    default: "off",
    middle_end: false,
    help: "recompute cheap values next to their uses where that crosses an occupancy step",
};
pub const UNDEFINED: ChoiceKey = ChoiceKey {
    name: "undefined",
    values: &["apart", "shared"],
    stock: "apart",
    default: "apart",
    middle_end: false,
    help: "renaming: undefined values get registers of their own, or share them",
};
/// A kernel's PTX `.maxnreg`: ptxas left to itself often takes more
/// registers than it needs, and only ptxas can tell where a cap at an
/// occupancy step holds without a spill.
pub const CAP: ChoiceKey = ChoiceKey {
    name: "cap",
    values: &[],
    stock: "",
    default: "",
    middle_end: false,
    help: "registers per thread ptxas may give the kernel (PTX .maxnreg), 1 to 255",
};
/// On NVPTX, whose addresses have no register-plus-scaled-index form, LSR
/// gives each array its own 64-bit pointer variable and carries them all
/// through the loop; a 32-bit index read by every address is two registers
/// per array fewer, for an address computation at each access. Only ptxas
/// can tell which pays (`nvregalloc-tune` asks it), so it is per function.
/// The shim's lever: `LsrGatePass.cpp`.
pub const LSR: ChoiceKey = ChoiceKey {
    name: "lsr",
    values: &["on", "off", "judged"],
    stock: "on",
    default: "judged",
    middle_end: false,
    help: "LLVM's loop strength reduction; judged: undone where the estimated pressure says it costs an occupancy step",
};
/// `unroll` sets how far LLVM's loop unrollers may go of their own accord
/// (`#pragma unroll` always holds), in levels, as LLVM's `-unroll-threshold`
/// does for a whole run: `on`, LLVM's thresholds; `full`, only loops with a
/// constant trip count unrolled fully within LLVM's full-unroll size, none
/// partially or at run time (whose copies keep several iterations' values
/// live while the loop still loops); `small`, the same within a quarter of
/// that size; `off`, none, as clang's `-fno-unroll-loops`. An unrolled body
/// keeps several iterations' values live at once, which can cost an
/// occupancy step; a rolled loop gives up their instruction-level
/// parallelism, so `nvregalloc-tune` takes a level below `on` only where it
/// gains warps nothing else does. Which loops a level keeps rolled:
/// `unroll_keeps_rolled`. The lever: `UnrollGatePass.cpp`.
pub const UNROLL: ChoiceKey = ChoiceKey {
    name: "unroll",
    values: &["on", "full", "small", "off"],
    stock: "on",
    default: "on",
    middle_end: true,
    help: "LLVM's loop unrollers of their own accord (#pragma unroll holds): as they are; \
           only full unrolls of up to 300 IR instructions; of up to 75; none",
};

/// LLVM 22's size bound for unrolling a loop fully at -O3 (its
/// `-unroll-threshold`, 300 at -O3, which NVPTX's TargetTransformInfo
/// keeps; it takes a quarter of it for partial and runtime unrolling), in
/// IR instructions of the unrolled loop. LLVM also goes past it, up to
/// four times, where it expects the unrolled code to simplify; `unroll=full`
/// does not.
pub const LLVM_FULL_UNROLL_INSTS: u64 = 300;

/// A loop as the `unroll` lever sees it, before LLVM's unrollers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnrollLoop {
    /// `None`: not a constant.
    pub trip_count: Option<u32>,
    /// IR instructions of its body (its blocks, inner loops once).
    pub insts: u32,
}

/// Whether `unroll=<value>` (`value`: the index among `UNROLL.values`)
/// keeps the loop rolled, out of the unrollers' reach; a loop it does not
/// keep is LLVM's to unroll or not.
pub fn unroll_keeps_rolled(value: usize, l: &UnrollLoop) -> bool {
    let unrolls_fully_within =
        |bound: u64| l.trip_count.is_some_and(|trips| u64::from(trips) * u64::from(l.insts) <= bound);
    match UNROLL.values.get(value).copied() {
        Some("full") => !unrolls_fully_within(LLVM_FULL_UNROLL_INSTS),
        Some("small") => !unrolls_fully_within(LLVM_FULL_UNROLL_INSTS / 4),
        Some("off") => true,
        _ => false,
    }
}

/// `sched=pressure`: instruction selection schedules the function's blocks
/// for register pressure (LLVM's bottom-up register-reduction list
/// scheduler, what `-nvptx-sched4reg` picks for a whole run) rather than in
/// source order, NVPTX's default. ptxas schedules again, so only ptxas can
/// tell where it pays. The lever: `SchedGatePass.cpp`.
pub const SCHED: ChoiceKey = ChoiceKey {
    name: "sched",
    values: &["source", "pressure"],
    stock: "source",
    default: "source",
    middle_end: false,
    help: "instruction selection's scheduler: source order, or for register pressure",
};
/// `inline=always`: the function, and every function it calls directly or
/// through others, is inlined at every call site LLVM can inline it at (on
/// a kernel, what it calls), as nvcc does with device functions. ptxas
/// compiles an out-of-line function into each kernel that calls it, counts
/// its registers there and keeps the caller's values live across the call;
/// inlined, the callee's code is allocated with the caller's, at the price
/// of a copy per call site. `__noinline__` holds. The lever:
/// `InlineGatePass.cpp`.
pub const INLINE: ChoiceKey = ChoiceKey {
    name: "inline",
    values: &["auto", "always"],
    stock: "auto",
    default: "auto",
    middle_end: true,
    help: "inline the function and what it calls wherever called, as nvcc does",
};
/// `promote` sets how far `nvregalloc-promote-locals` (on by default: local
/// memory is where clang's CUDA loses most to nvcc's, see `promote`) goes
/// for the function: `on`, the command line's limits; `small`, only arrays
/// of at most 64 bytes (`promote::Limits::at_level`), whose unrolled or
/// inlined code is the smallest; `off`, none. Its code can take more
/// registers, which only ptxas can weigh against the local accesses it
/// saves. The levers: `promotesLocals` and `promoteLimits` in
/// `PromoteLocalsPass.cpp`, which every `nvregalloc-promote-locals-*` pass
/// asks.
pub const PROMOTE: ChoiceKey = ChoiceKey {
    name: "promote",
    values: &["on", "small", "off"],
    stock: "off",
    default: "on",
    middle_end: true,
    help: "nvregalloc-promote-locals: unroll loops and inline calls over local arrays; only over arrays of up to 64 bytes; none",
};

/// `widen=block`: an index widened from 32 to 64 bits in one block, and
/// scaled only in others, gets a copy of its widening in each scaling
/// block, where instruction selection makes the two one `mul.wide`; `off`
/// leaves the widening where LLVM put it, its 64-bit value live across
/// blocks and shifted or multiplied in 64 bits there. The copies are fewer
/// instructions and a 32-bit value live in place of a 64-bit one, but ptxas
/// allocates the result its own way: on HeCBench, 179 kernels took fewer
/// SASS instructions and 13 more, two gained warps, one lost an occupancy
/// step and one traded spills for one. So it is a per-function choice, off
/// by default, that `nvregalloc-tune` tries. The lever: `MulWidePass.cpp`.
pub const WIDEN: ChoiceKey = ChoiceKey {
    name: "widen",
    values: &["off", "block"],
    stock: "off",
    default: "off",
    middle_end: false,
    help: "copy a 32-bit index's widening into each block that scales it, for mul.wide",
};

/// `rolled=kept`: a loop LLVM's unrollers left rolled because it was too
/// big to unroll (`keep_rolled`) is marked `.pragma "nounroll"` for ptxas,
/// which otherwise unrolls constant-trip loops by itself whatever LLVM
/// decided; `ptxas` leaves them to ptxas, as stock LLVM does. ptxas's
/// unrolling costs code and often registers, and buys instruction-level
/// parallelism and constant offsets; `nvregalloc-tune` tries `ptxas` per
/// function where it pays. The lever: `KeepRolledPass.cpp`.
pub const ROLLED: ChoiceKey = ChoiceKey {
    name: "rolled",
    values: &["ptxas", "kept"],
    stock: "ptxas",
    default: "kept",
    middle_end: false,
    help: "loops LLVM left rolled for their size: ptxas may unroll them, or they stay rolled (nounroll)",
};

/// `spill=shared`: the kernel's PTX carries `.pragma "enable_smem_spilling"`,
/// and ptxas (13 and later) puts the spills it must make into shared memory
/// instead of local memory: shared memory each of the kernel's blocks takes, which only ptxas's report and the block size (`.maxntid`) can weigh
/// against blocks per SM, so `nvregalloc-tune` tries it per kernel where
/// stock's build spills. ptxas takes the pragma only in a kernel whose
/// block size it knows and that makes no calls and uses no dynamic shared
/// memory; the lever (`SharedSpillsPass.cpp`) leaves every other function
/// alone with a remark.
pub const SPILL: ChoiceKey = ChoiceKey {
    name: "spill",
    values: &["local", "shared"],
    stock: "local",
    default: "local",
    middle_end: false,
    help: "where ptxas puts the spills it must make: local memory, or shared memory (.pragma \"enable_smem_spilling\")",
};

/// `invariants` says what becomes of the values LICM and GVN hoisted out of
/// loops: `hoisted` keeps them there, live across the loop, as stock;
/// `recomputed` computes each again at its uses in the loop, from the
/// values it is computed from (`Options::invariant_tree_limit`), where ptxas
/// would not; `judged` takes the recomputed form only where the estimated
/// pressure says the hoisted values cost an occupancy step (`forms_judge`).
/// Recomputing costs instructions in every iteration, and on HeCBench the
/// estimate foretold steps ptxas did not take about as often as ones it
/// took, with a third more SASS where it missed (docs/register-study.md),
/// so the default keeps them hoisted and `nvregalloc-tune` tries
/// `recomputed` per function, where ptxas's count decides. The lever:
/// `RecomputeInvariantsPass.cpp`.
pub const INVARIANTS: ChoiceKey = ChoiceKey {
    name: "invariants",
    values: &["hoisted", "recomputed", "judged"],
    stock: "hoisted",
    default: "hoisted",
    middle_end: false,
    help: "values hoisted out of loops: kept there, recomputed at their uses in the loop, or recomputed where the estimated pressure says the hoisted ones cost an occupancy step",
};

/// Every key, in the order files and help list them. A key's place here is
/// its index in the ABI's `NvraFunctionChoices::value`.
pub const KEYS: &[&ChoiceKey] = &[
    &COALESCE,
    &COLOR,
    &PRESSURE,
    &UNDEFINED,
    &CAP,
    &LSR,
    &UNROLL,
    &SCHED,
    &INLINE,
    &PROMOTE,
    &WIDEN,
    &ROLLED,
    &SPILL,
    &INVARIANTS,
];

/// What ptxas can give one thread (sm_70 and later).
pub const MAX_REGISTERS: u32 = 255;

/// The version this build reads and writes.
pub const FORMAT_VERSION: u32 = 1;
const VERSION_WORD: &str = "nvregalloc-options";

fn index_of(key: &ChoiceKey) -> usize {
    KEYS.iter().position(|k| k.name == key.name).expect("every ChoiceKey is in KEYS")
}

/// Some keys' values for one function; a key not set is left to the
/// command line. Enumerated values are kept as their index in
/// `ChoiceKey::values`, `cap` as its register count.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FunctionChoices {
    values: [Option<u32>; KEYS.len()],
}

impl FunctionChoices {
    /// Every key as stock LLVM has it (no cap).
    pub fn stock() -> Self {
        Self::every(|k| k.stock)
    }

    /// Every key as the plugin has it unless told otherwise (no cap).
    pub fn plugin_default() -> Self {
        Self::every(|k| k.default)
    }

    fn every(value: impl Fn(&ChoiceKey) -> &'static str) -> Self {
        let mut choices = Self::default();
        for key in KEYS.iter().filter(|k| !k.values.is_empty()) {
            choices.set(key.name, value(key)).expect("defaults are among the values");
        }
        choices
    }

    /// `key=value`, checked against `KEYS`.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let Some(index) = KEYS.iter().position(|k| k.name == key) else {
            let known: Vec<_> = KEYS.iter().map(|k| k.name).collect();
            return Err(format!("unknown option '{key}' (known: {})", known.join(", ")));
        };
        let info = KEYS[index];
        self.values[index] = Some(if info.values.is_empty() {
            match value.parse::<u32>() {
                Ok(n @ 1..=MAX_REGISTERS) => n,
                _ => return Err(format!("{key}={value}: expected registers, 1 to {MAX_REGISTERS}")),
            }
        } else {
            match info.values.iter().position(|v| *v == value) {
                Some(v) => v as u32,
                None => return Err(format!("{key}={value}: expected one of {}", info.values.join(", "))),
            }
        });
        Ok(())
    }

    /// These choices with `key=value` (a value `KEYS` defines).
    pub fn with(mut self, key: &ChoiceKey, value: &str) -> Self {
        self.set(key.name, value).unwrap_or_else(|e| panic!("{e}"));
        self
    }

    /// The value set for an enumerated `key`, if any.
    pub fn get(&self, key: &ChoiceKey) -> Option<&'static str> {
        debug_assert!(!key.values.is_empty(), "{} takes a number", key.name);
        self.values[index_of(key)].map(|v| key.values[v as usize])
    }

    /// Whether `key` is set to `value`.
    pub fn is(&self, key: &ChoiceKey, value: &str) -> bool {
        self.get(key) == Some(value)
    }

    pub fn cap(&self) -> Option<u32> {
        self.values[index_of(&CAP)]
    }

    pub fn with_cap(mut self, cap: Option<u32>) -> Self {
        self.values[index_of(&CAP)] = cap;
        self
    }

    /// Per key in `KEYS` order: unset, the value's index, or `cap`'s count
    /// (the ABI's layout).
    pub fn raw_values(&self) -> &[Option<u32>] {
        &self.values
    }

    /// The command line's options as these choices change them: the
    /// machine passes' choices. The others are the shim's levers, which read
    /// the choices themselves (`nvra_function_choices`): `cap`
    /// (`nvregalloc-register-cap`), `lsr`, `sched` and the middle end's.
    pub fn apply_to(&self, options: &mut Options) {
        if let Some(v) = self.get(&COALESCE) {
            options.coalesce_mode = if v == "off" { CoalesceMode::Off } else { CoalesceMode::AfterStock };
        }
        if let Some(v) = self.get(&COLOR) {
            options.color_mode = if v == "off" { ColorMode::Off } else { ColorMode::Rename };
        }
        if let Some(v) = self.get(&PRESSURE) {
            options.pressure_mode = if v == "off" { PressureMode::Off } else { PressureMode::Relieve };
        }
        if let Some(v) = self.get(&UNDEFINED) {
            options.undefined_apart = v == "apart";
        }
    }
}

/// `key=value ...` in `KEYS` order, the keys set only.
impl fmt::Display for FunctionChoices {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (key, value) in KEYS.iter().zip(&self.values) {
            let Some(v) = value else { continue };
            if !first {
                f.write_str(" ")?;
            }
            first = false;
            match key.values.get(*v as usize) {
                Some(name) if !key.values.is_empty() => write!(f, "{}={name}", key.name)?,
                _ => write!(f, "{}={v}", key.name)?,
            }
        }
        Ok(())
    }
}

/// The file's syntax in one line, for `-help`: `NAME coalesce=after-stock|off ... cap=N`.
pub fn syntax() -> String {
    let mut line = "NAME".to_owned();
    for key in KEYS {
        let values = if key.values.is_empty() { "N".to_owned() } else { key.values.join("|") };
        line.push_str(&format!(" {}={values}", key.name));
    }
    line
}

/// A parsed function-options file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OptionsFile {
    /// The lines before any section (GPU `None`), then one per `[sm_NN]`.
    sections: Vec<(Option<String>, HashMap<String, FunctionChoices>)>,
}

impl OptionsFile {
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut file = Self { sections: vec![(None, HashMap::new())] };
        let mut seen_content = false;
        for (n, line) in text.lines().enumerate() {
            let at = |e: String| format!("line {}: {e}", n + 1);
            let line = line.split('#').next().unwrap_or("").trim();
            let mut words = line.split_whitespace();
            let Some(first) = words.next() else { continue };
            if first == VERSION_WORD {
                let version = words.next().unwrap_or("");
                if seen_content || version != FORMAT_VERSION.to_string() || words.next().is_some() {
                    return Err(at(format!(
                        "'{line}': this plugin reads `{VERSION_WORD} {FORMAT_VERSION}` as the first line"
                    )));
                }
                seen_content = true;
                continue;
            }
            seen_content = true;
            if let Some(gpu) = first.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
                if gpu.is_empty() || words.next().is_some() {
                    return Err(at(format!("'{line}': a section is one `[sm_NN]`")));
                }
                file.sections.push((Some(gpu.to_owned()), HashMap::new()));
                continue;
            }
            let mut choices = FunctionChoices::default();
            for word in words {
                let Some((key, value)) = word.split_once('=') else {
                    return Err(at(format!("'{word}' is not key=value")));
                };
                choices.set(key, value).map_err(at)?;
            }
            let section = &mut file.sections.last_mut().expect("the unsectioned part").1;
            section.entry(first.to_owned()).or_insert(choices);
        }
        Ok(file)
    }

    /// The choices for `function` when compiling for `gpu` (e.g. "sm_90";
    /// empty where unknown), if the file has any.
    pub fn lookup(&self, function: &str, gpu: &str) -> Option<&FunctionChoices> {
        fn in_section<'a>(
            section: &'a HashMap<String, FunctionChoices>,
            function: &str,
        ) -> Option<&'a FunctionChoices> {
            section.get(function).or_else(|| section.get("*"))
        }
        self.sections
            .iter()
            .filter(|(g, _)| g.as_deref() == Some(gpu))
            .find_map(|(_, s)| in_section(s, function))
            .or_else(|| in_section(&self.sections[0].1, function))
    }

    /// A file of `sections`, each with its `*` line first, then its
    /// functions by name with a comment each.
    pub fn write(header: &str, sections: &[Section]) -> String {
        let mut text = format!("{VERSION_WORD} {FORMAT_VERSION}\n");
        for line in header.lines() {
            text.push_str(&format!("# {line}\n"));
        }
        for section in sections {
            text.push_str(&section.to_text());
        }
        text
    }
}

/// What `OptionsFile::write` writes for one GPU (`None`: before any
/// section, for every GPU).
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    pub gpu: Option<String>,
    /// The `*` line.
    pub others: FunctionChoices,
    /// (function, choices, comment)
    pub functions: Vec<(String, FunctionChoices, String)>,
}

impl Section {
    /// Its lines: the `[gpu]` header if any, the `*` line, the functions.
    pub fn to_text(&self) -> String {
        let mut text = String::new();
        if let Some(gpu) = &self.gpu {
            text.push_str(&format!("[{gpu}]\n"));
        }
        text.push_str(&format!("* {}  # functions not named below\n", self.others));
        for (name, choices, comment) in &self.functions {
            let comment = if comment.is_empty() { String::new() } else { format!("  # {comment}") };
            text.push_str(&format!("{name} {choices}{comment}\n"));
        }
        text
    }
}

/// `-nvregalloc-function-options=FILE`: per-function choices, in the format
/// and with the keys this module defines. The file is read once per run.
pub mod per_function {
    use std::path::{Path, PathBuf};
    use std::sync::{Arc, Mutex};

    use super::{FunctionChoices, OptionsFile};
    use crate::options::Options;

    /// A file's contents, or why it could not be read.
    type Loaded = Arc<Result<OptionsFile, String>>;

    /// Read once per file and run.
    static FILES: Mutex<Vec<(PathBuf, Loaded)>> = Mutex::new(Vec::new());

    fn load(path: &Path) -> Loaded {
        let mut files = FILES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((_, f)) = files.iter().find(|(p, _)| p == path) {
            return f.clone();
        }
        let parsed = Arc::new(
            std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read -nvregalloc-function-options={}: {e}", path.display()))
                .and_then(|text| {
                    OptionsFile::parse(&text)
                        .map_err(|e| format!("-nvregalloc-function-options={}: {e}", path.display()))
                }),
        );
        files.push((path.to_owned(), parsed.clone()));
        parsed
    }

    impl Options {
        /// The choices the function-options file (if any) makes for
        /// `function` compiled for `gpu`; an unreadable or malformed file is
        /// an error.
        pub fn choices_for(&self, function: &str, gpu: &str) -> Result<FunctionChoices, String> {
            let Some(path) = &self.function_options else { return Ok(FunctionChoices::default()) };
            let file = load(path);
            let file = file.as_ref().as_ref().map_err(Clone::clone)?;
            Ok(file.lookup(function, gpu).cloned().unwrap_or_default())
        }

        /// These options as the function-options file (if any) sets them for
        /// `function` on `self.target_cpu`.
        pub fn for_function(&self, function: &str) -> Result<Options, String> {
            let mut options = self.clone();
            self.choices_for(function, &self.target_cpu)?.apply_to(&mut options);
            Ok(options)
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::choices::{LSR, UNROLL};

        #[test]
        fn a_file_makes_choices_for_the_functions_it_names_on_its_gpu() {
            let path = std::env::temp_dir().join(format!("nvra-choices-{}.nvra", std::process::id()));
            std::fs::write(&path, "k lsr=off cap=40\n* lsr=on\n[sm_80]\nk unroll=off\n").unwrap();
            let options = Options { function_options: Some(path.clone()), ..Options::default() };
            let k = options.choices_for("k", "sm_90").unwrap();
            assert!(k.is(&LSR, "off") && k.get(&UNROLL).is_none());
            let other = options.choices_for("other", "sm_90").unwrap();
            assert!(other.is(&LSR, "on"));
            let k80 = options.choices_for("k", "sm_80").unwrap();
            assert!(k80.is(&UNROLL, "off") && k80.get(&LSR).is_none());
            assert_eq!(Options::default().choices_for("k", "sm_90").unwrap(), FunctionChoices::default());
            std::fs::remove_file(&path).unwrap();
            let missing =
                Options { function_options: Some(path.with_extension("none")), ..Options::default() };
            assert!(missing.for_function("k").unwrap_err().starts_with("cannot read"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<OptionsFile, String> {
        OptionsFile::parse(text)
    }

    #[test]
    fn lines_name_functions_and_their_choices() {
        let file =
            parse("# tuned\nk1 color=off pressure=relieve\n\nk2 coalesce=off undefined=shared # stock\n")
                .unwrap();
        let k1 = file.lookup("k1", "sm_90").unwrap();
        assert_eq!(k1.to_string(), "color=off pressure=relieve");
        assert!(k1.is(&PRESSURE, "relieve") && k1.get(&LSR).is_none());
        assert_eq!(file.lookup("k2", "").unwrap().to_string(), "coalesce=off undefined=shared");
        assert!(file.lookup("k3", "sm_90").is_none());
    }

    #[test]
    fn unroll_levels_keep_rolled_what_would_unroll_past_their_size() {
        let level = |name| UNROLL.values.iter().position(|&v| v == name).unwrap();
        let rolled =
            |name, trip_count, insts| unroll_keeps_rolled(level(name), &UnrollLoop { trip_count, insts });
        // 8 trips of 9 instructions: 72, within both sizes.
        assert!(!rolled("on", Some(8), 9) && !rolled("full", Some(8), 9) && !rolled("small", Some(8), 9));
        // 10 trips of 9: 90, over a quarter of 300.
        assert!(!rolled("full", Some(10), 9) && rolled("small", Some(10), 9));
        assert!(!rolled("full", Some(30), 10) && rolled("full", Some(31), 10));
        // A trip count known only at run time: partial or runtime unrolling.
        assert!(!rolled("on", None, 4) && rolled("full", None, 4) && rolled("small", None, 4));
        assert!(rolled("off", Some(2), 1));
    }

    #[test]
    fn mistakes_are_errors_that_say_where() {
        assert_eq!(parse("k color").unwrap_err(), "line 1: 'color' is not key=value");
        assert!(parse("k\nk colour=off").unwrap_err().starts_with("line 2: unknown option 'colour'"));
        assert!(parse("k color=maybe").unwrap_err().contains("expected one of off, rename"));
        assert!(parse("k cap=0").unwrap_err().contains("cap=0: expected registers, 1 to 255"));
        assert!(parse("k cap=many").is_err());
        assert!(parse("k lsr=no").unwrap_err().contains("lsr=no: expected one of on, off"));
        assert!(parse("k sched=burr").unwrap_err().contains("expected one of source, pressure"));
        assert!(parse("k inline=never").unwrap_err().contains("expected one of auto, always"));
        assert!(parse("nvregalloc-options 2\n").unwrap_err().contains("reads `nvregalloc-options 1`"));
        assert!(parse("k lsr=off\nnvregalloc-options 1\n").unwrap_err().starts_with("line 2:"));
        assert!(parse("[sm_90 x]\n").is_err());
    }

    #[test]
    fn a_gpu_section_comes_before_the_lines_for_every_gpu() {
        let file = parse(
            "nvregalloc-options 1\n* lsr=on\nk cap=64\n[sm_90]\nk cap=40 lsr=off\n[sm_80]\n* unroll=off\n",
        )
        .unwrap();
        assert_eq!(file.lookup("k", "sm_90").unwrap().cap(), Some(40));
        // sm_80's `*` comes before the unsectioned line naming k.
        assert_eq!(file.lookup("k", "sm_80").unwrap().to_string(), "unroll=off");
        assert_eq!(file.lookup("k", "sm_75").unwrap().cap(), Some(64));
        assert_eq!(file.lookup("other", "sm_90").unwrap().to_string(), "lsr=on");
        assert_eq!(file.lookup("other", "").unwrap().to_string(), "lsr=on");
    }

    #[test]
    fn written_files_read_back_the_same() {
        let tuned = FunctionChoices::plugin_default().with(&LSR, "off").with_cap(Some(32));
        let text = OptionsFile::write(
            "tuned",
            &[Section {
                gpu: Some("sm_90".into()),
                others: FunctionChoices::stock(),
                functions: vec![("k".into(), tuned.clone(), "why".into())],
            }],
        );
        assert!(text.starts_with("nvregalloc-options 1\n# tuned\n[sm_90]\n* "));
        let file = parse(&text).unwrap();
        assert_eq!(file.lookup("k", "sm_90"), Some(&tuned));
        assert_eq!(file.lookup("j", "sm_90"), Some(&FunctionChoices::stock()));
        assert_eq!(file.lookup("k", "sm_80"), None);
    }

    #[test]
    fn choices_set_the_options_the_passes_read() {
        let mut options = Options::default();
        parse("k lsr=off unroll=off sched=pressure inline=always promote=off cap=40 coalesce=off")
            .unwrap()
            .lookup("k", "")
            .unwrap()
            .apply_to(&mut options);
        assert_eq!(options.coalesce_mode, CoalesceMode::Off);
        assert_eq!(options.color_mode, Options::default().color_mode);
    }

    #[test]
    fn syntax_lists_every_key() {
        let line = syntax();
        for key in KEYS {
            assert!(line.contains(&format!(" {}=", key.name)), "{line}");
        }
        assert!(line.contains("cap=N") && line.contains("coalesce=after-stock|off"));
    }
}

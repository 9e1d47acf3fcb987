//! What the passes may be told. The defaults are the specification's
//! parameters (CICC: K = 15, coalescing factor 0.8); the shim's `cl::opt`s
//! override them.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoalesceMode {
    Off,
    /// LLVM's RegisterCoalescer ran first; we take what it left.
    AfterStock,
    /// LLVM's RegisterCoalescer was disabled; we are the only coalescer.
    ReplaceStock,
    /// Decide and report, change nothing.
    Analyze,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorMode {
    Off,
    /// Every color becomes one PTX register; the palette is unbounded.
    Rename,
    /// Decide and report, change nothing.
    Analyze,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PressureMode {
    Off,
    /// Recompute cheap values next to their uses where that crosses an
    /// occupancy step (`pressure`).
    Relieve,
    /// Decide and report, change nothing.
    Analyze,
}

/// Deliberate misbehaviour, for the tests that prove failures are caught.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    None,
    Panic,
    MergeInterfering,
}

#[derive(Clone, Debug)]
pub struct Options {
    /// Colors assumed by the conservative coalescing and Briggs tests.
    pub k: u32,
    /// A neighbour is high-degree when `degree * coalesce_factor >= k`.
    pub coalesce_factor: f64,
    pub coalesce_mode: CoalesceMode,
    /// Off by default: ptxas re-allocates registers, and PTX names shared by
    /// coloring move its count both ways (docs/design.md, "Renaming and ptxas").
    /// A register budget colors whatever this says.
    pub color_mode: ColorMode,
    /// Weight copy candidates by the frequency of their block.
    pub block_freq_bias: bool,
    /// Run the independent checker on every rewrite.
    pub verify: bool,
    pub fault: Fault,
    /// Copies considered per function.
    pub copy_limit: Option<u64>,
    /// Merges performed per function.
    pub coalesce_limit: Option<u64>,
    /// Where to write the JSON report (`-nvregalloc-report`).
    pub report_path: Option<std::path::PathBuf>,
    /// Where to write Graphviz interference graphs (`-nvregalloc-dot`).
    pub dot_dir: Option<std::path::PathBuf>,
    /// The target processor, e.g. "sm_90".
    pub target_cpu: String,
    /// CSSA decision trace: 0 none, 1 each PHI, 2 each operand too.
    pub cssa_verbosity: u32,
    /// Register budget: color each class into at most this many registers,
    /// spilling what does not fit. `None`: unbounded (rename mode).
    pub max_regs: Option<u32>,
    /// Cycles one spill access costs; `None`: estimated from the function's
    /// register footprint (the specification's L1 / L2 / L3 tiers).
    pub spill_latency: Option<f64>,
    /// Base of the loop weight `base^depth` in spill costs.
    pub loop_base: f64,
    /// Recompute spilled constants and addresses instead of reloading them.
    pub remat: bool,
    /// Interference graph entries a pass may build per function
    /// (`Census::graph_entries`): past them coloring goes graph-free and the
    /// other passes leave the function as it is, so that time and memory
    /// follow the code, not the square of what is live.
    pub graph_limit: u64,
    /// Rename mode: two values defined in one block may share a register
    /// (the fewest registers, MaxLive). Off, colors are split so that no
    /// block defines two values of one (`color::keep_block_defs_apart`):
    /// fewer functions where ptxas needs more registers than stock, but
    /// fewer that gain a warp step, so on by default.
    pub reuse_within_block: bool,
    /// Rename mode: an undefined value (`Function::undefined_values`) gets a
    /// register no defined value writes. ptxas exploits undefined registers
    /// in some kernels and pays for them in others; on by default because
    /// sharing cost one HeCBench kernel an occupancy step against stock
    /// (docs/design.md, "Renaming and ptxas").
    pub undefined_apart: bool,
    /// Off by default: on HeCBench the pass gains an occupancy step on 7
    /// kernels and loses one on 1, because ptxas re-schedules and re-allocates
    /// (docs/design.md, "The pressure pass").
    pub pressure_mode: PressureMode,
    /// Registers ptxas is assumed to need beyond the modelled pressure when
    /// the pressure pass turns registers into warps.
    pub pressure_slack: u32,
    /// Tests: lower the modelled pressure to this, as far as the pass can,
    /// whatever the occupancy (`None`: only where a step is crossed).
    pub pressure_target: Option<u32>,
    /// `-nvregalloc-function-options=FILE` (see `per_function`).
    pub function_options: Option<std::path::PathBuf>,
    /// Whether LLVM's loop strength reduction runs on the function
    /// (`lsr=off` in a function-options file turns it off). On NVPTX, whose
    /// addresses have no register-plus-scaled-index form, LSR gives each
    /// array its own 64-bit pointer variable and carries them all through
    /// the loop; a 32-bit index read by every address is two registers per
    /// array fewer, for an address computation at each access. Only ptxas
    /// can tell which pays (`nvregalloc-tune` asks it), so it is per function.
    pub loop_strength_reduction: bool,
    /// Whether LLVM's loop unrollers may unroll the function's loops of their
    /// own accord (`unroll=off` in a function-options file stops them, as
    /// clang's `-fno-unroll-loops` does; `#pragma unroll` still holds). An
    /// unrolled body keeps several iterations' values live at once, which
    /// can cost an occupancy step; a rolled loop gives up their
    /// instruction-level parallelism, so `nvregalloc-tune` takes it only where
    /// it gains warps nothing else does. Acts in the middle end (clang
    /// `-fpass-plugin`), not in llc.
    pub loop_unrolling: bool,
    /// Whether instruction selection schedules the function's blocks for
    /// register pressure (`sched=pressure` in a function-options file:
    /// LLVM's bottom-up register-reduction list scheduler, what
    /// `-nvptx-sched4reg` picks for a whole run) rather than in source
    /// order, NVPTX's default. ptxas schedules again, so only ptxas can
    /// tell where it pays (`nvregalloc-tune` asks it).
    pub pressure_scheduling: bool,
    /// Whether the function, and every function it calls directly or
    /// through others, is inlined at every call site LLVM can inline it at
    /// (`inline=always` in a function-options file; on a kernel, what it
    /// calls), as nvcc does with device functions, rather than where LLVM's
    /// inliner finds it cheap (`inline=auto`). ptxas compiles an out-of-line
    /// function into each kernel that calls it, counts its registers there
    /// and keeps the caller's values live across the call; inlined, the
    /// callee's code is allocated with the caller's, at the price of a copy
    /// per call site. Only ptxas can tell which pays (`nvregalloc-tune` asks
    /// it). Acts in the middle end (clang `-fpass-plugin`, opt), not in llc;
    /// `__noinline__` holds.
    pub inline_always: bool,
    /// Whether `nvregalloc-promote-locals` may unroll the function's loops
    /// over local arrays and inline its calls that take a local's address,
    /// so that the locals become registers (`promote=off` in a
    /// function-options file stops it for the function;
    /// `-nvregalloc-promote-locals=false` for all). On by default: local
    /// memory is where clang's CUDA loses most to nvcc's (see `promote`).
    /// The unrolled or inlined code can take more registers, which only
    /// ptxas can weigh against the local accesses it saves. Acts in the
    /// middle end (clang `-fpass-plugin`, opt), not in llc.
    pub promote_locals: bool,
}

/// The one statement of every default: the shim's command-line options take
/// theirs from here (`ffi::nvra_default_options`) and show them in -help.
impl Default for Options {
    fn default() -> Self {
        Self {
            k: 15,
            coalesce_factor: 0.8,
            coalesce_mode: CoalesceMode::AfterStock,
            color_mode: ColorMode::Off,
            block_freq_bias: false,
            verify: true,
            fault: Fault::None,
            copy_limit: None,
            coalesce_limit: None,
            report_path: None,
            dot_dir: None,
            target_cpu: "sm_90".to_owned(),
            cssa_verbosity: 0,
            max_regs: None,
            spill_latency: None,
            loop_base: crate::spill_cost::LOOP_BASE,
            remat: true,
            graph_limit: DEFAULT_GRAPH_LIMIT,
            reuse_within_block: true,
            undefined_apart: true,
            pressure_mode: PressureMode::Off,
            pressure_slack: DEFAULT_PRESSURE_SLACK,
            pressure_target: None,
            function_options: None,
            loop_strength_reduction: true,
            loop_unrolling: true,
            pressure_scheduling: false,
            inline_always: false,
            promote_locals: true,
        }
    }
}

/// See `Options::pressure_slack`.
pub const DEFAULT_PRESSURE_SLACK: u32 = 0;

/// A graph of at most about 30 MB, built in about 0.1 s; the largest of the
/// project's corpus takes 70,000 entries (see docs/results.md, the compile-time
/// section).
pub const DEFAULT_GRAPH_LIMIT: u64 = 1_000_000;

impl Options {
    /// The high-degree test shared by conservative coalescing and coloring.
    pub fn is_high_degree(&self, degree: usize) -> bool {
        degree as f64 * self.coalesce_factor >= f64::from(self.k)
    }
}

/// `-nvregalloc-function-options=FILE`: per-function choices, in the format
/// and with the keys `crate::choices` defines. The file is read once per run.
pub mod per_function {
    use std::path::{Path, PathBuf};
    use std::sync::{Arc, Mutex};

    use super::Options;
    use crate::choices::{FunctionChoices, OptionsFile};

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

        #[test]
        fn a_file_makes_choices_for_the_functions_it_names_on_its_gpu() {
            let path = std::env::temp_dir().join(format!("nvra-choices-{}.nvra", std::process::id()));
            std::fs::write(&path, "k lsr=off cap=40\n* lsr=on\n[sm_80]\nk unroll=off\n").unwrap();
            let options = Options { function_options: Some(path.clone()), ..Options::default() };
            let k = options.for_function("k").unwrap();
            assert!(!k.loop_strength_reduction && k.loop_unrolling);
            let other = options.for_function("other").unwrap();
            assert!(other.loop_strength_reduction);
            let on_sm80 = Options { target_cpu: "sm_80".into(), ..options.clone() };
            let k80 = on_sm80.for_function("k").unwrap();
            assert!(!k80.loop_unrolling && k80.loop_strength_reduction);
            assert!(Options::default().for_function("k").unwrap().loop_strength_reduction);
            std::fs::remove_file(&path).unwrap();
            let missing =
                Options { function_options: Some(path.with_extension("none")), ..Options::default() };
            assert!(missing.for_function("k").unwrap_err().starts_with("cannot read"));
        }
    }
}

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

/// What the passes are told, per function: the algorithm's knobs (the
/// command line's, as `for_function` changes them by the per-function
/// choices, `choices::FunctionChoices`), the target, and where reports go
/// (`outputs`).
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
    /// The target processor, e.g. "sm_90".
    pub target_cpu: String,
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
    /// Registers ptxas is assumed to need beyond the LSR judge's estimated
    /// peak when it turns registers into warps (`forms_judge`), for LSR and
    /// recomputed invariants alike.
    pub lsr_slack: u32,
    /// How much LSR must raise the estimate, in percent, before the judge
    /// undoes it: the estimate misses ptxas's count by a good margin either
    /// way, so only a gross rise is trusted (docs/register-study.md).
    pub lsr_min_growth: u32,
    /// How much hoisting loop invariants must raise the estimate over
    /// recomputing them in their loops, in percent, before the judge takes
    /// the recomputed form.
    pub invariant_min_growth: u32,
    /// The most instructions recomputed for one hoisted value at a use in a
    /// loop (the value and the hoisted values it is computed from): beyond
    /// it the value stays hoisted, so that no loop body grows by a long
    /// computation.
    pub invariant_tree_limit: u32,
    /// `-nvregalloc-function-options=FILE` (see `per_function`).
    pub function_options: Option<std::path::PathBuf>,
    pub outputs: Outputs,
}

/// Where the passes report, besides remarks and statistics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outputs {
    /// The JSON report (`-nvregalloc-report`).
    pub report_path: Option<std::path::PathBuf>,
    /// Graphviz interference graphs (`-nvregalloc-dot`).
    pub dot_dir: Option<std::path::PathBuf>,
    /// CSSA decision trace: 0 none, 1 each PHI, 2 each operand too.
    pub cssa_verbosity: u32,
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
            target_cpu: "sm_90".to_owned(),
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
            lsr_slack: DEFAULT_LSR_SLACK,
            lsr_min_growth: DEFAULT_LSR_MIN_GROWTH,
            invariant_min_growth: DEFAULT_INVARIANT_MIN_GROWTH,
            invariant_tree_limit: DEFAULT_INVARIANT_TREE_LIMIT,
            function_options: None,
            outputs: Outputs::default(),
        }
    }
}

/// See `Options::pressure_slack`.
pub const DEFAULT_PRESSURE_SLACK: u32 = 0;

/// See `Options::lsr_slack`.
pub const DEFAULT_LSR_SLACK: u32 = 0;
/// See `Options::lsr_min_growth`.
pub const DEFAULT_LSR_MIN_GROWTH: u32 = 50;
/// See `Options::invariant_min_growth`.
pub const DEFAULT_INVARIANT_MIN_GROWTH: u32 = 50;
/// See `Options::invariant_tree_limit`: bezier-surface's `pow` pieces need
/// 32 (docs/register-study.md).
pub const DEFAULT_INVARIANT_TREE_LIMIT: u32 = 32;

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

//! What the tuner prefers, in one place.
//!
//! Registers matter only through occupancy, and occupancy only as far as it
//! hides latency: past some warps per SM a kernel runs no faster (Volkov,
//! "Better performance at lower occupancy", GTC 2010), and the SASS
//! instructions a choice adds (a rolled loop, a cap that makes ptxas
//! recompute or reorder) are paid in every one of those warps. So the
//! default objective, `balanced`, weighs a choice against stock as LLVM's
//! AMDGPU scheduler weighs a schedule that gains occupancy
//! (`GCNSchedStrategy.cpp`: occupancy ratio times schedule-length ratio,
//! reverted below 1):
//!
//! ```text
//! profit = useful_warps(choice) / useful_warps(stock)
//!        × cost(stock) / cost(choice)
//! cost   = weighted_sass + (local_weight - 1) × weighted_local
//! ```
//!
//! where `useful_warps` is the occupancy NVIDIA's calculator gives (from
//! ptxas's registers and shared memory, and the block size where the PTX
//! states one), capped at `saturating_warps`, and `weighted_sass` counts
//! each SASS instruction `loop_weight^depth` times by the loops around it
//! (`loop_weighted`, on the counts by depth that `figures` reads off the
//! SASS); `weighted_local` counts the local loads and stores (LDL,
//! STL) among them the same way, so that each costs `local_weight`
//! instructions in all. Choices rank by profit (the search keeps the
//! plugin's default on a tie), and a register step that adds no occupancy
//! (shared memory or the block size limits it, or it is past saturation)
//! buys nothing.
//!
//! `local_weight` (`--local-weight`, default `DEFAULT_LOCAL_WEIGHT`) is
//! what one local access waits for, in dependent ALU instructions. Jia et
//! al., "Dissecting the NVIDIA Volta GPU Architecture via
//! Microbenchmarking" (arXiv:1804.06826, 2018), measured on a V100: an L1
//! data cache hit in 28 cycles, an L2 hit in 193, and 4 cycles for a
//! dependent single-precision add or multiply-add. Later measurements
//! (Ampere, Hopper) give like figures. An access that hits L1 then costs
//! 7 instructions, one that misses to L2 about 48; thread-private slots
//! that are reused mostly hit, so the default takes 9 hits in 10:
//! 0.9 × 7 + 0.1 × 48 ≈ 11. Not timed by us: no GPU was lent while this
//! was written. `--measure` judges by timings where a GPU is there.
//!
//! `--objective occupancy` keeps the ranking this replaces, for
//! comparison: register-limited warps first, then spill bytes, then SASS
//! instructions, then registers.
//!
//! Under both, a choice is judged against the two builds a user gets
//! without the tuner, stock's and the plugin's default (`Baseline`). It is
//! admissible only if it has
//! - no more spill bytes than the better of the two,
//! - no more local loads and stores than the baseline's floor (the default,
//!   unless the default spills more than stock: then stock),
//! - no fewer warps than both,
//! - and it is not worse than both by the objective.
//!
//! The default's own trade, registers for local memory (nvcc's trade
//! too), is admissible: the floor is what the user already has.
//!
//! And the tuner starts from the default: under `balanced` a choice
//! replaces a kernel's base (the default, or stock where the default
//! spills more) only if its profit is at least `min_gain` above the
//! base's (`--min-gain`, default `DEFAULT_MIN_GAIN`). The figures are
//! static counts: one SASS instruction in thousands, or a loop instruction
//! moved, is no evidence that the choice runs faster, and a choice taken for
//! it changes code generation for nothing anyone measured. An occupancy step
//! clears the margin with room to spare (on sm_90 the smallest, 36 to 40
//! warps, is 11%).

use std::cmp::Ordering;

use crate::figures::{ByDepth, Figures};
use nvregalloc::occupancy::Gpu;

/// What one local load or store costs, in ALU instructions (the module's
/// comment says where it comes from).
pub const DEFAULT_LOCAL_WEIGHT: f64 = 11.0;

/// How much better than a kernel's base a choice must be, as a fraction of
/// the base's profit, to replace it (the module's comment says why).
pub const DEFAULT_MIN_GAIN: f64 = 0.01;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Objective {
    /// Occupancy against loop-weighted SASS instructions (the default).
    Balanced,
    /// Register-limited warps first (the ranking before `balanced`).
    Occupancy,
}

/// The objective with its settings, for one GPU.
#[derive(Clone, Copy, Debug)]
pub struct Judge {
    pub objective: Objective,
    pub gpu: &'static Gpu,
    /// Warps per SM past which more buy nothing (`--saturating-warps`).
    pub saturating_warps: u32,
    /// Instructions one local load or store counts for (`--local-weight`).
    pub local_weight: f64,
    /// What an instruction weighs per loop around it (`--loop-weight`).
    pub loop_weight: f64,
    /// The fraction of profit a choice must gain over the base to replace
    /// it (`--min-gain`, in percent there).
    pub min_gain: f64,
}

/// Counts by loop depth, each counting `loop_weight^depth` times.
pub fn loop_weighted(counts: &ByDepth, loop_weight: f64) -> f64 {
    counts.iter().zip(0..).map(|(&n, depth)| f64::from(n) * loop_weight.powi(depth)).sum()
}

/// One kernel's figures in the two builds a user gets without the tuner.
#[derive(Clone, Copy, Debug)]
pub struct Baseline<'a> {
    pub stock: &'a Figures,
    pub default: &'a Figures,
}

impl<'a> Baseline<'a> {
    /// Whether the default spills more than stock: then stock is the floor.
    pub fn default_spills_more(&self) -> bool {
        self.default.spills() > self.stock.spills()
    }

    /// The build a choice may be no worse than in spills and local memory.
    pub fn floor(&self) -> &'a Figures {
        if self.default_spills_more() {
            self.stock
        } else {
            self.default
        }
    }
}

/// Smaller is better; compared in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Rank(Vec<f64>);

impl PartialOrd for Rank {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.0.partial_cmp(&other.0)
    }
}

impl Judge {
    /// The default saturation: half the SM's warps. A guess from Volkov's
    /// measurements, not from timings of ours (no GPU was lent while this
    /// was written); `--saturating-warps` changes it.
    pub fn default_saturation(gpu: &Gpu) -> u32 {
        gpu.max_warps_per_sm / 2
    }

    fn useful_warps(&self, f: &Figures) -> f64 {
        f64::from(f.occupancy.warps.min(self.saturating_warps).max(1))
    }

    /// Loop-weighted SASS instructions, each local access counting
    /// `local_weight`.
    pub fn cost(&self, f: &Figures) -> f64 {
        let sass = loop_weighted(&f.sass_by_depth, self.loop_weight);
        let local = loop_weighted(&f.local_by_depth, self.loop_weight);
        (sass + (self.local_weight - 1.0) * local).max(1.0)
    }

    /// `balanced`'s profit of `f` over `stock` (1: as good).
    pub fn profit(&self, f: &Figures, stock: &Figures) -> f64 {
        self.useful_warps(f) / self.useful_warps(stock) * self.cost(stock) / self.cost(f)
    }

    pub fn rank(&self, f: &Figures, stock: &Figures) -> Rank {
        let spills = f64::from(f.spills());
        Rank(match self.objective {
            // Rounded, so that a difference in the last bits is a tie.
            Objective::Balanced => vec![-(self.profit(f, stock) * 1e9).round(), spills, self.cost(f)],
            Objective::Occupancy => vec![
                -f64::from(self.gpu.register_limited_warps(f.registers)),
                spills,
                f64::from(f.sass),
                f64::from(f.registers),
            ],
        })
    }

    /// Whether `f` is better than `than`, both measured against `stock`.
    /// Under `balanced`, registers that cross no step count for nothing.
    pub fn better(&self, f: &Figures, than: &Figures, stock: &Figures) -> bool {
        self.rank(f, stock) < self.rank(than, stock)
    }

    /// The fraction of profit a choice must gain to replace another:
    /// `min_gain` under `balanced`; the occupancy objective has no margin.
    pub fn margin(&self) -> f64 {
        match self.objective {
            Objective::Balanced => self.min_gain,
            Objective::Occupancy => 0.0,
        }
    }

    /// Whether `f` is better than `than` by more than the margin: under
    /// `balanced`, also a profit at least `margin()` above `than`'s; under
    /// `occupancy`, which ranks by warps and not by profit, as `better`.
    pub fn gains_over(&self, f: &Figures, than: &Figures, stock: &Figures) -> bool {
        self.better(f, than, stock)
            && match self.objective {
                Objective::Balanced => {
                    self.profit(f, stock) >= self.profit(than, stock) * (1.0 + self.margin())
                }
                Objective::Occupancy => true,
            }
    }

    /// Whether `f` may be chosen (see the module's comment).
    pub fn admissible(&self, f: &Figures, base: Baseline) -> bool {
        self.why_not(f, base).is_none()
    }

    /// Why `f` may not be chosen, if it may not.
    pub fn why_not(&self, f: &Figures, base: Baseline) -> Option<&'static str> {
        let floor = base.floor();
        let fewest_warps = base.stock.occupancy.warps.min(base.default.occupancy.warps);
        if f.spills() > base.stock.spills().min(base.default.spills()) {
            Some("more spill bytes than stock or the default")
        } else if f.local() > floor.local() {
            Some("more local loads and stores than the default (stock, where the default spills more)")
        } else if f.occupancy.warps < fewest_warps {
            Some("fewer warps than stock and the default")
        } else if self.better(base.stock, f, base.stock) && self.better(base.default, f, base.stock) {
            Some("worse than stock and the default by the objective")
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nvregalloc::occupancy::gpu;

    /// A kernel of `sass` instructions outside loops.
    fn kernel(registers: u32, sass: u32) -> Figures {
        let gpu = gpu("sm_90").unwrap();
        Figures {
            registers,
            sass,
            sass_by_depth: [sass, 0, 0, 0, 0],
            occupancy: gpu.occupancy(registers, 0, None),
            ..Figures::default()
        }
    }

    /// `f` with `n` of its instructions local loads in a loop.
    fn with_local(f: Figures, n: u32) -> Figures {
        Figures { ldl: n, local_by_depth: [0, n, 0, 0, 0], ..f }
    }

    fn judge(objective: Objective) -> Judge {
        let gpu = gpu("sm_90").unwrap();
        Judge {
            objective,
            gpu,
            saturating_warps: 32,
            local_weight: DEFAULT_LOCAL_WEIGHT,
            loop_weight: 8.0,
            min_gain: DEFAULT_MIN_GAIN,
        }
    }

    #[test]
    fn each_loop_multiplies_an_instructions_weight() {
        assert_eq!(loop_weighted(&[18, 12, 8, 0, 0], 10.0), 18.0 + 120.0 + 800.0);
        assert_eq!(loop_weighted(&[18, 12, 8, 0, 0], 1.0), 38.0);
    }

    #[test]
    fn an_occupancy_step_must_outweigh_the_instructions_it_adds() {
        let judge = judge(Objective::Balanced);
        let stock = kernel(80, 1000); // 24 warps
                                      // 24 -> 32 warps for 10% more weighted instructions: 1.33 / 1.1 pays.
        assert!(judge.better(&kernel(64, 1100), &stock, &stock));
        // ... for 40% more it does not.
        assert!(!judge.better(&kernel(64, 1400), &stock, &stock));
        // Past saturation a step buys nothing: 32 -> 40 warps loses to fewer instructions.
        let at_32 = kernel(64, 1000);
        assert!(!judge.better(&kernel(48, 1001), &at_32, &at_32));
        assert!(judge.better(&kernel(64, 990), &at_32, &at_32));
        // A tie is no gain: stock stays.
        assert!(!judge.better(&kernel(63, 1000), &at_32, &at_32));
        // The occupancy objective takes the step whatever it costs.
        let occupancy = Judge { objective: Objective::Occupancy, ..judge };
        assert!(occupancy.better(&kernel(64, 1400), &stock, &stock));
    }

    #[test]
    fn a_choice_replaces_the_base_only_for_more_than_noise() {
        let judge = judge(Objective::Balanced);
        let at_32 = kernel(64, 1000);
        // One instruction in a thousand is better, but no gain to act on.
        assert!(judge.better(&kernel(64, 999), &at_32, &at_32));
        assert!(!judge.gains_over(&kernel(64, 999), &at_32, &at_32));
        // 2% fewer weighted instructions is.
        assert!(judge.gains_over(&kernel(64, 980), &at_32, &at_32));
        // The smallest occupancy step (36 -> 40 warps) clears it, for 5%
        // more instructions too.
        let unsaturated = Judge { saturating_warps: 64, ..judge };
        let at_36 = kernel(56, 1000);
        assert!(unsaturated.gains_over(&kernel(48, 1050), &at_36, &at_36));
        // With no margin, better is enough.
        let no_margin = Judge { min_gain: 0.0, ..judge };
        assert!(no_margin.gains_over(&kernel(64, 999), &at_32, &at_32));
        // The occupancy objective has no margin.
        let occupancy = Judge { objective: Objective::Occupancy, ..judge };
        assert!(occupancy.gains_over(&kernel(64, 999), &at_32, &at_32));
    }

    #[test]
    fn local_memory_in_a_loop_outweighs_the_warps_that_keeping_it_in_registers_costs() {
        // A filter kernel: stock keeps its table in local memory, 150 loads
        // in the loop, at 32 registers (64 warps); the default keeps it in
        // registers, 80 of them (24 warps), with no local access.
        let judge = judge(Objective::Balanced);
        let stock = with_local(kernel(32, 2000), 150);
        let default = kernel(80, 1600);
        assert!(judge.better(&default, &stock, &stock));
        // Counted as plain instructions, the loads would not pay for the warps.
        let unweighted = Judge { local_weight: 1.0, ..judge };
        assert!(!unweighted.better(&default, &stock, &stock));
        // The default's trade is admissible; going back to stock is not.
        let base = Baseline { stock: &stock, default: &default };
        assert!(judge.admissible(&default, base));
        assert_eq!(
            judge.why_not(&stock, base),
            Some("more local loads and stores than the default (stock, where the default spills more)")
        );
    }

    #[test]
    fn choices_are_judged_against_stock_and_the_default() {
        let judge = judge(Objective::Balanced);
        let stock = with_local(kernel(41, 1000), 4); // 40 warps
        let default = kernel(48, 900); // 40 warps
        let base = Baseline { stock: &stock, default: &default };
        assert!(judge.admissible(&default, base));
        assert!(judge.admissible(&kernel(44, 890), base));
        // More local accesses than the default.
        assert!(!judge.admissible(&with_local(kernel(40, 800), 1), base));
        // More spill bytes than either.
        assert!(!judge.admissible(&Figures { spill_loads: 4, ..kernel(32, 800) }, base));
        // Fewer warps than both (stock's 40, the default's 40).
        assert_eq!(judge.why_not(&kernel(72, 500), base), Some("fewer warps than stock and the default"));
        // Worse than both by the objective.
        assert!(!judge.admissible(&kernel(48, 1400), base));
        // Worse than the default alone is admissible: better than stock.
        assert!(judge.admissible(&kernel(48, 910), base));

        // Where the default spills more than stock, stock is the floor.
        let spilling = Figures { spill_stores: 8, ..with_local(kernel(32, 900), 6) };
        let base = Baseline { stock: &stock, default: &spilling };
        assert!(base.default_spills_more());
        assert!(judge.admissible(&stock, base));
        assert!(!judge.admissible(&spilling, base));
    }
}

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
//!        × weighted_sass(stock) / weighted_sass(choice)
//! ```
//!
//! where `useful_warps` is the occupancy NVIDIA's calculator gives (from
//! ptxas's registers and shared memory, and the block size where the PTX
//! states one), capped at `saturating_warps`, and `weighted_sass` counts
//! each SASS instruction `loop_weight^depth` times by the loops around it
//! (`figures`). A choice is taken when its profit is above 1: stock wins
//! ties, and a register step that adds no occupancy (shared memory or the
//! block size limits it, or it is past saturation) buys nothing.
//!
//! `--objective occupancy` keeps the ranking this replaces, for
//! comparison: register-limited warps first, then spill bytes, then SASS
//! instructions, then registers.
//!
//! Under both, a choice is admissible only if it costs nothing ptxas or
//! cuobjdump reports against stock: no fewer warps, no more spill bytes, no
//! more local loads and stores (LDL/STL), and no more registers unless for
//! fewer LDL/STL (nvcc's trade, which the plugin's default makes: locals
//! kept in registers).

use std::cmp::Ordering;

use crate::figures::Figures;
use nvregalloc::occupancy::Gpu;

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

    /// `balanced`'s profit of `f` over `stock` (1: as good).
    pub fn profit(&self, f: &Figures, stock: &Figures) -> f64 {
        let sass = |f: &Figures| f.weighted_sass.max(1.0);
        self.useful_warps(f) / self.useful_warps(stock) * sass(stock) / sass(f)
    }

    pub fn rank(&self, f: &Figures, stock: &Figures) -> Rank {
        let spills = f64::from(f.spills());
        Rank(match self.objective {
            // Rounded, so that a difference in the last bits is a tie.
            Objective::Balanced => vec![-(self.profit(f, stock) * 1e9).round(), spills, f.weighted_sass],
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

    /// Nothing ptxas or cuobjdump reports is worse than stock's (see the
    /// module's comment).
    pub fn admissible(&self, f: &Figures, stock: &Figures) -> bool {
        (f.registers <= stock.registers || f.local() < stock.local())
            && f.spills() <= stock.spills()
            && f.local() <= stock.local()
            && f.occupancy.warps >= stock.occupancy.warps
    }

    /// Whether a kernel built as `f` is worse than stock's build of it.
    pub fn worse_than_stock(&self, f: &Figures, stock: &Figures) -> bool {
        !self.admissible(f, stock) || self.better(stock, f, stock)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nvregalloc::occupancy::gpu;

    fn kernel(registers: u32, weighted_sass: f64) -> Figures {
        let gpu = gpu("sm_90").unwrap();
        Figures {
            registers,
            sass: weighted_sass as u32,
            weighted_sass,
            occupancy: gpu.occupancy(registers, 0, None),
            ..Figures::default()
        }
    }

    #[test]
    fn an_occupancy_step_must_outweigh_the_instructions_it_adds() {
        let gpu = gpu("sm_90").unwrap();
        let judge = Judge { objective: Objective::Balanced, gpu, saturating_warps: 32 };
        let stock = kernel(80, 1000.0); // 24 warps
                                        // 24 -> 32 warps for 10% more weighted instructions: 1.33 / 1.1 pays.
        assert!(judge.better(&kernel(64, 1100.0), &stock, &stock));
        // ... for 40% more it does not.
        assert!(!judge.better(&kernel(64, 1400.0), &stock, &stock));
        // Past saturation a step buys nothing: 32 -> 40 warps loses to fewer instructions.
        let at_32 = kernel(64, 1000.0);
        assert!(!judge.better(&kernel(48, 1001.0), &at_32, &at_32));
        assert!(judge.better(&kernel(64, 990.0), &at_32, &at_32));
        // A tie is no gain: stock stays.
        assert!(!judge.better(&kernel(63, 1000.0), &at_32, &at_32));
        // The occupancy objective takes the step whatever it costs.
        let occupancy = Judge { objective: Objective::Occupancy, ..judge };
        assert!(occupancy.better(&kernel(64, 1400.0), &stock, &stock));
    }

    #[test]
    fn nothing_reported_may_get_worse() {
        let judge =
            Judge { objective: Objective::Balanced, gpu: gpu("sm_90").unwrap(), saturating_warps: 32 };
        let stock = Figures { ldl: 4, ..kernel(41, 1000.0) }; // 40 warps
        assert!(judge.admissible(&kernel(41, 900.0), &stock));
        // More registers for fewer local accesses, at the same occupancy.
        assert!(judge.admissible(&kernel(48, 900.0), &stock));
        assert!(!judge.admissible(&Figures { ldl: 4, ..kernel(48, 900.0) }, &stock));
        assert!(!judge.admissible(&Figures { spill_loads: 4, ..kernel(32, 900.0) }, &stock));
        // Fewer warps, even for fewer local accesses.
        assert!(!judge.admissible(&kernel(72, 900.0), &stock));
    }
}

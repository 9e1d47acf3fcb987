//! The report: per GPU and kernel, stock's figures and the tuned build's,
//! the choice and why; as JSON (`--report`) and as a table (`--table`).

use serde::{Deserialize, Serialize};

use crate::figures::Figures;
use crate::objective::loop_weighted;
use nvregalloc::occupancy::Limiter;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KernelReport {
    pub function: String,
    pub stock: Option<Figures>,
    /// The plugin's default build's.
    #[serde(default)]
    pub default: Option<Figures>,
    /// `None`: inlined everywhere in the tuned build.
    pub tuned: Option<Figures>,
    /// `balanced`'s profit of the tuned build over the default's (1: as
    /// good), whatever the objective: what the tuner gains the user.
    #[serde(default)]
    pub profit_over_default: Option<f64>,
    pub choice: String,
    pub reason: String,
}

/// One GPU's tuning of one source.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GpuReport {
    pub gpu: String,
    pub objective: String,
    /// What an instruction weighs per loop around it: the figures count
    /// instructions by loop depth, and the objective weighs them so.
    pub loop_weight: f64,
    /// Builds this tuning ran (0 when it came from the cache).
    pub tuning_builds: usize,
    /// Seconds the tuning took when it ran.
    pub tuning_seconds: f64,
    pub from_cache: bool,
    /// Whether the candidates were built from the frontend's bitcode (it
    /// made stock's PTX) rather than each from the source.
    #[serde(default)]
    pub candidates_from_bitcode: bool,
    /// Whether the time budget left candidates or cap rounds untried.
    #[serde(default)]
    pub budget_cut: bool,
    pub kernels: Vec<KernelReport>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    pub source: String,
    pub gpus: Vec<GpuReport>,
    /// `--measure`: the timings and the verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured: Option<serde_json::Value>,
}

fn pair<T: PartialEq + std::fmt::Display>(before: T, after: Option<T>) -> String {
    match after {
        Some(after) if after != before => format!("{before}->{after}"),
        Some(_) => before.to_string(),
        None => format!("{before}->inlined"),
    }
}

impl Report {
    /// One line per GPU and function.
    pub fn table(&self) -> String {
        let mut text = format!(
            "{:<7} {:<36} {:>8} {:>16} {:>9} {:>9} {:>14} {:>14}  {:<26} reason\n",
            "gpu",
            "function",
            "regs",
            "warps (limit)",
            "spill B",
            "LDL+STL",
            "loop-w. SASS",
            "default r/w/l",
            "choice"
        );
        for gpu in &self.gpus {
            for k in &gpu.kernels {
                let Some(stock) = &k.stock else { continue };
                let t = k.tuned.as_ref();
                let limit =
                    |f: &Figures| format!("{} ({})", f.occupancy.warps, limiter_name(f.occupancy.limiter));
                let weighted = |f: &Figures| loop_weighted(&f.sass_by_depth, gpu.loop_weight).round() as u64;
                // The default's registers, warps and LDL+STL, to read the
                // tuned build against.
                let default = k.default.as_ref().map_or("-".to_owned(), |d| {
                    format!("{}/{}/{}", d.registers, d.occupancy.warps, d.local())
                });
                text += &format!(
                    "{:<7} {:<36} {:>8} {:>16} {:>9} {:>9} {:>14} {:>14}  {:<26} {}\n",
                    gpu.gpu,
                    truncate(&k.function, 36),
                    pair(stock.registers, t.map(|f| f.registers)),
                    match t {
                        Some(t) if t.occupancy.warps != stock.occupancy.warps =>
                            format!("{}->{}", stock.occupancy.warps, limit(t)),
                        _ => limit(stock),
                    },
                    pair(stock.spills(), t.map(|f| f.spills())),
                    pair(stock.local(), t.map(|f| f.local())),
                    pair(weighted(stock), t.map(weighted)),
                    default,
                    truncate(&k.choice, 26),
                    k.reason
                );
            }
        }
        let gained: usize = self
            .gpus
            .iter()
            .flat_map(|g| &g.kernels)
            .filter(|k| matches!((&k.stock, &k.tuned), (Some(s), Some(t)) if t.occupancy.warps > s.occupancy.warps))
            .count();
        // Kernels on stock's choice where the default builds them otherwise:
        // their reason says why.
        let stock_over_default = self
            .gpus
            .iter()
            .flat_map(|g| &g.kernels)
            .filter(|k| k.choice == "stock" && k.default.is_some() && k.default != k.stock)
            .count();
        let builds: usize = self.gpus.iter().map(|g| g.tuning_builds).sum();
        let seconds: f64 = self.gpus.iter().map(|g| g.tuning_seconds).sum();
        let cut = if self.gpus.iter().any(|g| g.budget_cut) { "; the budget cut the search" } else { "" };
        let how = if self.gpus.iter().all(|g| g.from_cache) {
            " (from the cache)"
        } else if self.gpus.iter().all(|g| g.candidates_from_bitcode) {
            " (candidates from bitcode)"
        } else {
            ""
        };
        text += &format!(
            "{}: {gained} functions gain occupancy over stock; {stock_over_default} take stock's choice over the default's; {builds} tuning builds, {seconds:.1} s{how}{cut}\n",
            self.source
        );
        text
    }
}

/// A warning on stderr: the tuner goes on.
pub fn warn(what: impl std::fmt::Display) {
    eprintln!("nvregalloc-tune: warning: {what}");
}

/// What limits occupancy, in a word.
pub fn limiter_name(limiter: Limiter) -> &'static str {
    match limiter {
        Limiter::Registers => "regs",
        Limiter::SharedMemory => "smem",
        Limiter::Blocks => "blocks",
        Limiter::Warps => "max",
    }
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        s.chars().take(n - 1).chain(['~']).collect()
    }
}

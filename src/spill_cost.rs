//! What it would cost to keep a value in memory instead of a register.
//!
//! The specification's formula: the sum over every (def, use) pair of
//! `1.5^depth(def) * 1.5^depth(use) * latency`, which factors into
//! `(sum of def weights) * (sum of use weights) * latency`. The notes give the
//! loop base 1.5 with low confidence, and latencies of 4 / 10 / 40 / 100
//! cycles for L1 / L2 / "L3" / DRAM chosen by the function's register
//! footprint; a thread's spill footprint never leaves L1 by that rule, so the
//! L1 figure is the default.

use crate::function::Function;

pub const LOOP_BASE: f64 = 1.5;
pub const L1_LATENCY: f64 = 4.0;

pub fn loop_weight(depth: u32) -> f64 {
    LOOP_BASE.powi(depth as i32)
}

/// Spill cost of every vreg.
pub fn spill_costs(f: &Function, latency: f64) -> Vec<f64> {
    let mut def_weight = vec![0.0; f.num_vregs()];
    let mut use_weight = vec![0.0; f.num_vregs()];
    for b in f.block_ids() {
        let w = loop_weight(f.block(b).loop_depth);
        for i in f.block_insts(b) {
            for o in &f.inst(i).operands {
                if o.is_def() {
                    def_weight[o.vreg.index()] += w;
                } else if o.reads() {
                    use_weight[o.vreg.index()] += w;
                }
            }
        }
    }
    def_weight.iter().zip(&use_weight).map(|(d, u)| d * u * latency).collect()
}

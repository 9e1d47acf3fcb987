//! What it would cost to keep a value in memory instead of a register.
//!
//! The specification's formula: the sum over every (def, use) pair of
//! `base^depth(def) * base^depth(use) * latency`, which factors into
//! `(sum of def weights) * (sum of use weights) * latency`. The notes give the
//! loop base 1.5 (with low confidence) and latencies of 4 / 10 / 40 cycles
//! for L1 / L2 / L3, chosen by whether the function's live registers (4 bytes
//! each) fit in a 64 KiB L1 or a 256 KiB L2. One thread's registers always
//! fit in L1, so the estimate is L1 unless an option says otherwise.

use crate::function::Function;

pub const LOOP_BASE: f64 = 1.5;
pub const L1_LATENCY: f64 = 4.0;
pub const L2_LATENCY: f64 = 10.0;
pub const L3_LATENCY: f64 = 40.0;
const L1_BYTES: u64 = 64 * 1024;
const L2_BYTES: u64 = 256 * 1024;

/// The specification's latency tier for `live_registers` registers live at
/// once (32-bit words).
pub fn estimated_latency(live_registers: u64) -> f64 {
    match live_registers * 4 {
        bytes if bytes > L2_BYTES => L3_LATENCY,
        bytes if bytes > L1_BYTES => L2_LATENCY,
        _ => L1_LATENCY,
    }
}

pub fn loop_weight(base: f64, depth: u32) -> f64 {
    base.powi(depth as i32)
}

/// Spill cost of every vreg.
pub fn spill_costs(f: &Function, latency: f64, loop_base: f64) -> Vec<f64> {
    let mut def_weight = vec![0.0; f.num_vregs()];
    let mut use_weight = vec![0.0; f.num_vregs()];
    for b in f.block_ids() {
        let w = loop_weight(loop_base, f.block(b).loop_depth);
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

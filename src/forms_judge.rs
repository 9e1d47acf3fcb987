//! Two forms of one function's IR, judged by their estimated register
//! pressure: the rich form LLVM made and a lean one nvregalloc offers
//! instead, which the shim puts in the rich form's place only where the
//! estimate says the rich form costs an occupancy step.
//!
//! ptxas allocates the registers that run, and it neither merges redundant
//! induction variables nor recomputes values hoisted out of loops: what is
//! live across a kernel's worst point in the PTX stays live in the SASS, and
//! ptxas then schedules the whole kernel up to what that point needs
//! (docs/register-study.md). Two of LLVM's IR passes make such values in
//! the NVPTX pipeline, and each has a judged lean form:
//! - loop strength reduction (the rich form) gives each array a loop walks a
//!   64-bit pointer of its own; the lean form is the function before LSR
//!   (nvregalloc-lsr-judge);
//! - LICM and GVN hoist loop-invariant values out of loops, where they stay
//!   live across the loop; the lean form recomputes them at their uses in
//!   the loop (nvregalloc-recompute-invariants).
//! Elsewhere the rich forms save instructions, so neither is undone
//! wholesale.
//!
//! The shim hands the core the IR of both forms (`IrFunction`: values with
//! their widths, blocks, instructions' definitions and uses). The core
//! estimates each form's peak pressure in 32-bit registers, as ptxas counts
//! them (`peak`), and `judge` keeps the rich form unless the estimate puts
//! it across an occupancy step below the lean one's, so that no instruction
//! is given up where no warp is gained.

use fixedbitset::FixedBitSet;

use crate::occupancy::Gpu;

/// One SSA value of the IR: an instruction's result or an argument.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct IrValue {
    /// Its type's size in bits (a vector's whole size).
    pub bits: u32,
    /// An `i1` or a vector of them: ptxas keeps those in predicate
    /// registers, which do not count against the 32-bit register file.
    pub predicate: bool,
    /// A function argument (defined before the entry block's first
    /// instruction).
    pub argument: bool,
}

/// An instruction: the value it defines, if any, and the values it reads.
/// A PHI defines its value and reads nothing here: what it reads on an edge
/// is read at the end of the predecessor (`IrBlock::exit_uses`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IrInst {
    pub def: Option<u32>,
    pub uses: Vec<u32>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct IrBlock {
    pub insts: Vec<IrInst>,
    pub succs: Vec<u32>,
    /// Values the successors' PHIs read on the edges out of this block.
    pub exit_uses: Vec<u32>,
}

/// A function's IR as the judge sees it; block 0 is the entry.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IrFunction {
    /// A kernel's arguments live in the parameter space, from which ptxas
    /// reads them again where they are used (a parameter read costs no
    /// register across the code between), so they count for nothing.
    pub is_kernel: bool,
    pub values: Vec<IrValue>,
    pub blocks: Vec<IrBlock>,
}

/// Global liveness is a bit per block and value used outside the block that
/// defines it; beyond this many bits the judge declines (keeping the rich
/// form, as stock) rather than spend the memory.
const MAX_LIVENESS_BITS: usize = 1 << 26;

/// 32-bit registers a value takes: none for predicates and a kernel's
/// arguments, else its bits in 32-bit words.
fn registers(function: &IrFunction, value: u32) -> u32 {
    let v = function.values[value as usize];
    if v.predicate || (v.argument && function.is_kernel) {
        0
    } else {
        v.bits.div_ceil(32)
    }
}

/// The most 32-bit registers live at once anywhere in `function`: at each
/// instruction, the values live after it and the one it defines. `None`
/// where a value is out of range, or the liveness would be too large.
pub fn peak(function: &IrFunction) -> Option<u32> {
    let n_values = function.values.len();
    let n_blocks = function.blocks.len();
    let in_range = |v: &u32| (*v as usize) < n_values;
    let mut def_block = vec![0u32; n_values];
    for (b, block) in function.blocks.iter().enumerate() {
        if block.succs.iter().any(|s| *s as usize >= n_blocks) || !block.exit_uses.iter().all(in_range) {
            return None;
        }
        for inst in &block.insts {
            if !inst.uses.iter().all(in_range) || !inst.def.iter().all(in_range) {
                return None;
            }
            if let Some(d) = inst.def {
                def_block[d as usize] = b as u32;
            }
        }
    }
    // Values read outside the block defining them (arguments are defined in
    // block 0) get a dense index for the per-block sets.
    const LOCAL: u32 = u32::MAX;
    let mut global = vec![LOCAL; n_values];
    let mut globals: Vec<u32> = Vec::new();
    let mut mark_global = |v: u32, b: usize, global: &mut Vec<u32>| {
        if def_block[v as usize] as usize != b && global[v as usize] == LOCAL {
            global[v as usize] = globals.len() as u32;
            globals.push(v);
        }
    };
    for (b, block) in function.blocks.iter().enumerate() {
        for v in block.insts.iter().flat_map(|i| &i.uses).chain(&block.exit_uses) {
            mark_global(*v, b, &mut global);
        }
    }
    if globals.len().saturating_mul(n_blocks) > MAX_LIVENESS_BITS {
        return None;
    }
    // Upward-exposed reads and definitions per block, over global values.
    let mut gen = vec![FixedBitSet::with_capacity(globals.len()); n_blocks];
    let mut kill = vec![FixedBitSet::with_capacity(globals.len()); n_blocks];
    for (b, block) in function.blocks.iter().enumerate() {
        for v in &block.exit_uses {
            if global[*v as usize] != LOCAL {
                gen[b].insert(global[*v as usize] as usize);
            }
        }
        for inst in block.insts.iter().rev() {
            if let Some(d) = inst.def.filter(|d| global[*d as usize] != LOCAL) {
                gen[b].set(global[d as usize] as usize, false);
                kill[b].insert(global[d as usize] as usize);
            }
            for v in inst.uses.iter().filter(|v| global[**v as usize] != LOCAL) {
                gen[b].insert(global[*v as usize] as usize);
            }
        }
    }
    for (v, g) in global.iter().enumerate() {
        if *g != LOCAL && function.values[v].argument {
            kill[0].insert(*g as usize);
        }
    }
    let mut live_in = gen.clone();
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..n_blocks).rev() {
            let mut set = FixedBitSet::with_capacity(globals.len());
            for s in &function.blocks[b].succs {
                set.union_with(&live_in[*s as usize]);
            }
            set.difference_with(&kill[b]);
            set.union_with(&gen[b]);
            if set != live_in[b] {
                live_in[b] = set;
                changed = true;
            }
        }
    }
    // The walk: backward through each block from what its successors need.
    let mut live = FixedBitSet::with_capacity(n_values);
    let mut best = 0u32;
    for block in &function.blocks {
        live.clear();
        let mut now = 0u32;
        let add = |v: u32, live: &mut FixedBitSet, now: &mut u32| {
            if !live.put(v as usize) {
                *now += registers(function, v);
            }
        };
        for s in &block.succs {
            for g in live_in[*s as usize].ones() {
                add(globals[g], &mut live, &mut now);
            }
        }
        for v in &block.exit_uses {
            add(*v, &mut live, &mut now);
        }
        best = best.max(now);
        for inst in block.insts.iter().rev() {
            if let Some(d) = inst.def {
                if live.contains(d as usize) {
                    live.set(d as usize, false);
                    now -= registers(function, d);
                } else {
                    // Defined and never read: it still takes a register where
                    // it is written.
                    best = best.max(now + registers(function, d));
                }
            }
            for v in &inst.uses {
                add(*v, &mut live, &mut now);
            }
            best = best.max(now);
        }
    }
    Some(best)
}

/// Which form of a function the judge keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// LLVM's form stays: it costs no occupancy step by the estimate.
    Rich,
    /// The lean form takes its place: LLVM's, by the estimate, runs fewer
    /// warps.
    Lean,
}

/// The judgement on one function: each form's estimated peak (in 32-bit
/// registers, `slack` added for what ptxas needs beyond it) turned into
/// register-limited warps on `gpu`. The lean form is taken only where the
/// rich one runs fewer warps and its estimate is `min_growth` percent over
/// the lean one's: the estimate counts IR values, not ptxas's registers, and
/// on HeCBench a smaller rise foretold a step ptxas did not take about as
/// often as one it took (docs/register-study.md). With both peaks (lean,
/// rich); `None` where a form cannot be measured, and the rich form stays,
/// as stock.
pub fn judge(
    lean: &IrFunction,
    rich: &IrFunction,
    gpu: &Gpu,
    slack: u32,
    min_growth: u32,
) -> Option<(Form, u32, u32)> {
    let (lean_peak, rich_peak) = (peak(lean)?, peak(rich)?);
    let warps = |peak: u32| gpu.register_limited_warps((peak + slack).min(gpu.max_registers_per_thread));
    let grew = u64::from(rich_peak) * 100 >= u64::from(lean_peak) * (100 + u64::from(min_growth));
    let form = if grew && warps(rich_peak) < warps(lean_peak) { Form::Lean } else { Form::Rich };
    Some((form, lean_peak, rich_peak))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::occupancy::gpu_or_sm90;

    fn value(bits: u32) -> IrValue {
        IrValue { bits, ..IrValue::default() }
    }
    fn inst(def: Option<u32>, uses: &[u32]) -> IrInst {
        IrInst { def, uses: uses.to_vec() }
    }

    /// entry: v0 = ..., v1 = ... ; loop: v2 = phi [v1, entry], [v3, loop];
    /// v3 = v2 + v0 ; exit: use v3, all 64-bit; `extra` more 64-bit values
    /// carried around the loop (LSR's pointers).
    fn loop_function(extra: u32) -> IrFunction {
        let mut values = vec![value(64), value(64), value(64), value(64)];
        let mut entry = IrBlock {
            insts: vec![inst(Some(0), &[]), inst(Some(1), &[])],
            succs: vec![1],
            exit_uses: vec![1],
        };
        let mut body = IrBlock {
            insts: vec![inst(Some(2), &[]), inst(Some(3), &[2, 0])],
            succs: vec![1, 2],
            exit_uses: vec![3],
        };
        for _ in 0..extra {
            let init = values.len() as u32;
            values.extend([value(64), value(64), value(64)]);
            entry.insts.push(inst(Some(init), &[]));
            entry.exit_uses.push(init);
            body.insts.insert(0, inst(Some(init + 1), &[]));
            body.insts.push(inst(Some(init + 2), &[init + 1]));
            body.exit_uses.push(init + 2);
        }
        let exit = IrBlock { insts: vec![inst(None, &[3])], succs: vec![], exit_uses: vec![] };
        IrFunction { is_kernel: false, values, blocks: vec![entry, body, exit] }
    }

    #[test]
    fn peak_counts_loop_carried_values_in_32_bit_registers() {
        // In the loop: v0 (2) and the PHI v2 (2), whose register v3 takes.
        assert_eq!(peak(&loop_function(0)), Some(4));
        // A carried pointer adds its PHI or its increment (2).
        assert_eq!(peak(&loop_function(1)), Some(6));
    }

    #[test]
    fn predicates_and_kernel_arguments_take_no_register() {
        let mut f = loop_function(0);
        f.values[0] = IrValue { bits: 64, argument: true, predicate: false };
        f.blocks[0].insts.remove(0);
        assert_eq!(peak(&f), Some(4));
        f.is_kernel = true;
        assert_eq!(peak(&f), Some(2));
        f.values[0] = IrValue { bits: 1, predicate: true, argument: false };
        f.is_kernel = false;
        assert_eq!(peak(&f), Some(2));
    }

    #[test]
    fn out_of_range_values_are_unmeasured() {
        let mut f = loop_function(0);
        f.blocks[2].insts[0].uses.push(99);
        assert_eq!(peak(&f), None);
        let gpu = gpu_or_sm90("sm_90");
        assert_eq!(judge(&f, &loop_function(0), gpu, 0, 0), None);
    }

    #[test]
    fn lean_only_across_an_occupancy_step() {
        let gpu = gpu_or_sm90("sm_90");
        // 4 and 6 registers: both at the SM's full warps.
        assert_eq!(judge(&loop_function(0), &loop_function(1), gpu, 0, 0).unwrap().0, Form::Rich);
        // 28 + 4 against 28 + 6: 32 is full occupancy, 34 is not; 6 is 50%
        // over 4, not 51%.
        assert_eq!(judge(&loop_function(0), &loop_function(1), gpu, 28, 50), Some((Form::Lean, 4, 6)));
        assert_eq!(judge(&loop_function(0), &loop_function(1), gpu, 28, 51).unwrap().0, Form::Rich);
        // The rich form lower: kept whatever the steps.
        assert_eq!(judge(&loop_function(1), &loop_function(0), gpu, 28, 0).unwrap().0, Form::Rich);
    }
}

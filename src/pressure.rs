//! nvregalloc-pressure-relief: fewer registers where they cost warps, by recomputing
//! cheap values next to their uses instead of keeping them in a register
//! (rematerialization driven by register pressure rather than by a spill).
//!
//! ptxas allocates the registers that run, but it cannot make a value's live
//! range shorter than the PTX makes it: a loop-invariant address, a widened
//! index or a special register computed once before a loop and read inside it
//! holds a register through the whole loop. Where such values make the
//! pressure cross an occupancy step, recomputing them in the blocks that read
//! them gives ptxas the shorter ranges.
//!
//! The model counts what ptxas counts per thread: a 16- or 32-bit value one
//! register, a 64-bit one two, a 128-bit one four, predicates none (they have
//! their own file). The pressure at a point is the sum over values live there
//! (and values defined there); the function's is the maximum. ptxas needs
//! some registers beyond that (it schedules for latency first); the pass adds
//! `Options::pressure_slack` before turning registers into warps.
//!
//! A candidate is a value with one def, computed by a pure instruction whose
//! NVPTX opcode is cheap (`is_cheap_alu_opcode`, which sets
//! `InstFlags::CHEAP`: integer arithmetic, widening, `mul.wide`, constants)
//! or a move of an immediate, whose
//! inputs each have one def too. In every block that reads it, one clone of
//! its def goes right before the first reading instruction, and that block's
//! reads take the clone; the original def is deleted. A block qualifies only
//! where the clone computes the value the original read: the def's inputs are
//! not redefined since the def on any path (a forward "available" dataflow),
//! nor between the block's first and last read, and are live before the
//! first read anyway (so no input's range grows). A value feeding a chosen
//! one, or fed by one, is not chosen too, so no clone reads a clone.
//!
//! Greedily, while the pressure can drop: take the candidate whose removal
//! lowers the most points at the current maximum (fewest executed clones on
//! ties) and subtract it where it no longer lives. Then keep only as many
//! choices as reach the best occupancy step the whole sequence reaches, and
//! none if that step is no better than the function's own: where no step is
//! crossed the code, and its instruction-level parallelism, stay as they are.
//! Every clone and substitution is proven by the checker like spill code.

use fixedbitset::FixedBitSet;
use rustc_hash::FxHashMap;

use crate::function::{Block, Function, Inst, InstFlags, InstKind, OperandFlags, VReg};
use crate::liveness::{walk_block_backward, LiveSet, Liveness};
use crate::occupancy;
use crate::options::Options;
use crate::rewrite::{Insert, PassOutcome, PhaseTimes, Place, Rewrite, SpillOp, Stat, UseSubstitution};

/// 32-bit registers ptxas gives a value of the class named `name`.
/// Whether an NVPTX opcode (LLVM's name for it, as `TargetInstrInfo` gives
/// it) becomes one or two plain ALU instructions in SASS and reads only
/// registers and immediates: what the pass may recompute next to a use.
/// Integer arithmetic and logic, conversions between integer widths,
/// `mul.wide`, 32-bit multiply-add, immediates. Not special registers (an
/// S2R in SASS: long, variable latency) nor symbol addresses: recomputing
/// them in loops made ptxas use more registers on HeCBench (match 48 -> 55,
/// ssm 32 -> 40).
pub fn is_cheap_alu_opcode(name: &str) -> bool {
    // Each pattern: one of each group's spellings, in order.
    const CHEAP: &[&[&[&str]]] = &[
        &[&["ADD", "SUB"], &["16", "32"], &["rr", "ri", "ir"]],
        &[&["SHL", "SRL", "SRA"], &["16", "32"], &["_rr", "_ri"]],
        &[&["AND_b", "OR_b", "XOR_b"], &["16", "32"], &["rr", "ri"]],
        &[&["NOT_b", "NEG_S"], &["16", "32"]],
        &[&["MUL_WIDE"], &["s", "u"], &["16", "32"], &["_rr", "_ri"]],
        &[&["MULT32r"], &["r", "i"]],
        &[&["MAD_LO_S32r"], &["r", "i"], &["r", "i"]],
        &[&["CVT_"], &["s", "u"], &["8", "16", "32", "64"], &["_"], &["s", "u"], &["8", "16", "32"]],
        &[&["CVT_INREG_s"], &["16", "32"], &["_s"], &["8", "16"]],
        &[&["MOV_"], &["B", "F"], &["16", "32", "64"], &["_i"]],
    ];
    fn spelled(rest: &str, groups: &[&[&str]]) -> bool {
        match groups.split_first() {
            None => rest.is_empty(),
            Some((first, later)) => {
                first.iter().any(|s| rest.strip_prefix(s).is_some_and(|r| spelled(r, later)))
            }
        }
    }
    CHEAP.iter().any(|groups| spelled(name, groups))
}

pub fn units(name: &str) -> u32 {
    match name {
        "B1" => 0,
        "B64" => 2,
        "B128" => 4,
        _ => 1,
    }
}

/// Clones one value may get: past this many reading blocks, recomputing it
/// costs more instructions than a register is likely worth.
const MAX_CLONES_PER_VALUE: usize = 16;

/// Values the pass chooses per function, at most: each choice is a pass over
/// the candidates, and a function needing more is past helping this way.
const MAX_CHOICES: usize = 256;

/// Program points, numbered per block: the block's entry, then after each of
/// its instructions. Block `b` holds points `first_inst + b` to
/// `first_inst + b + num_insts`.
struct Points;

impl Points {
    fn entry(f: &Function, b: Block) -> usize {
        f.block(b).first_inst as usize + b.index()
    }
    fn after(b: Block, i: Inst) -> usize {
        i.index() + b.index() + 1
    }
    fn before(b: Block, i: Inst) -> usize {
        i.index() + b.index()
    }
    fn count(f: &Function) -> usize {
        f.insts.len() + f.blocks.len()
    }
}

/// A value the pass may recompute next to its uses.
struct Candidate {
    value: VReg,
    def: Inst,
    inputs: Vec<VReg>,
    /// Per block that reads the value: where its clone goes (the first reading
    /// instruction, or the block's first terminator if that comes earlier) and
    /// the last reading instruction.
    reads: Vec<(Block, Inst, Inst)>,
    units: u32,
    /// Block executions of the clones, less the def's.
    cost: f64,
    /// Points where the value would no longer be live.
    relieved: FixedBitSet,
}

/// The modelled pressure of `f`: at each point, and its maximum.
pub fn pressure(f: &Function, liveness: &Liveness) -> (Vec<u32>, u32) {
    let unit_of: Vec<u32> = f.class_names.iter().map(|n| units(n)).collect();
    let mut at = vec![0u32; Points::count(f)];
    let mut live = LiveSet::new(f);
    let count = |live: &LiveSet| -> u32 {
        unit_of.iter().enumerate().map(|(c, &u)| u * live.count(crate::function::RegClass::new(c))).sum()
    };
    for b in f.block_ids() {
        walk_block_backward(f, liveness, b, &mut live, |i, live_after| {
            let dead_defs: u32 = f
                .defs(i)
                .filter(|&d| !live_after.contains(d))
                .filter_map(|d| f.class_of(d))
                .map(|c| unit_of[c.index()])
                .sum();
            at[Points::after(b, i)] = count(live_after) + dead_defs;
        });
        at[Points::entry(f, b)] = count(&live);
    }
    let max = at.iter().copied().max().unwrap_or(0);
    (at, max)
}

pub fn relieve(f: &Function, options: &Options) -> PassOutcome {
    let mut phases = PhaseTimes::default();
    let liveness = phases.time("liveness", || Liveness::compute(f));
    let (mut at, before) = phases.time("pressure", || pressure(f, &liveness));
    let mut outcome = PassOutcome { rewrite: Rewrite::identity(f.num_vregs()), ..Default::default() };
    let gpu = occupancy::gpu_or_sm90(&options.target_cpu);
    let warps = |p: u32| gpu.register_limited_warps(p + options.pressure_slack);
    let full = gpu.max_warps_per_sm;
    let wanted = options.pressure_target.is_some() || warps(before) < full;
    let candidates = if wanted { phases.time("candidates", || candidates(f, &liveness)) } else { Vec::new() };

    // Greedy choices, and the modelled pressure after each.
    let mut chosen: Vec<usize> = Vec::new();
    let mut after_each: Vec<u32> = Vec::new();
    let mut blocked = vec![false; candidates.len()];
    let index_of: FxHashMap<VReg, usize> = candidates.iter().enumerate().map(|(k, c)| (c.value, k)).collect();
    phases.time("choose", || {
        let floor = options.pressure_target.unwrap_or(0);
        while chosen.len() < MAX_CHOICES {
            let max = at.iter().copied().max().unwrap_or(0);
            if max <= floor {
                break;
            }
            let mut peaks = FixedBitSet::with_capacity(at.len());
            peaks.extend((0..at.len()).filter(|&p| at[p] == max));
            let best = candidates
                .iter()
                .enumerate()
                .filter(|(k, _)| !blocked[*k])
                .map(|(k, c)| (k, c.relieved.intersection_count(&peaks)))
                .filter(|&(_, n)| n > 0)
                .max_by(|(a, n), (b, m)| n.cmp(m).then(candidates[*b].cost.total_cmp(&candidates[*a].cost)));
            let Some((k, _)) = best else { break };
            let c = &candidates[k];
            for p in c.relieved.ones() {
                at[p] -= c.units;
            }
            blocked[k] = true;
            // No clone may read a clone: what feeds this value, and what it
            // feeds, stay as they are.
            for u in &c.inputs {
                if let Some(&j) = index_of.get(u) {
                    blocked[j] = true;
                }
            }
            for (j, other) in candidates.iter().enumerate() {
                if other.inputs.contains(&c.value) {
                    blocked[j] = true;
                }
            }
            chosen.push(k);
            after_each.push(at.iter().copied().max().unwrap_or(0));
        }
    });

    let lowest = after_each.iter().copied().min().unwrap_or(before);
    let keep = match options.pressure_target {
        Some(target) => after_each.iter().position(|&p| p <= target).map_or(chosen.len(), |n| n + 1),
        None if warps(lowest) > warps(before) => {
            let best = warps(lowest);
            after_each.iter().position(|&p| warps(p) == best).map_or(0, |n| n + 1)
        }
        None => 0,
    };
    chosen.truncate(keep);
    let after = if keep == 0 { before } else { after_each[keep - 1] };
    let clones: usize = chosen.iter().map(|&k| candidates[k].reads.len()).sum();
    outcome.rewrite = rewrite(f, chosen.iter().map(|&k| &candidates[k]));
    outcome.stats = vec![
        Stat { name: c"pressure-before", value: u64::from(before) },
        Stat { name: c"pressure-after", value: u64::from(after) },
        Stat { name: c"pressure-candidates", value: candidates.len() as u64 },
        Stat { name: c"values-recomputed", value: chosen.len() as u64 },
        Stat { name: c"recomputations", value: clones as u64 },
    ];
    if keep > 0 {
        outcome.note = Some(format!(
            "modelled registers {} -> {}, warps {} -> {} (ptxas assumed to need {} more): {} values recomputed in {} places",
            before,
            after,
            warps(before),
            warps(after),
            options.pressure_slack,
            chosen.len(),
            clones
        ));
    }
    outcome.phases = phases;
    outcome
}

/// Values that may be recomputed next to their uses, each with the points
/// that doing so relieves.
fn candidates(f: &Function, liveness: &Liveness) -> Vec<Candidate> {
    let defs = f.def_insts();
    let single_def = |v: VReg| defs[v.index()].len() == 1;
    let mut found: Vec<Candidate> = Vec::new();
    for (v, def_list) in defs.iter().enumerate() {
        let value = VReg::new(v);
        let &[d] = def_list.as_slice() else { continue };
        let data = f.inst(d);
        let Some(class) = f.class_of(value) else { continue };
        let cheap =
            matches!(data.kind, InstKind::Other | InstKind::MoveImm) && data.flags.contains(InstFlags::CHEAP);
        let pure = !data.flags.intersects(
            InstFlags::SIDE_EFFECTS
                | InstFlags::MAY_LOAD
                | InstFlags::MAY_STORE
                | InstFlags::PHYS_REG
                | InstFlags::FRAME_ADDRESS,
        );
        let [out, ins @ ..] = data.operands.as_slice() else { continue };
        let plain_def = out.vreg == value && out.flags == OperandFlags::DEF && out.tied_to.is_none();
        let plain_inputs = ins
            .iter()
            .all(|o| o.flags.is_empty() && o.tied_to.is_none() && o.vreg != value && single_def(o.vreg));
        if !(cheap && pure && plain_def && plain_inputs) || units(f.class_name(class)) == 0 {
            continue;
        }
        let mut inputs: Vec<VReg> = ins.iter().map(|o| o.vreg).collect();
        inputs.sort_unstable();
        inputs.dedup();
        found.push(Candidate {
            value,
            def: d,
            inputs,
            reads: Vec::new(),
            units: units(f.class_name(class)),
            cost: 0.0,
            relieved: FixedBitSet::with_capacity(Points::count(f)),
        });
    }
    if found.is_empty() {
        return found;
    }
    let index_of: FxHashMap<VReg, usize> = found.iter().enumerate().map(|(k, c)| (c.value, k)).collect();
    let mut usable = vec![true; found.len()];

    // Reading instructions, per block.
    let block_of = f.block_of_each_inst();
    for b in f.block_ids() {
        for i in f.block_insts(b) {
            let data = f.inst(i);
            for o in data.operands.iter().filter(|o| !o.is_def()) {
                let Some(&k) = index_of.get(&o.vreg) else { continue };
                // A tied or undef read is not a plain read of the value.
                if data.kind == InstKind::Phi || o.tied_to.is_some() || !o.reads() {
                    usable[k] = false;
                    continue;
                }
                let reads = &mut found[k].reads;
                match reads.last_mut() {
                    Some((rb, _, last)) if *rb == b => *last = i,
                    // A read by a later terminator (a jump table's index)
                    // is recomputed before the first: nothing may sit
                    // between terminators.
                    _ => reads.push((b, i.min(f.first_terminator(b)), i)),
                }
            }
        }
    }
    for (k, c) in found.iter().enumerate() {
        if c.reads.is_empty() || c.reads.len() > MAX_CLONES_PER_VALUE {
            usable[k] = false;
        }
        // The value must be the same at every read of one block: no def of
        // it or of an input between the first read and the last.
        let redefined_between = |b: Block, first: Inst, last: Inst| {
            std::iter::once(c.def)
                .chain(c.inputs.iter().map(|u| defs[u.index()][0]))
                .any(|x| block_of[x.index()] == b && first < x && x < last)
        };
        if c.reads.iter().any(|&(b, first, last)| redefined_between(b, first, last)) {
            usable[k] = false;
        }
    }
    available_at_first_reads(f, &found, &defs, &block_of, &mut usable);

    // Points where each value lives, less those its clones will cover; and
    // inputs live before each first read.
    let mut live = LiveSet::new(f);
    let mut first_reads: FxHashMap<Inst, Vec<usize>> = FxHashMap::default();
    for (k, c) in found.iter().enumerate() {
        for &(_, first, _) in &c.reads {
            first_reads.entry(first).or_default().push(k);
        }
    }
    for b in f.block_ids() {
        walk_block_backward(f, liveness, b, &mut live, |i, live_after| {
            for &k in first_reads.get(&i).map_or(&[][..], |v| v.as_slice()) {
                let inputs_live = found[k].inputs.iter().all(|&u| {
                    f.uses(i).any(|r| r == u) || (live_after.contains(u) && f.defs(i).all(|d| d != u))
                });
                if !inputs_live {
                    usable[k] = false;
                }
            }
            for d in f.defs(i) {
                if let Some(&k) = index_of.get(&d) {
                    found[k].relieved.insert(Points::after(b, i));
                }
            }
            for (c, _) in f.class_names.iter().enumerate().filter(|(_, n)| units(n) > 0) {
                for v in live_after.iter_class(crate::function::RegClass::new(c)) {
                    if let Some(&k) = index_of.get(&v) {
                        found[k].relieved.insert(Points::after(b, i));
                    }
                }
            }
        });
        for (c, _) in f.class_names.iter().enumerate().filter(|(_, n)| units(n) > 0) {
            for v in live.iter_class(crate::function::RegClass::new(c)) {
                if let Some(&k) = index_of.get(&v) {
                    found[k].relieved.insert(Points::entry(f, b));
                }
            }
        }
    }
    for c in &mut found {
        for &(b, first, last) in &c.reads {
            // The clone is live from just before the first read to the last.
            c.relieved.set(Points::before(b, first), false);
            for i in first.0..last.0 {
                c.relieved.set(Points::after(b, Inst(i)), false);
            }
        }
        c.cost = c.reads.iter().map(|&(b, _, _)| f.block(b).frequency).sum::<f64>()
            - f.block(block_of[c.def.index()]).frequency;
    }
    found.into_iter().zip(usable).filter(|(_, ok)| *ok).map(|(c, _)| c).collect()
}

/// Marks unusable the candidates whose expression is not available at the
/// first read of some block: on some path there, the def has not run since
/// an input was last written (a forward must-dataflow, one bit per
/// candidate: the def makes it, a def of an input kills it).
fn available_at_first_reads(
    f: &Function,
    found: &[Candidate],
    defs: &[Vec<Inst>],
    block_of: &[Block],
    usable: &mut [bool],
) {
    // (instruction, candidate, makes?) in instruction order.
    let mut events: Vec<(Inst, usize, bool)> = Vec::new();
    for (k, c) in found.iter().enumerate() {
        events.push((c.def, k, true));
        for u in &c.inputs {
            events.push((defs[u.index()][0], k, false));
        }
    }
    events.sort_unstable_by_key(|&(i, k, makes)| (i, makes, k));
    let mut checks: Vec<(Inst, usize)> = found
        .iter()
        .enumerate()
        .flat_map(|(k, c)| c.reads.iter().map(move |&(_, first, _)| (first, k)))
        .collect();
    checks.sort_unstable();

    let n = found.len();
    let num_blocks = f.blocks.len();
    let mut out: Vec<FixedBitSet> = (0..num_blocks)
        .map(|_| {
            let mut all = FixedBitSet::with_capacity(n);
            all.insert_range(..);
            all
        })
        .collect();
    let block_events = |b: Block| {
        let lo = events.partition_point(|e| block_of[e.0.index()] < b);
        let hi = events.partition_point(|e| block_of[e.0.index()] <= b);
        &events[lo..hi]
    };
    let entry_state = |b: Block, out: &[FixedBitSet]| {
        let mut state = FixedBitSet::with_capacity(n);
        if b.index() != 0 && !f.block(b).preds.is_empty() {
            state.insert_range(..);
            for p in &f.block(b).preds {
                state.intersect_with(&out[p.index()]);
            }
        }
        state
    };
    let mut changed = true;
    while changed {
        changed = false;
        for b in f.block_ids() {
            let mut state = entry_state(b, &out);
            for &(_, k, makes) in block_events(b) {
                state.set(k, makes);
            }
            if state != out[b.index()] {
                out[b.index()] = state;
                changed = true;
            }
        }
    }
    for b in f.block_ids() {
        let mut state = entry_state(b, &out);
        let events = block_events(b);
        let mut e = 0;
        let lo = checks.partition_point(|c| block_of[c.0.index()] < b);
        for &(at, k) in checks[lo..].iter().take_while(|c| block_of[c.0.index()] == b) {
            // Events of earlier instructions apply; an instruction's own
            // events happen after it reads.
            while e < events.len() && events[e].0 < at {
                state.set(events[e].1, events[e].2);
                e += 1;
            }
            if !state.contains(k) {
                usable[k] = false;
            }
        }
    }
}

/// The edits for recomputing `chosen` values next to their reads.
fn rewrite<'a>(f: &Function, chosen: impl Iterator<Item = &'a Candidate>) -> Rewrite {
    let mut rewrite = Rewrite::identity(f.num_vregs());
    for c in chosen {
        let class = f.class_of(c.value).expect("candidates have a class");
        for &(_, first, last) in &c.reads {
            let clone = VReg::new(f.num_vregs() + rewrite.new_vregs.len());
            rewrite.new_vregs.push(class);
            rewrite.rename.push(clone);
            rewrite.inserts.push(Insert {
                place: Place::Before(first),
                op: SpillOp::Remat { source: c.def, dst: clone },
            });
            for i in first.0..=last.0 {
                for (k, o) in f.inst(Inst(i)).operands.iter().enumerate() {
                    if !o.is_def() && o.vreg == c.value {
                        rewrite.substitutions.push(UseSubstitution {
                            inst: Inst(i),
                            operand: k as u32,
                            vreg: clone,
                        });
                    }
                }
            }
        }
        rewrite.deleted.push(c.def);
    }
    rewrite.inserts.sort_by_key(|x| x.place);
    rewrite.substitutions.sort_unstable();
    rewrite.deleted.sort_unstable();
    rewrite
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::function::{FunctionBuilder, InstData, Operand, RegClass};
    use crate::options::PressureMode;

    fn cheap(b: &mut FunctionBuilder, def: VReg, uses: &[VReg]) -> Inst {
        let operands =
            std::iter::once(Operand::def(def)).chain(uses.iter().map(|&u| Operand::use_of(u))).collect();
        b.inst_with(InstData { kind: InstKind::Other, flags: InstFlags::CHEAP, opcode: 7, operands })
    }

    fn store(b: &mut FunctionBuilder, uses: &[VReg]) -> Inst {
        let operands = uses.iter().map(|&u| Operand::use_of(u)).collect();
        b.inst_with(InstData { kind: InstKind::Other, flags: InstFlags::MAY_STORE, opcode: 9, operands })
    }

    /// bb0: u = param; v = cheap u (64-bit); [u = param again]
    /// bb1 (loop): w = load; x = load; store w, x, u; store v; branch back
    /// bb2: return
    fn invariant_in_loop(redefine_input: bool) -> (Function, Inst) {
        let mut b = FunctionBuilder::new("loop", &["B32", "B64"]);
        let (u, v) = (b.vreg(RegClass(0)), b.vreg(RegClass(1)));
        let b0 = b.block(0);
        b.inst(InstKind::Other, &[u], &[]);
        let def = cheap(&mut b, v, &[u]);
        if redefine_input {
            b.inst(InstKind::Other, &[u], &[]);
        }
        let b1 = b.block(1);
        let (w, x) = (b.vreg(RegClass(0)), b.vreg(RegClass(0)));
        b.inst(InstKind::Other, &[w], &[]);
        b.inst(InstKind::Other, &[x], &[]);
        store(&mut b, &[w, x, u]);
        store(&mut b, &[v]);
        b.inst(InstKind::Terminator, &[], &[]);
        let b2 = b.block(0);
        b.inst(InstKind::Terminator, &[], &[]);
        b.edge(b0, b1);
        b.edge(b1, b1);
        b.edge(b1, b2);
        (b.finish(), def)
    }

    fn forced() -> Options {
        Options { pressure_mode: PressureMode::Relieve, pressure_target: Some(1), ..Options::default() }
    }

    #[test]
    fn registers_are_counted_as_ptxas_counts_them() {
        assert_eq!([units("B1"), units("B16"), units("B32"), units("B64"), units("B128")], [0, 1, 1, 2, 4]);
    }

    #[test]
    fn cheap_opcodes_are_plain_integer_alu_instructions() {
        for cheap in [
            "ADD32rr",
            "SUB16ir",
            "SHL32_ri",
            "XOR_b32rr",
            "NOT_b16",
            "NEG_S32",
            "MUL_WIDEu32_rr",
            "MULT32ri",
            "MAD_LO_S32rir",
            "CVT_s64_s32",
            "CVT_u8_u16",
            "CVT_INREG_s32_s8",
            "MOV_B64_i",
        ] {
            assert!(is_cheap_alu_opcode(cheap), "{cheap}");
        }
        for dear in [
            "ADD64rr",
            "ADD32rrr",
            "FADD32rr",
            "CVT_f32_s32",
            "CVT_s32_s64",
            "MOV_SPECIAL",
            "MOV_B32_r",
            "LD_i32",
            "MAD_LO_S64rrr",
            "ADD32r",
            "",
        ] {
            assert!(!is_cheap_alu_opcode(dear), "{dear}");
        }
    }

    #[test]
    fn a_cheap_value_read_in_a_loop_is_recomputed_there() {
        let (f, def) = invariant_in_loop(false);
        assert_eq!(pressure(&f, &Liveness::compute(&f)).1, 5);
        let outcome = relieve(&f, &forced());
        let rewrite = &outcome.rewrite;
        assert_eq!(rewrite.deleted, vec![def]);
        let read = Inst(f.block(Block(1)).first_inst + 3);
        assert_eq!(rewrite.inserts.len(), 1);
        assert_eq!(rewrite.inserts[0].place, Place::Before(read));
        assert_eq!(rewrite.substitutions.len(), 1);
        assert_eq!(outcome.stat("pressure-after"), Some(3));
        let (after, _) = rewrite.apply(&f);
        assert_eq!(pressure(&after, &Liveness::compute(&after)).1, 3);
        assert_eq!(crate::checker::check(&f, rewrite), Ok(()));
    }

    #[test]
    fn an_input_written_after_the_def_keeps_the_value() {
        let (f, _) = invariant_in_loop(true);
        assert!(relieve(&f, &forced()).rewrite.is_identity());
    }

    #[test]
    fn nothing_changes_where_no_occupancy_step_is_crossed() {
        let (f, _) = invariant_in_loop(false);
        let outcome = relieve(&f, &Options { pressure_mode: PressureMode::Relieve, ..Options::default() });
        assert!(outcome.rewrite.is_identity());
        assert_eq!(outcome.stat("values-recomputed"), Some(0));
    }
}

//! Conservative copy coalescing as CICC's NVPTX coalescer does it: copy
//! candidates come off a min-heap by register number (ties: heavier first);
//! a candidate whose registers interfere, or whose merge fails the
//! conservative test, waits in a second heap; when the first heap runs dry the
//! two swap, until a whole round merges nothing.
//!
//! The conservative test (Briggs with CICC's factor): merge `u` and `v` only if
//! fewer than K neighbours `w` of the merged node have `degree(w) * factor >= K`.
//! With K = 15 and factor 0.8 a neighbour is high-degree from degree 19 up.
//!
//! In `replace-stock` mode this pass stands in for LLVM's RegisterCoalescer,
//! which joins every copy whose live ranges do not conflict; there the
//! conservative test is off, or the output would be worse than stock's (the
//! conservative test exists to protect a K-register budget that rename mode
//! does not have).
//!
//! A copy that must stay because its registers interfere, and whose source is
//! a constant computed by one rematerializable instruction, is replaced by a
//! clone of that instruction (a move-immediate instead of a register move);
//! the constant's own instruction goes once nothing reads it any more.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::ffi::CStr;

use crate::function::{Block, Function, Inst, InstFlags, InstKind, VReg};
use crate::interference::{copies_of_held_values, stand_ins, ImplicitDefs, InterferenceGraph, StandIns};
use crate::liveness::{walk_block_backward, LiveSet, Liveness};
use crate::options::{CoalesceMode, Options};
use crate::rewrite::{KeptCopy, Method, PassOutcome, PhaseTimes, Remat, Rewrite, Stat};
use crate::union_find::VRegSets;

/// Why a copy survived coalescing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeepReason {
    Interference,
    RegisterClass,
    Conservative,
    FrameAddress,
    CopyLimit,
    CoalesceLimit,
}

impl KeepReason {
    pub fn describe(self) -> &'static CStr {
        match self {
            Self::Interference => c"its registers interfere",
            Self::RegisterClass => c"its registers differ in class or operand form",
            Self::Conservative => c"the merge fails the conservative test",
            Self::FrameAddress => c"a frame address keeps its register to itself",
            Self::CopyLimit => c"the copy limit was reached",
            Self::CoalesceLimit => c"the coalesce limit was reached",
        }
    }
}

/// How much coalescing a vreg matters: instructions touching it, plus its
/// loop-weighted spill weight, plus its reads (the specification's weight).
pub fn vreg_weights(f: &Function) -> Vec<f64> {
    let mut weights = vec![0.0; f.num_vregs()];
    for b in f.block_ids() {
        let loop_weight = crate::spill_cost::loop_weight(crate::spill_cost::LOOP_BASE, f.block(b).loop_depth);
        for i in f.block_insts(b) {
            for o in &f.inst(i).operands {
                weights[o.vreg.index()] += 1.0 + loop_weight + if o.reads() { 1.0 } else { 0.0 };
            }
        }
    }
    weights
}

/// Where a copy comes in the order candidates are tried, smaller first
/// (then heavier first, then program order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Turn {
    /// CICC's: by destination register number.
    Register(VReg),
    /// By the block's place in [`blocks_in_stock_order`]; every copy at 0 is
    /// plain program order.
    Block(u32),
}

#[derive(Clone, Copy, Debug)]
struct Candidate {
    /// Min-heap key.
    turn: Turn,
    weight: f64,
    inst: Inst,
    dst: VReg,
    src: VReg,
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Candidate {}
impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Candidate {
    /// Smaller comes first: earlier turn, then higher weight, then program
    /// order.
    fn cmp(&self, other: &Self) -> Ordering {
        self.turn
            .cmp(&other.turn)
            .then_with(|| other.weight.total_cmp(&self.weight))
            .then_with(|| self.inst.cmp(&other.inst))
    }
}

type CandidateHeap = BinaryHeap<Reverse<Candidate>>;

/// True if `u` and `v` may merge: fewer than K neighbours of the merged node
/// are high-degree.
pub fn conservative_test(graph: &InterferenceGraph, u: VReg, v: VReg, options: &Options) -> bool {
    let k = options.k as usize;
    let mut high = 0;
    let union = graph.neighbors(u).chain(graph.neighbors(v).filter(|&w| !graph.interferes(u, w)));
    for w in union {
        if options.is_high_degree(graph.degree(w)) {
            high += 1;
            if high >= k {
                return false;
            }
        }
    }
    true
}

pub fn coalesce(f: &Function, options: &Options) -> PassOutcome {
    let mut phases = PhaseTimes::default();
    let liveness = phases.time("liveness", || Liveness::compute(f));
    // Standing in for LLVM's RegisterCoalescer, join undefined values as it
    // does. After it, leave them apart: a register undefined on some path is
    // one ptxas may fill as it likes (`Function::undefined_values`).
    let replace_stock = options.coalesce_mode == CoalesceMode::ReplaceStock;
    let mut stand_ins = if replace_stock {
        phases.time("stand-ins", || stand_ins(f, &liveness))
    } else {
        StandIns::default()
    };
    let mut attempts = 0;
    let (mut rewrite, mut kept, joined) = loop {
        let implicit_defs =
            if replace_stock { ImplicitDefs::Vanish(&stand_ins) } else { ImplicitDefs::Write };
        let built = phases.time("interference", || {
            InterferenceGraph::build_within(f, &liveness, options.graph_limit, implicit_defs)
        });
        let mut graph = match built {
            Ok(graph) => graph,
            // Stock's coalescing stands: after stock it ran, and in replace-stock
            // the gate let it run where the graph was past half the limit.
            Err(census) => return PassOutcome::guarded(f, &census, options.graph_limit, phases),
        };
        let worklist_start = std::time::Instant::now();
        let (rewrite, kept, joined) = if replace_stock {
            // Which copies win where several compete for one register
            // depends on the order they are tried in; keep the order that
            // leaves fewer.
            let in_program_order = join(f, options, &mut graph.clone(), Order::Program);
            let as_stock = join(f, options, &mut graph, Order::Stock);
            if as_stock.1.len() < in_program_order.1.len() {
                as_stock
            } else {
                in_program_order
            }
        } else {
            join(f, options, &mut graph, Order::Register)
        };
        phases.0.push(("worklist", worklist_start.elapsed()));
        // A stand-in holds where its vreg and the IMPLICIT_DEF's share a
        // register; coalesce again without those that do not.
        let assumed = stand_ins.len();
        stand_ins.retain(|&i, w| f.defs(i).all(|v| rewrite.renamed(v) == rewrite.renamed(*w)));
        if stand_ins.len() == assumed {
            break (rewrite, kept, joined);
        }
        attempts += 1;
        if attempts == MAX_STAND_IN_ATTEMPTS {
            stand_ins.clear();
        }
    };
    let overtaken = implicit_defs_overtaken(f, &liveness, &rewrite);
    rewrite.deleted.extend(&overtaken);
    rewrite.deleted.sort();
    let stay: Vec<Inst> = kept
        .iter()
        .filter(|(_, r)| matches!(r, KeepReason::Interference | KeepReason::Conservative))
        .map(|&(i, _)| i)
        .collect();
    phases.time("rematerialize", || rematerialize_constant_copies(f, &stay, &mut rewrite));
    kept.retain(|(i, _)| rewrite.remats.binary_search_by_key(i, |r| r.copy).is_err());
    // Last, so that the constants copies of held values read stay defined.
    let held = phases.time("held values", || {
        let (merged, origin) = rewrite.apply(f);
        copies_of_held_values(&merged).into_iter().filter_map(|i| origin[i.index()]).collect::<Vec<Inst>>()
    });
    rewrite.deleted.extend(&held);
    rewrite.deleted.sort();
    kept.retain(|(i, _)| held.binary_search(i).is_err());

    let count = |reason| kept.iter().filter(|&&(_, r)| r == reason).count() as u64;
    let copies_deleted = rewrite.deleted.iter().filter(|&&i| f.inst(i).kind == InstKind::Copy).count() as u64;
    let others_deleted = rewrite.deleted.len() as u64 - copies_deleted - overtaken.len() as u64;
    let stats = [
        (c"copies-seen", joined.copies_seen),
        (c"copies-coalesced", copies_deleted - held.len() as u64),
        (c"copies-of-held-values", held.len() as u64),
        (c"copies-rematerialized", rewrite.remats.len() as u64),
        (c"constants-deleted", others_deleted),
        (c"implicit-defs-overtaken", overtaken.len() as u64),
        (c"merges", joined.merges),
        (c"rounds", joined.rounds),
        (c"kept-interference", count(KeepReason::Interference)),
        (c"kept-register-class", count(KeepReason::RegisterClass)),
        (c"kept-conservative", count(KeepReason::Conservative)),
        (c"kept-frame-address", count(KeepReason::FrameAddress)),
        (c"kept-copy-limit", count(KeepReason::CopyLimit)),
        (c"kept-coalesce-limit", count(KeepReason::CoalesceLimit)),
        (c"graph-entries", joined.graph_entries),
    ]
    .map(|(name, value)| Stat { name, value })
    .to_vec();
    let kept_copies =
        kept.into_iter().map(|(inst, reason)| KeptCopy { inst, reason: reason.describe() }).collect();
    PassOutcome { rewrite, stats, kept_copies, phases, method: Some(Method::Graph), ..Default::default() }
}

/// What one round of joining did, for the pass's statistics.
struct Joined {
    copies_seen: u64,
    merges: u64,
    rounds: u64,
    graph_entries: u64,
}

/// Rounds of coalescing with stand-ins for undefined values before the last,
/// without any.
const MAX_STAND_IN_ATTEMPTS: u32 = 2;

/// The order copies are tried in (see [`Turn`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    /// CICC's conservative coalescer: by register number, heavier first.
    Register,
    /// Replace-stock: in program order, weights aside.
    Program,
    /// Replace-stock: blocks as LLVM's RegisterCoalescer visits them.
    Stock,
}

/// Joins the copies of `f` the graph allows, trying them in `order`: the
/// rename, and the copies kept with why.
fn join(
    f: &Function,
    options: &Options,
    graph: &mut InterferenceGraph,
    order: Order,
) -> (Rewrite, Vec<(Inst, KeepReason)>, Joined) {
    let conservative = options.coalesce_mode != CoalesceMode::ReplaceStock;
    let weights = vreg_weights(f);

    let mut kept = Vec::new();
    let mut primary = CandidateHeap::new();
    let mut copies_seen = 0u64;
    let mut stock_rank = vec![0u32; f.blocks.len()];
    if order == Order::Stock {
        for (rank, b) in blocks_in_stock_order(f).into_iter().enumerate() {
            stock_rank[b.index()] = rank as u32;
        }
    }
    for b in f.block_ids() {
        let frequency = if options.block_freq_bias { f.block(b).frequency } else { 1.0 };
        for i in f.block_insts(b) {
            if f.inst(i).kind != InstKind::Copy {
                continue;
            }
            copies_seen += 1;
            match f.copy_pair(i) {
                Some((dst, src)) => primary.push(Reverse(Candidate {
                    turn: match order {
                        Order::Register => Turn::Register(dst),
                        Order::Program | Order::Stock => Turn::Block(stock_rank[b.index()]),
                    },
                    weight: match order {
                        Order::Register => (weights[dst.index()] + weights[src.index()]) * frequency,
                        Order::Program | Order::Stock => 0.0,
                    },
                    inst: i,
                    dst,
                    src,
                })),
                None => kept.push((i, KeepReason::RegisterClass)),
            }
        }
    }
    if let Some(limit) = options.copy_limit {
        let mut sorted = primary.into_sorted_vec();
        // into_sorted_vec sorts ascending by Reverse, i.e. the last pops first.
        let excess = sorted.len().saturating_sub(limit as usize);
        kept.extend(sorted.drain(..excess).map(|Reverse(c)| (c.inst, KeepReason::CopyLimit)));
        primary = sorted.into_iter().collect();
    }

    // Per set (at its root): whether it holds a frame address, and how many
    // instructions write it, a merged copy no longer counted (an
    // over-estimate where other copies also join the two sets). A frame
    // address must stay its register's one def (`Function::frame_addresses`).
    let mut frame_address = f.frame_addresses();
    let mut defs = Rewrite::identity(f.num_vregs()).defs_per_register(f);
    let mut sets = VRegSets::new(f.num_vregs());
    let mut waiting = CandidateHeap::new();
    let mut why_waiting = std::collections::HashMap::new();
    let mut merges = 0u64;
    let mut rounds = 0u64;
    let mut limit_hit = Vec::new();
    loop {
        rounds += 1;
        let mut merged_this_round = false;
        while let Some(Reverse(c)) = primary.pop() {
            let (ru, rv) = (sets.find(c.dst), sets.find(c.src));
            if ru == rv {
                continue;
            }
            let merged_defs = (defs[ru.index()] + defs[rv.index()]).saturating_sub(1);
            let blocked = if (frame_address[ru.index()] || frame_address[rv.index()]) && merged_defs > 1 {
                Some(KeepReason::FrameAddress)
            } else if graph.interferes(ru, rv) {
                Some(KeepReason::Interference)
            } else if conservative && !conservative_test(graph, ru, rv, options) {
                Some(KeepReason::Conservative)
            } else {
                None
            };
            if let Some(reason) = blocked {
                why_waiting.insert(c.inst, reason);
                waiting.push(Reverse(c));
                continue;
            }
            if options.coalesce_limit.is_some_and(|limit| merges >= limit) {
                limit_hit.push(c.inst);
                continue;
            }
            tracing::debug!(inst = c.inst.0, dst = ?c.dst, src = ?c.src, "merge");
            let (root, other) = sets.union(ru, rv);
            frame_address[root.index()] |= frame_address[other.index()];
            defs[root.index()] = merged_defs;
            graph.merge(root, other);
            merges += 1;
            merged_this_round = true;
        }
        if !merged_this_round || waiting.is_empty() {
            break;
        }
        std::mem::swap(&mut primary, &mut waiting);
    }

    let mut rewrite = Rewrite::identity(f.num_vregs());
    for v in (0..f.num_vregs()).map(VReg::new) {
        rewrite.rename[v.index()] = sets.smallest_member(v);
    }
    for Reverse(c) in waiting {
        if sets.find(c.dst) != sets.find(c.src) {
            kept.push((c.inst, why_waiting[&c.inst]));
        }
    }
    kept.extend(
        limit_hit
            .into_iter()
            .filter(|&i| {
                let (d, s) = f.copy_pair(i).expect("a candidate is a copy");
                sets.find(d) != sets.find(s)
            })
            .map(|i| (i, KeepReason::CoalesceLimit)),
    );
    rewrite.deleted = rewrite.redundant_after_renaming(f);
    kept.sort_by_key(|&(i, _)| i);
    (rewrite, kept, Joined { copies_seen, merges, rounds, graph_entries: graph.entries })
}

/// The blocks in the order LLVM's RegisterCoalescer visits them: deeper in
/// loops first, then more CFG edges (the hardest copies while live ranges
/// are short), then by number. (It takes blocks that split a critical edge
/// early too; ours are not the blocks it saw, and taking them early here
/// joins worse.)
fn blocks_in_stock_order(f: &Function) -> Vec<Block> {
    let mut order: Vec<Block> = f.block_ids().collect();
    order.sort_by_key(|&b| {
        let data = f.block(b);
        (Reverse(data.loop_depth), Reverse(data.preds.len() + data.succs.len()), b)
    });
    order
}

/// A constant: a move-immediate (LLVM's isMoveImmediate) with no side
/// effects, no register input and one def. LLVM 22 does not mark NVPTX's
/// float move-immediates as trivially rematerializable, so that flag is not
/// required.
pub fn is_constant_def(f: &Function, i: Inst) -> bool {
    let data = f.inst(i);
    data.kind == InstKind::MoveImm
        && !data.flags.intersects(InstFlags::SIDE_EFFECTS | InstFlags::MAY_LOAD | InstFlags::MAY_STORE)
        && matches!(data.operands.as_slice(), [only] if only.is_def() && only.flags == crate::function::OperandFlags::DEF)
}

/// Turns each copy in `stay` whose source is a constant into a clone of the
/// constant's instruction, and deletes constants no one reads any more.
fn rematerialize_constant_copies(f: &Function, stay: &[Inst], rewrite: &mut Rewrite) {
    let defs: Vec<Option<Inst>> =
        f.def_insts().iter().map(|d| if let [i] = d.as_slice() { Some(*i) } else { None }).collect();
    let block_of = f.block_of_each_inst();
    for &copy in stay {
        let (_, src) = f.copy_pair(copy).expect("a kept candidate is a copy");
        // The def that reaches the copy: the last one earlier in its block,
        // else the only one in the function.
        let earlier = f.block_insts(block_of[copy.index()]).rev().skip_while(|&i| i >= copy);
        let reaching = earlier.into_iter().find(|&i| f.defs(i).any(|d| d == src)).or(defs[src.index()]);
        if let Some(source) = reaching.filter(|&i| is_constant_def(f, i)) {
            rewrite.remats.push(Remat { copy, source });
        }
    }
    rewrite.remats.sort_by_key(|r| r.copy);
    if rewrite.remats.is_empty() {
        return;
    }
    // Reads that remain, by register after renaming.
    let mut reads = vec![0u32; f.num_vregs()];
    for i in (0..f.insts.len()).map(Inst::new) {
        let gone = rewrite.deleted.binary_search(&i).is_ok()
            || rewrite.remats.binary_search_by_key(&i, |r| r.copy).is_ok();
        if !gone {
            for v in f.uses(i) {
                reads[rewrite.renamed(v).index()] += 1;
            }
        }
    }
    let mut dead: Vec<Inst> = rewrite
        .remats
        .iter()
        .map(|r| r.source)
        .filter(|&source| {
            let value = f.defs(source).next().expect("a constant has one def");
            reads[rewrite.renamed(value).index()] == 0
        })
        .collect();
    dead.sort();
    dead.dedup();
    rewrite.deleted.extend(dead);
    rewrite.deleted.sort();
}

/// The `IMPLICIT_DEF`s that must go once `rewrite` renamed registers joined
/// under [`ImplicitDefs::Vanish`]: those whose register holds another
/// vreg's value across them. The others stay, so that every read of a
/// register still has a def on each path to it.
pub fn implicit_defs_overtaken(f: &Function, liveness: &Liveness, rewrite: &Rewrite) -> Vec<Inst> {
    let mut overtaken = Vec::new();
    let mut live = LiveSet::new(f);
    for b in f.block_ids() {
        if !f.block_insts(b).any(|i| f.inst(i).kind == InstKind::ImplicitDef) {
            continue;
        }
        walk_block_backward(f, liveness, b, &mut live, |i, live_after| {
            if f.inst(i).kind != InstKind::ImplicitDef {
                return;
            }
            let held = f.defs(i).any(|d| {
                let Some(class) = f.class_of(d) else { return false };
                live_after.iter_class(class).any(|l| l != d && rewrite.renamed(l) == rewrite.renamed(d))
            });
            if held {
                overtaken.push(i);
            }
        });
    }
    overtaken.sort();
    overtaken
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::function::{Block, FunctionBuilder, InstData, RegClass};
    use proptest::prelude::*;

    /// `u` and `v` share 15 neighbours, each of degree `degree`.
    fn threshold_graph(degree: usize) -> (InterferenceGraph, VReg, VReg) {
        let (u, v) = (VReg(0), VReg(1));
        let neighbours: Vec<VReg> = (2..17).map(VReg).collect();
        let mut next = 17;
        let mut graph = InterferenceGraph::new(400, 1);
        for &w in &neighbours {
            graph.add_edge(u, w);
            graph.add_edge(v, w);
            while graph.degree(w) < degree {
                graph.add_edge(w, VReg(next));
                next += 1;
            }
        }
        (graph, u, v)
    }

    #[test]
    fn factor_point_eight_makes_degree_19_the_first_high_degree() {
        let options = Options::default();
        let (low, u, v) = threshold_graph(18);
        assert!(conservative_test(&low, u, v, &options));
        let (high, u, v) = threshold_graph(19);
        assert!(!conservative_test(&high, u, v, &options));
        let plain_briggs = Options { coalesce_factor: 1.0, ..Options::default() };
        assert!(!conservative_test(&low, u, v, &plain_briggs));
    }

    #[test]
    fn fourteen_high_degree_neighbours_are_fewer_than_k() {
        let (mut graph, u, v) = threshold_graph(19);
        // Drop one shared neighbour's edges: 14 high-degree neighbours remain.
        let w = VReg(2);
        let mut lone = InterferenceGraph::new(400, 1);
        for x in (0..400).map(VReg) {
            for y in graph.neighbors(x).collect::<Vec<_>>() {
                if x < y && x != w && y != w {
                    lone.add_edge(x, y);
                }
            }
        }
        graph = lone;
        assert!(conservative_test(&graph, u, v, &Options::default()));
    }

    #[test]
    fn candidates_pop_by_register_then_weight_then_position() {
        let c = |register, weight, inst| Candidate {
            turn: Turn::Register(VReg(register)),
            weight,
            inst: Inst(inst),
            dst: VReg(register),
            src: VReg(0),
        };
        let mut heap: CandidateHeap = [c(5, 1.0, 0), c(3, 1.0, 1), c(3, 9.0, 2), c(3, 9.0, 3), c(4, 0.0, 4)]
            .into_iter()
            .map(Reverse)
            .collect();
        let order: Vec<u32> = std::iter::from_fn(|| heap.pop().map(|Reverse(c)| c.inst.0)).collect();
        assert_eq!(order, [2, 3, 1, 4, 0]);
    }

    /// A loop with a bypass: `acc` is 0 and `last` undefined on the bypass,
    /// both the loop's sum after it. In replace-stock, as in LLVM's
    /// RegisterCoalescer, all of them share one register and the
    /// IMPLICIT_DEF goes (the register holds 0 there); after stock, `last`
    /// keeps a register of its own.
    #[test]
    fn an_undefined_value_on_a_loop_bypass_joins_the_value_beside_it() {
        let mut b = FunctionBuilder::new("bypass", &["B32"]);
        let [zero, acc, last, sum, x, a, l] = std::array::from_fn(|_| b.vreg(RegClass(0)));
        let entry = b.block(0);
        b.inst(InstKind::MoveImm, &[zero], &[]);
        b.copy(acc, zero);
        let undefined = b.inst(InstKind::ImplicitDef, &[last], &[]);
        b.copy(sum, zero);
        b.inst(InstKind::Terminator, &[], &[zero]);
        let body = b.block(1);
        b.inst(InstKind::Other, &[x], &[sum]);
        b.copy(sum, x);
        b.copy(acc, x);
        b.copy(last, x);
        b.inst(InstKind::Terminator, &[], &[x]);
        let exit = b.block(0);
        b.copy(a, acc);
        b.copy(l, last);
        b.inst(InstKind::Other, &[], &[a, l]);
        for (from, to) in [(entry, body), (entry, exit), (body, body), (body, exit)] {
            b.edge(from, to);
        }
        let f = b.finish();
        let replace =
            coalesce(&f, &Options { coalesce_mode: CoalesceMode::ReplaceStock, ..Options::default() });
        let rewrite = &replace.rewrite;
        assert!([acc, last, sum, x, a, l].iter().all(|&v| rewrite.renamed(v) == rewrite.renamed(zero)));
        assert!(rewrite.deleted.contains(&undefined));
        assert_eq!(replace.stat("implicit-defs-overtaken"), Some(1));
        crate::checker::check(&f, rewrite).unwrap();
        let after = coalesce(&f, &Options::default());
        assert_ne!(after.rewrite.renamed(last), after.rewrite.renamed(acc));
        assert!(!after.rewrite.deleted.contains(&undefined));
        crate::checker::check(&f, &after.rewrite).unwrap();
    }

    fn chain() -> (Function, [VReg; 4]) {
        let mut b = FunctionBuilder::new("chain", &["B32"]);
        let r: [VReg; 4] = std::array::from_fn(|_| b.vreg(RegClass(0)));
        b.block(0);
        b.inst(InstKind::MoveImm, &[r[0]], &[]);
        b.inst(InstKind::Other, &[r[0]], &[r[0]]);
        b.copy(r[1], r[0]);
        b.copy(r[2], r[1]);
        b.copy(r[3], r[2]);
        b.inst(InstKind::Other, &[], &[r[3]]);
        (b.finish(), r)
    }

    #[test]
    fn a_copy_chain_collapses_onto_its_first_register() {
        let (f, r) = chain();
        let outcome = coalesce(&f, &Options::default());
        assert!(r.iter().all(|&v| outcome.rewrite.renamed(v) == r[0]));
        assert_eq!(outcome.rewrite.deleted, [Inst(2), Inst(3), Inst(4)]);
        assert_eq!(outcome.stat("copies-coalesced"), Some(3));
        crate::checker::check(&f, &outcome.rewrite).unwrap();
    }

    /// `fa` = frame address; `a = fa` (a's only def), `b = fa`, later
    /// `b = ...` again: a may join fa (fa's register keeps one def), b may
    /// not (its register would have two).
    #[test]
    fn a_frame_address_joins_only_copies_that_keep_it_the_one_def() {
        let mut b = FunctionBuilder::new("frame", &["B64"]);
        let [fa, a, fb, x] = std::array::from_fn(|_| b.vreg(RegClass(0)));
        b.block(0);
        let frame_address = |v| InstData {
            kind: InstKind::Other,
            flags: InstFlags::FRAME_ADDRESS,
            opcode: 0,
            operands: vec![crate::function::Operand::def(v)],
        };
        b.inst_with(frame_address(fa));
        b.copy(a, fa);
        b.inst(InstKind::Other, &[], &[a]);
        b.inst_with(frame_address(fb));
        b.copy(x, fb);
        b.inst(InstKind::Other, &[], &[x]);
        b.inst(InstKind::Other, &[x], &[]);
        b.inst(InstKind::Other, &[], &[x]);
        let f = b.finish();
        let outcome =
            coalesce(&f, &Options { coalesce_mode: CoalesceMode::ReplaceStock, ..Options::default() });
        assert_eq!(outcome.rewrite.renamed(a), outcome.rewrite.renamed(fa));
        assert_ne!(outcome.rewrite.renamed(x), outcome.rewrite.renamed(fb));
        assert_eq!(outcome.stat("kept-frame-address"), Some(1));
        crate::checker::check(&f, &outcome.rewrite).unwrap();
    }

    #[test]
    fn limits_keep_copies_and_say_why() {
        let (f, _) = chain();
        let limited = coalesce(&f, &Options { coalesce_limit: Some(1), ..Options::default() });
        assert_eq!(limited.rewrite.deleted.len(), 1);
        assert_eq!(limited.stat("kept-coalesce-limit"), Some(2));
        let few = coalesce(&f, &Options { copy_limit: Some(2), ..Options::default() });
        assert_eq!(few.rewrite.deleted.len(), 2);
        assert_eq!(few.stat("kept-copy-limit"), Some(1));
    }

    #[test]
    fn a_constant_read_only_by_rematerialized_copies_is_deleted() {
        // c = 7; a = c; b = c; a and b are redefined while the other copy
        // still needs c, so no copy can merge with c.
        let mut b = FunctionBuilder::new("remat", &["B32"]);
        let [c, x, y] = std::array::from_fn(|_| b.vreg(RegClass(0)));
        b.block(0);
        b.inst(InstKind::MoveImm, &[c], &[]);
        b.inst(InstKind::MoveImm, &[x], &[]);
        b.inst(InstKind::MoveImm, &[y], &[]);
        let loop_block = b.block(1);
        b.copy(x, c);
        b.inst(InstKind::Other, &[x], &[x, y]);
        b.copy(y, c);
        b.inst(InstKind::Other, &[y], &[y, x]);
        b.inst(InstKind::Terminator, &[], &[x]);
        let exit = b.block(0);
        b.inst(InstKind::Other, &[], &[x, y]);
        b.edge(Block(0), loop_block);
        b.edge(loop_block, loop_block);
        b.edge(loop_block, exit);
        let f = b.finish();
        let outcome = coalesce(&f, &Options::default());
        crate::checker::check(&f, &outcome.rewrite).unwrap();
        assert_eq!(outcome.stat("copies-rematerialized"), Some(2));
        assert_eq!(outcome.stat("constants-deleted"), Some(1));
    }

    proptest! {
        /// A smaller factor counts fewer neighbours as high-degree, so it
        /// never refuses a merge a larger factor allows.
        #[test]
        fn smaller_factors_are_never_stricter(
            edges in proptest::collection::vec((0u32..40, 0u32..40), 0..400),
            low in 0.1f64..1.0,
            extra in 0.0f64..1.0,
        ) {
            let mut graph = InterferenceGraph::new(40, 1);
            for (a, b) in edges {
                if a != b && !(a <= 1 && b <= 1) {
                    graph.add_edge(VReg(a), VReg(b));
                }
            }
            let options = |factor| Options { k: 3, coalesce_factor: factor, ..Options::default() };
            if conservative_test(&graph, VReg(0), VReg(1), &options(low + extra)) {
                prop_assert!(conservative_test(&graph, VReg(0), VReg(1), &options(low)));
            }
        }
    }
}

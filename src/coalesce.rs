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

use crate::function::{Function, Inst, InstFlags, InstKind, VReg};
use crate::interference::InterferenceGraph;
use crate::liveness::Liveness;
use crate::options::{CoalesceMode, Options};
use crate::rewrite::{KeptCopy, PassOutcome, Remat, Rewrite, Stat};
use crate::union_find::VRegSets;

/// Why a copy survived coalescing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeepReason {
    Interference,
    RegisterClass,
    Conservative,
    CopyLimit,
    CoalesceLimit,
}

impl KeepReason {
    pub fn describe(self) -> &'static CStr {
        match self {
            Self::Interference => c"its registers interfere",
            Self::RegisterClass => c"its registers differ in class or operand form",
            Self::Conservative => c"the merge fails the conservative test",
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
        let loop_weight = crate::spill_cost::loop_weight(f.block(b).loop_depth);
        for i in f.block_insts(b) {
            for o in &f.inst(i).operands {
                weights[o.vreg.index()] += 1.0 + loop_weight + if o.reads() { 1.0 } else { 0.0 };
            }
        }
    }
    weights
}

#[derive(Clone, Copy, Debug)]
struct Candidate {
    /// Min-heap key: the copy's destination register number.
    register: VReg,
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
    /// Smaller comes first: lower register number, then higher weight, then
    /// program order.
    fn cmp(&self, other: &Self) -> Ordering {
        self.register
            .cmp(&other.register)
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
    let union = graph
        .neighbors(u)
        .chain(graph.neighbors(v).filter(|&w| !graph.interferes(u, w)));
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
    let liveness = Liveness::compute(f);
    let mut graph = InterferenceGraph::build(f, &liveness);
    let weights = vreg_weights(f);

    let mut kept = Vec::new();
    let mut primary = CandidateHeap::new();
    let mut copies_seen = 0u64;
    for b in f.block_ids() {
        let frequency = if options.block_freq_bias {
            f.block(b).frequency
        } else {
            1.0
        };
        for i in f.block_insts(b) {
            if f.inst(i).kind != InstKind::Copy {
                continue;
            }
            copies_seen += 1;
            match f.copy_pair(i) {
                Some((dst, src)) => primary.push(Reverse(Candidate {
                    register: dst,
                    weight: (weights[dst.index()] + weights[src.index()]) * frequency,
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
        kept.extend(
            sorted
                .drain(..excess)
                .map(|Reverse(c)| (c.inst, KeepReason::CopyLimit)),
        );
        primary = sorted.into_iter().collect();
    }

    let conservative = options.coalesce_mode != CoalesceMode::ReplaceStock;
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
            let blocked = if graph.interferes(ru, rv) {
                Some(KeepReason::Interference)
            } else if conservative && !conservative_test(&graph, ru, rv, options) {
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
    rewrite.deleted = deletable_copies(f, &rewrite);
    kept.sort_by_key(|&(i, _)| i);
    let stay: Vec<Inst> = kept
        .iter()
        .filter(|(_, r)| matches!(r, KeepReason::Interference | KeepReason::Conservative))
        .map(|&(i, _)| i)
        .collect();
    rematerialize_constant_copies(f, &stay, &mut rewrite);
    kept.retain(|(i, _)| rewrite.remats.binary_search_by_key(i, |r| r.copy).is_err());

    let count = |reason| kept.iter().filter(|&&(_, r)| r == reason).count() as u64;
    let stats = vec![
        Stat {
            name: c"copies-seen",
            value: copies_seen,
        },
        Stat {
            name: c"copies-coalesced",
            value: rewrite.deleted.len() as u64,
        },
        Stat {
            name: c"merges",
            value: merges,
        },
        Stat {
            name: c"rounds",
            value: rounds,
        },
        Stat {
            name: c"kept-interference",
            value: count(KeepReason::Interference),
        },
        Stat {
            name: c"kept-register-class",
            value: count(KeepReason::RegisterClass),
        },
        Stat {
            name: c"kept-conservative",
            value: count(KeepReason::Conservative),
        },
        Stat {
            name: c"kept-copy-limit",
            value: count(KeepReason::CopyLimit),
        },
        Stat {
            name: c"kept-coalesce-limit",
            value: count(KeepReason::CoalesceLimit),
        },
    ];
    let kept_copies = kept
        .into_iter()
        .map(|(inst, reason)| KeptCopy {
            inst,
            reason: reason.describe(),
        })
        .collect();
    PassOutcome {
        rewrite,
        stats,
        kept_copies,
    }
}

/// Copies whose source and destination the rewrite maps to one register.
pub fn deletable_copies(f: &Function, rewrite: &Rewrite) -> Vec<Inst> {
    (0..f.insts.len())
        .map(Inst::new)
        .filter(|&i| {
            f.copy_pair(i)
                .is_some_and(|(d, s)| rewrite.renamed(d) == rewrite.renamed(s))
        })
        .collect()
}

/// The single instruction defining each vreg, if it has exactly one def.
fn single_defs(f: &Function) -> Vec<Option<Inst>> {
    let mut def: Vec<Option<Inst>> = vec![None; f.num_vregs()];
    let mut count = vec![0u32; f.num_vregs()];
    for i in (0..f.insts.len()).map(Inst::new) {
        for d in f.defs(i) {
            def[d.index()] = Some(i);
            count[d.index()] += 1;
        }
    }
    def.iter()
        .zip(&count)
        .map(|(&d, &n)| if n == 1 { d } else { None })
        .collect()
}

/// A constant: a move-immediate (LLVM's isMoveImmediate) with no side
/// effects, no register input and one def. LLVM 22 does not mark NVPTX's
/// float move-immediates as trivially rematerializable, so that flag is not
/// required.
pub fn is_constant_def(f: &Function, i: Inst) -> bool {
    let data = f.inst(i);
    data.kind == InstKind::MoveImm
        && !data
            .flags
            .intersects(InstFlags::SIDE_EFFECTS | InstFlags::MAY_LOAD | InstFlags::MAY_STORE)
        && matches!(data.operands.as_slice(), [only] if only.is_def() && only.flags == crate::function::OperandFlags::DEF)
}

/// Turns each copy in `stay` whose source is a constant into a clone of the
/// constant's instruction, and deletes constants no one reads any more.
fn rematerialize_constant_copies(f: &Function, stay: &[Inst], rewrite: &mut Rewrite) {
    let defs = single_defs(f);
    for &copy in stay {
        let (_, src) = f.copy_pair(copy).expect("a kept candidate is a copy");
        if let Some(source) = defs[src.index()].filter(|&i| is_constant_def(f, i)) {
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

//! The interference graph: an edge joins two vregs of the same class when one
//! is written while the other holds a *different* value that may still be
//! read. Values are numbered through copies across the whole function: a
//! copy's destination holds its source's value, so it interferes neither
//! with the source nor with other copies of that value still live (the
//! loop-latch pattern `a = COPY x; ...; b = COPY x` with `a` and `b` both
//! live out), in its block or beyond, which is how LLVM's RegisterCoalescer
//! joins copies whose live ranges overlap.
//!
//! The numbering is a forward dataflow: a vreg brings into a block the value
//! it leaves all reached predecessors with, or, where they differ, a value
//! of its own, as if a PHI defined it at the block's head. That is sound
//! whether or not the function is in SSA form: two vregs numbered alike at a
//! point hold the result of the same latest execution of one instruction (or
//! block entry) on every path there, because a path that ran that
//! instruction again after one of them took its value would reach the point
//! with the other numbered differently (the first time round the loop they
//! met with different values).

use fixedbitset::FixedBitSet;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::function::{Block, Function, Inst, InstKind, RegClass, VReg};
use crate::liveness::{walk_block_backward, LiveSet, Liveness};

/// Where the value of a def in a block comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    /// Made in the block, by the instruction numbered so.
    Made(u64),
    /// Brought into the block by this vreg (copied from it, perhaps through
    /// other copies in the block).
    BroughtIn(VReg),
}

/// The defs of one block and where their values come from.
struct BlockDefs {
    /// For each vreg defined in the block: (instruction, origin) per def, in order.
    defs: FxHashMap<VReg, Vec<(Inst, Origin)>>,
}

impl BlockDefs {
    fn number(f: &Function, b: Block, next: &mut u64, stand_ins: &StandIns) -> Self {
        let mut block = Self { defs: FxHashMap::default() };
        for i in f.block_insts(b) {
            let source = f.copy_pair(i).map(|(_, src)| src).or_else(|| stand_ins.get(&i).copied());
            let copied = source.map(|src| block.origin_before(src, i));
            for d in f.defs(i) {
                let origin = copied.unwrap_or_else(|| {
                    *next += 1;
                    Origin::Made(*next)
                });
                block.defs.entry(d).or_default().push((i, origin));
            }
        }
        block
    }

    /// Where the value `v` holds just before instruction `i` comes from.
    fn origin_before(&self, v: VReg, i: Inst) -> Origin {
        self.defs
            .get(&v)
            .and_then(|defs| defs.iter().rev().find(|&&(at, _)| at < i))
            .map_or(Origin::BroughtIn(v), |&(_, origin)| origin)
    }

    /// Where the value `v` leaves the block with comes from.
    fn origin_at_exit(&self, v: VReg) -> Origin {
        self.defs.get(&v).and_then(|defs| defs.last()).map_or(Origin::BroughtIn(v), |&(_, origin)| origin)
    }
}

/// Value numbers of the whole function.
struct Values {
    blocks: Vec<BlockDefs>,
    /// Per block: the values its live-in vregs bring into it that it shares
    /// with its predecessors; any other vreg brings a value of its own.
    entry: Vec<FxHashMap<VReg, u64>>,
}

/// Rounds of the dataflow after which the numbering gives up on sharing
/// values across blocks; a reverse post-order settles in a few per loop
/// nesting level.
const MAX_ROUNDS: usize = 64;

impl Values {
    /// The value `v` brings into `b` where no other vreg may hold it: the
    /// entry's live-ins (undefined there), a join of different values, and
    /// blocks no path reaches.
    fn own(b: Block, v: VReg) -> u64 {
        (1 << 63) | (u64::from(b.0) << 32) | u64::from(v.0)
    }

    fn number(f: &Function, liveness: &Liveness, stand_ins: &StandIns) -> Self {
        let mut next = 0u64;
        let blocks = f.block_ids().map(|b| BlockDefs::number(f, b, &mut next, stand_ins)).collect();
        let mut values = Self { blocks, entry: vec![FxHashMap::default(); f.blocks.len()] };
        // The entry block keeps values of its own: a path from the function's
        // start reaches it with every vreg undefined.
        let order: Vec<Block> = f.reverse_post_order().into_iter().filter(|b| b.0 != 0).collect();
        for _ in 0..MAX_ROUNDS {
            let mut changed = false;
            for &b in &order {
                for &v in &liveness.live_in[b.index()] {
                    let own = Self::own(b, v);
                    if values.entry[b.index()].get(&v) == Some(&own) {
                        continue;
                    }
                    // Predecessors not numbered yet are left out until they are.
                    let mut incoming = f.block(b).preds.iter().filter_map(|&p| values.exit_value(p, v));
                    let Some(first) = incoming.next() else { continue };
                    let value = if incoming.all(|x| x == first) { first } else { own };
                    changed |= values.entry[b.index()].insert(v, value) != Some(value);
                }
            }
            if !changed {
                values.join_congruent_joins(f, &order);
                return values;
            }
        }
        tracing::debug!("value numbering did not settle; values stay within blocks");
        values.entry.iter_mut().for_each(FxHashMap::clear);
        values
    }

    /// Gives joins of one block one value where the values they join are
    /// alike, pred by pred: two vregs copied from one value on each path into
    /// the block, as the coalesced PHIs `%a = PHI [x, p] [y, q]` and
    /// `%b = PHI [x, p] [y, q]` are. Alike is the largest such partition,
    /// found by splitting the joins of each block until every part's members
    /// join alike parts (Alpern, Wegman and Zadeck's congruence), so that
    /// loops whose joins feed each other are seen through.
    fn join_congruent_joins(&mut self, f: &Function, order: &[Block]) {
        struct Join {
            value: u64,
            block: Block,
            incoming: Vec<Option<u64>>,
        }
        let mut joins = Vec::new();
        for &b in order {
            for (&v, &value) in &self.entry[b.index()] {
                if value == Self::own(b, v) {
                    let incoming = f.block(b).preds.iter().map(|&p| self.exit_value(p, v)).collect();
                    joins.push(Join { value, block: b, incoming });
                }
            }
        }
        let index: FxHashMap<u64, usize> = joins.iter().enumerate().map(|(n, j)| (j.value, n)).collect();
        let mut part: Vec<usize> = joins.iter().map(|j| j.block.index()).collect();
        let mut parts = usize::MAX;
        loop {
            // A join's part and, per predecessor, the part of the join it
            // sends (true, part), or any other value itself (false, value).
            type Key = (usize, Vec<Option<(bool, u64)>>);
            let mut ids: FxHashMap<Key, usize> = FxHashMap::default();
            let split: Vec<usize> = joins
                .iter()
                .zip(&part)
                .map(|(j, &old)| {
                    let incoming = j
                        .incoming
                        .iter()
                        .map(|x| x.map(|x| index.get(&x).map_or((false, x), |&n| (true, part[n] as u64))));
                    let next = ids.len();
                    *ids.entry((old, incoming.collect())).or_insert(next)
                })
                .collect();
            if ids.len() == parts {
                break;
            }
            parts = ids.len();
            part = split;
        }
        let mut first_of_part: FxHashMap<usize, u64> = FxHashMap::default();
        let alike: FxHashMap<u64, u64> = joins
            .iter()
            .zip(&part)
            .map(|(j, &p)| (j.value, *first_of_part.entry(p).or_insert(j.value)))
            .collect();
        for entry in &mut self.entry {
            for value in entry.values_mut() {
                if let Some(&first) = alike.get(value) {
                    *value = first;
                }
            }
        }
    }

    /// The value `v` leaves `b` with, if `b` is numbered yet.
    fn exit_value(&self, b: Block, v: VReg) -> Option<u64> {
        match self.blocks[b.index()].origin_at_exit(v) {
            Origin::Made(value) => Some(value),
            Origin::BroughtIn(w) if b.0 == 0 => Some(Self::own(b, w)),
            Origin::BroughtIn(w) => self.entry[b.index()].get(&w).copied(),
        }
    }

    /// The value `v` holds just before instruction `i` of block `b`.
    fn value_before(&self, b: Block, v: VReg, i: Inst) -> u64 {
        match self.blocks[b.index()].origin_before(v, i) {
            Origin::Made(value) => value,
            Origin::BroughtIn(w) => self.entry[b.index()].get(&w).copied().unwrap_or(Self::own(b, w)),
        }
    }

    /// The value `v` holds just after instruction `i` of block `b`.
    fn value_after(&self, b: Block, v: VReg, i: Inst) -> u64 {
        self.value_before(b, v, Inst(i.0 + 1))
    }
}

/// Copies that write a value their destination already holds, as
/// `b = COPY x` does once `a = COPY x` ran earlier and `a` and `b` were
/// merged: deleting them changes no value (LLVM's RegisterCoalescer erases
/// such copies of identical values too). They may all go at once: the
/// numbering that shows one redundant holds without the others.
pub fn copies_of_held_values(f: &Function) -> Vec<Inst> {
    let values = Values::number(f, &Liveness::compute(f), &StandIns::default());
    let mut redundant = Vec::new();
    for b in f.block_ids() {
        for i in f.block_insts(b) {
            if let Some((d, s)) = f.copy_pair(i) {
                if d != s && values.value_before(b, d, i) == values.value_before(b, s, i) {
                    redundant.push(i);
                }
            }
        }
    }
    redundant
}

/// How an `IMPLICIT_DEF` meets the values live across it.
#[derive(Clone, Copy, Debug)]
pub enum ImplicitDefs<'a> {
    /// As any def does: it writes a value of its own, different from theirs.
    Write,
    /// Not at all: it defines an undefined value, which may be whatever its
    /// register already holds. A register it shares with a value live across
    /// it keeps that value and the `IMPLICIT_DEF` goes
    /// (`coalesce::implicit_defs_overtaken`). Values it meets later are met as usual,
    /// numbered as the value of its stand-in, if it has one ([`stand_ins`]),
    /// else as one of its own. This is how LLVM's RegisterCoalescer joins a
    /// register undefined on a loop's bypass path with the loop's result.
    Vanish(&'a StandIns),
}

/// Per `IMPLICIT_DEF`: a vreg live across it whose value it is numbered as,
/// as if it were a copy of that vreg. Sound only where the coalescing that
/// assumed it gives the two one register, so that the `IMPLICIT_DEF` goes
/// and the register goes on holding that value.
pub type StandIns = FxHashMap<Inst, VReg>;

/// Stand-ins that make joins alike. An `IMPLICIT_DEF` of `v` whose
/// undefined value reaches the head of a block where another vreg `x` comes
/// in too, with `v`'s value on every edge but those where `v` brings the
/// undefined one, and there one value `y`: a vreg holding `y` across the
/// `IMPLICIT_DEF` is its stand-in. Taking the undefined value as `y` makes
/// the two joins alike, as in a loop with a bypass: `x` (an accumulator, 0 on
/// the bypass) and `v` (undefined there) both copied from the loop's sum.
pub fn stand_ins(f: &Function, liveness: &Liveness) -> StandIns {
    let mut found = StandIns::default();
    if !f.insts.iter().any(|data| data.kind == InstKind::ImplicitDef) {
        return found;
    }
    let values = Values::number(f, liveness, &StandIns::default());
    let merges: Vec<Block> = f.block_ids().filter(|&j| f.block(j).preds.len() > 1).collect();
    let mut live = LiveSet::new(f);
    for b in f.block_ids() {
        if !f.block_insts(b).any(|i| f.inst(i).kind == InstKind::ImplicitDef) {
            continue;
        }
        walk_block_backward(f, liveness, b, &mut live, |i, live_after| {
            let (InstKind::ImplicitDef, Some(v)) = (f.inst(i).kind, f.defs(i).next()) else { return };
            let Some(class) = f.class_of(v) else { return };
            let undefined = Some(values.value_after(b, v, i));
            let held: Vec<(u64, VReg)> = live_after
                .iter_class(class)
                .filter(|&w| w != v)
                .map(|w| (values.value_after(b, w, i), w))
                .collect();
            // The value `x` brings in where `v` brings the undefined one, if
            // they agree on every other edge.
            let wanted = |j: Block, x: VReg| {
                let mut wanted = None;
                for &p in &f.block(j).preds {
                    let (mine, theirs) = (values.exit_value(p, v), values.exit_value(p, x));
                    if mine == undefined && theirs.is_some() && (wanted.is_none() || wanted == theirs) {
                        wanted = theirs;
                    } else if mine == undefined || mine != theirs {
                        return None;
                    }
                }
                wanted
            };
            let joins = merges.iter().copied().filter(|&j| {
                liveness.live_in[j.index()].binary_search(&v).is_ok()
                    && f.block(j).preds.iter().any(|&p| values.exit_value(p, v) == undefined)
            });
            let stand_in = joins
                .flat_map(|j| {
                    let partners = liveness.live_in[j.index()]
                        .iter()
                        .filter(|&&x| x != v && f.class_of(x) == Some(class));
                    partners.filter_map(move |&x| wanted(j, x)).collect::<Vec<u64>>()
                })
                .find_map(|y| held.iter().find(|&&(value, _)| value == y).map(|&(_, w)| w));
            if let Some(w) = stand_in {
                found.insert(i, w);
            }
        });
    }
    found
}

#[derive(Clone)]
pub struct InterferenceGraph {
    adjacency: Vec<Vec<VReg>>,
    edges: EdgeSet,
    /// Per class: the most values of that class live at one point (the
    /// register pressure). No coloring of the graph can use fewer registers,
    /// except where copies let two live values share one.
    pub max_live: Vec<u32>,
    /// The census's count of entries (`Census::graph_entries`).
    pub entries: u64,
}

/// What one walk over a function's program points tells without building
/// its interference graph: the register pressure, and how big the graph
/// would be. Its cost is that of liveness, whatever the pressure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Census {
    /// Per class: the most values of that class live at one point.
    pub max_live: Vec<u32>,
    /// Entries the graph would take: per def, the live values of its class
    /// it would be checked against (an upper bound on the edges, and the
    /// work of building them).
    pub graph_entries: u64,
}

impl Census {
    /// Why a graph over `limit` is not built.
    pub fn over(&self, limit: u64) -> String {
        format!(
            "its interference graph would take {} entries, over -nvregalloc-graph-limit={limit}",
            self.graph_entries
        )
    }

    pub fn take(f: &Function, liveness: &Liveness) -> Self {
        let mut census = Self { max_live: vec![0; f.class_names.len()], graph_entries: 0 };
        let mut live = LiveSet::new(f);
        let mut pressure = vec![0u32; f.class_names.len()];
        for b in f.block_ids() {
            walk_block_backward(f, liveness, b, &mut live, |i, live_after| {
                for (class, now) in pressure.iter_mut().enumerate() {
                    *now = live_after.count(RegClass::new(class));
                }
                let mut defs = 0u64;
                for d in f.defs(i) {
                    let Some(class) = f.class_of(d) else { continue };
                    defs += 1;
                    census.graph_entries += u64::from(live_after.count(class)) + defs;
                    if !live_after.contains(d) {
                        pressure[class.index()] += 1;
                    }
                }
                // Early-clobber defs are live together with the uses of their
                // class that die here.
                let clobbered: Vec<RegClass> = f.early_clobbers(i).filter_map(|d| f.class_of(d)).collect();
                if !clobbered.is_empty() {
                    let mut dying: Vec<VReg> = f.uses(i).filter(|&u| !live_after.contains(u)).collect();
                    dying.sort_unstable();
                    dying.dedup();
                    for class in dying.into_iter().filter_map(|u| f.class_of(u)) {
                        if clobbered.contains(&class) {
                            pressure[class.index()] += 1;
                            census.graph_entries += 1;
                        }
                    }
                }
                for (max, &now) in census.max_live.iter_mut().zip(&pressure) {
                    *max = (*max).max(now);
                }
            });
        }
        census
    }
}

/// Which pairs are joined: a bit matrix while it stays small, else a hash set.
#[derive(Clone)]
enum EdgeSet {
    Matrix { n: usize, bits: FixedBitSet },
    Pairs(FxHashSet<(VReg, VReg)>),
}

/// The most vregs for which the bit matrix (n * n bits, 8 MiB here) is used.
const MATRIX_LIMIT: usize = 8192;

impl EdgeSet {
    fn new(n: usize) -> Self {
        if n <= MATRIX_LIMIT {
            Self::Matrix { n, bits: FixedBitSet::with_capacity(n * n) }
        } else {
            Self::Pairs(FxHashSet::default())
        }
    }

    fn key(a: VReg, b: VReg) -> (VReg, VReg) {
        (a.min(b), a.max(b))
    }

    fn contains(&self, a: VReg, b: VReg) -> bool {
        let (lo, hi) = Self::key(a, b);
        match self {
            Self::Matrix { n, bits } => bits.contains(lo.index() * n + hi.index()),
            Self::Pairs(pairs) => pairs.contains(&(lo, hi)),
        }
    }

    /// Returns true if the pair was not there before.
    fn insert(&mut self, a: VReg, b: VReg) -> bool {
        let (lo, hi) = Self::key(a, b);
        match self {
            Self::Matrix { n, bits } => !bits.put(lo.index() * *n + hi.index()),
            Self::Pairs(pairs) => pairs.insert((lo, hi)),
        }
    }

    fn remove(&mut self, a: VReg, b: VReg) {
        let (lo, hi) = Self::key(a, b);
        match self {
            Self::Matrix { n, bits } => bits.set(lo.index() * *n + hi.index(), false),
            Self::Pairs(pairs) => {
                pairs.remove(&(lo, hi));
            }
        }
    }
}

impl InterferenceGraph {
    /// A graph with no edges.
    pub fn new(num_vregs: usize, num_classes: usize) -> Self {
        Self {
            adjacency: vec![Vec::new(); num_vregs],
            edges: EdgeSet::new(num_vregs),
            max_live: vec![0; num_classes],
            entries: 0,
        }
    }

    /// The graph of `f`, unless it would hold more than `limit` entries (an
    /// entry is one def meeting one live value of its class, the work and at
    /// most the memory the graph takes): then the census, which says how big
    /// it would be, so that the pass can take a graph-free path instead.
    pub fn build_within(
        f: &Function,
        liveness: &Liveness,
        limit: u64,
        implicit_defs: ImplicitDefs,
    ) -> Result<Self, Census> {
        let census = Census::take(f, liveness);
        if census.graph_entries > limit {
            return Err(census);
        }
        Ok(Self::build_with(f, liveness, census, implicit_defs))
    }

    /// The graph of `f`, however big.
    pub fn build(f: &Function, liveness: &Liveness) -> Self {
        Self::build_with(f, liveness, Census::take(f, liveness), ImplicitDefs::Write)
    }

    fn build_with(f: &Function, liveness: &Liveness, census: Census, implicit_defs: ImplicitDefs) -> Self {
        let _span = tracing::debug_span!("interference").entered();
        let mut graph = Self::new(f.num_vregs(), f.class_names.len());
        graph.max_live = census.max_live;
        graph.entries = census.graph_entries;
        let mut live = LiveSet::new(f);
        let stand_ins = match implicit_defs {
            ImplicitDefs::Vanish(stand_ins) => stand_ins,
            ImplicitDefs::Write => &StandIns::default(),
        };
        let values = Values::number(f, liveness, stand_ins);
        for b in f.block_ids() {
            walk_block_backward(f, liveness, b, &mut live, |i, live_after| {
                if matches!(implicit_defs, ImplicitDefs::Vanish(_)) && f.inst(i).kind == InstKind::ImplicitDef
                {
                    return;
                }
                let copied_value = f.copy_pair(i).map(|(d, _)| values.value_after(b, d, i));
                let defs: Vec<VReg> = f.defs(i).collect();
                for (n, &d) in defs.iter().enumerate() {
                    let Some(class) = f.class_of(d) else { continue };
                    for l in live_after.iter_class(class) {
                        if l != d && copied_value.is_none_or(|value| values.value_after(b, l, i) != value) {
                            graph.add_edge(d, l);
                        }
                    }
                    for &other in &defs[n + 1..] {
                        if other != d && f.class_of(other) == Some(class) {
                            graph.add_edge(d, other);
                        }
                    }
                }
                // An early-clobber or tied def is written while the uses are
                // still to be read, so it meets them even where they die here
                // (all but a tied def's own use, whose value it starts as).
                let ops = &f.inst(i).operands;
                for (d, tied) in f.written_before_reads(i) {
                    let shared = tied.filter(|_| !ops[d].is_early_clobber()).map(|t| ops[t].vreg);
                    let d = ops[d].vreg;
                    for u in f.uses(i) {
                        if u != d && Some(u) != shared && f.class_of(u) == f.class_of(d) {
                            graph.add_edge(d, u);
                        }
                    }
                }
            });
        }
        tracing::debug!(edges = graph.adjacency.iter().map(|a| a.len()).sum::<usize>() / 2, "built");
        graph
    }

    pub fn add_edge(&mut self, a: VReg, b: VReg) {
        debug_assert_ne!(a, b);
        if self.edges.insert(a, b) {
            self.adjacency[a.index()].push(b);
            self.adjacency[b.index()].push(a);
        }
    }

    pub fn interferes(&self, a: VReg, b: VReg) -> bool {
        self.edges.contains(a, b)
    }

    pub fn neighbors(&self, v: VReg) -> impl Iterator<Item = VReg> + '_ {
        self.adjacency[v.index()].iter().copied()
    }

    pub fn num_vregs(&self) -> usize {
        self.adjacency.len()
    }

    pub fn degree(&self, v: VReg) -> usize {
        self.adjacency[v.index()].len()
    }

    /// Makes `into` stand for both nodes: `from`'s edges move to `into` and
    /// `from` is left without edges.
    pub fn merge(&mut self, into: VReg, from: VReg) {
        debug_assert!(!self.interferes(into, from));
        let moved = std::mem::take(&mut self.adjacency[from.index()]);
        for w in moved {
            self.edges.remove(from, w);
            self.adjacency[w.index()].retain(|&x| x != from);
            self.add_edge(into, w);
        }
    }

    pub fn max_live_of(&self, class: RegClass) -> u32 {
        self.max_live[class.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::function::{FunctionBuilder, InstKind};

    /// Two joins into `b3` of what `b1` and `b2` send, then one copy of
    /// each, both live: `p` and `q` copy `a` in `b1`; in `b2` `p` copies `c`
    /// and `q` copies what `q_source(c, x)` picks.
    fn two_joins(q_source: impl Fn(VReg, VReg) -> VReg) -> (InterferenceGraph, [VReg; 4]) {
        let mut b = FunctionBuilder::new("joins", &["B32"]);
        let class = RegClass::new(0);
        let [x, a, c, p, q, s, t] = [(); 7].map(|_| b.vreg(class));
        let b0 = b.block(0);
        b.inst(InstKind::Other, &[x], &[]);
        b.inst(InstKind::Terminator, &[], &[]);
        let b1 = b.block(0);
        b.inst(InstKind::Other, &[a], &[]);
        b.copy(p, a);
        b.copy(q, a);
        let b2 = b.block(0);
        b.inst(InstKind::Other, &[c], &[x]);
        b.copy(p, c);
        b.copy(q, q_source(c, x));
        let b3 = b.block(0);
        b.copy(s, p);
        b.copy(t, q);
        b.inst(InstKind::Other, &[], &[s, t]);
        for (from, to) in [(b0, b1), (b0, b2), (b1, b3), (b2, b3)] {
            b.edge(from, to);
        }
        let f = b.finish();
        (InterferenceGraph::build(&f, &Liveness::compute(&f)), [p, q, s, t])
    }

    #[test]
    fn copies_of_alike_joins_share_a_value_across_blocks() {
        let (graph, [p, q, s, t]) = two_joins(|c, _| c);
        assert!(!graph.interferes(p, q));
        assert!(!graph.interferes(s, t));
        assert!(!graph.interferes(s, q));
    }

    #[test]
    fn copies_of_joins_that_differ_on_one_path_interfere() {
        let (graph, [_, _, s, t]) = two_joins(|_, x| x);
        assert!(graph.interferes(s, t));
    }

    /// `a` and `b` start as different values and swap on every trip round
    /// the loop: whatever the joins at its head, they never hold one value.
    #[test]
    fn a_swap_round_a_loop_keeps_its_values_apart() {
        let mut b = FunctionBuilder::new("swap", &["B32"]);
        let class = RegClass::new(0);
        let [x, y, t] = [(); 3].map(|_| b.vreg(class));
        let entry = b.block(0);
        b.inst(InstKind::Other, &[x], &[]);
        b.inst(InstKind::Other, &[y], &[]);
        let head = b.block(1);
        b.inst(InstKind::Other, &[], &[x, y]);
        let latch = b.block(1);
        b.copy(t, x);
        b.copy(x, y);
        b.copy(y, t);
        let exit = b.block(0);
        b.inst(InstKind::Other, &[], &[x, y]);
        for (from, to) in [(entry, head), (head, latch), (latch, head), (head, exit)] {
            b.edge(from, to);
        }
        let f = b.finish();
        let graph = InterferenceGraph::build(&f, &Liveness::compute(&f));
        assert!(graph.interferes(x, y));
    }

    /// `r = COPY x` twice, with `r` and `x` live in between: the second
    /// writes what `r` holds already, unless `x` changed in between.
    fn copy_twice(redefine_x: bool) -> (Function, Inst) {
        let mut b = FunctionBuilder::new("held", &["B32"]);
        let class = RegClass::new(0);
        let [x, r] = [(); 2].map(|_| b.vreg(class));
        let head = b.block(0);
        b.inst(InstKind::Other, &[x], &[]);
        b.copy(r, x);
        b.inst(InstKind::Terminator, &[], &[]);
        let tail = b.block(0);
        b.inst(InstKind::Other, &[], &[r, x]);
        if redefine_x {
            b.inst(InstKind::Other, &[x], &[x]);
        }
        let second = b.copy(r, x);
        b.inst(InstKind::Other, &[], &[r, x]);
        b.edge(head, tail);
        (b.finish(), second)
    }

    #[test]
    fn a_copy_of_a_value_its_destination_holds_is_found() {
        let (f, second) = copy_twice(false);
        assert_eq!(copies_of_held_values(&f), vec![second]);
        let (f, _) = copy_twice(true);
        assert!(copies_of_held_values(&f).is_empty());
    }
}

//! The interference graph: an edge joins two vregs of the same class when one
//! is written while the other holds a *different* value that may still be
//! read. Values are numbered through copies within each block: a copy's
//! destination holds its source's value, so it interferes neither with the
//! source nor with other copies of that value still live (the loop-latch
//! pattern `a = COPY x; ...; b = COPY x` with `a` and `b` both live out).
//! At a block's entry every live vreg is taken to hold a value of its own,
//! which is what keeps this sound without a global analysis.

use fixedbitset::FixedBitSet;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::function::{Block, Function, Inst, RegClass, VReg};
use crate::liveness::{walk_block_backward, LiveSet, Liveness};

/// Value numbers within one block: which defs copy which values.
struct BlockValues {
    /// For each vreg defined in the block: (instruction, value) per def, in order.
    defs: FxHashMap<VReg, Vec<(Inst, u64)>>,
}

impl BlockValues {
    /// A value nothing else holds: the one `v` brings into the block.
    fn entry_value(v: VReg) -> u64 {
        (1 << 63) | v.0 as u64
    }

    fn number(f: &Function, b: Block) -> Self {
        let mut values = Self { defs: FxHashMap::default() };
        let mut next = 0u64;
        for i in f.block_insts(b) {
            let copied = f.copy_pair(i).map(|(_, src)| values.value_before(src, i));
            for d in f.defs(i) {
                let value = copied.unwrap_or_else(|| {
                    next += 1;
                    next
                });
                values.defs.entry(d).or_default().push((i, value));
            }
        }
        values
    }

    /// The value `v` holds just before instruction `i`.
    fn value_before(&self, v: VReg, i: Inst) -> u64 {
        self.defs
            .get(&v)
            .and_then(|defs| defs.iter().rev().find(|&&(at, _)| at < i))
            .map_or(Self::entry_value(v), |&(_, value)| value)
    }

    /// The value `v` holds just after instruction `i`.
    fn value_after(&self, v: VReg, i: Inst) -> u64 {
        self.value_before(v, Inst(i.0 + 1))
    }
}

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
    pub fn build_within(f: &Function, liveness: &Liveness, limit: u64) -> Result<Self, Census> {
        let census = Census::take(f, liveness);
        if census.graph_entries > limit {
            return Err(census);
        }
        Ok(Self::build_with(f, liveness, census))
    }

    /// The graph of `f`, however big.
    pub fn build(f: &Function, liveness: &Liveness) -> Self {
        Self::build_with(f, liveness, Census::take(f, liveness))
    }

    fn build_with(f: &Function, liveness: &Liveness, census: Census) -> Self {
        let _span = tracing::debug_span!("interference").entered();
        let mut graph = Self::new(f.num_vregs(), f.class_names.len());
        graph.max_live = census.max_live;
        graph.entries = census.graph_entries;
        let mut live = LiveSet::new(f);
        for b in f.block_ids() {
            let values = BlockValues::number(f, b);
            walk_block_backward(f, liveness, b, &mut live, |i, live_after| {
                let copied_value = f.copy_pair(i).map(|(d, _)| values.value_after(d, i));
                let defs: Vec<VReg> = f.defs(i).collect();
                for (n, &d) in defs.iter().enumerate() {
                    let Some(class) = f.class_of(d) else { continue };
                    for l in live_after.iter_class(class) {
                        if l != d && copied_value.is_none_or(|value| values.value_after(l, i) != value) {
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

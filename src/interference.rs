//! The interference graph: an edge joins two vregs of the same class when one
//! is written while the other holds a value that may still be read. The
//! destination of a copy does not interfere with its source at that copy (the
//! two hold the same value), which is what lets copies be coalesced.

use rustc_hash::FxHashSet;

use crate::function::{Function, RegClass, VReg};
use crate::liveness::{walk_block_backward, LiveSet, Liveness};

pub struct InterferenceGraph {
    adjacency: Vec<FxHashSet<VReg>>,
    /// Per class: the most values of that class live at one point (the
    /// register pressure). No coloring of the graph can use fewer registers,
    /// except where copies let two live values share one.
    pub max_live: Vec<u32>,
}

impl InterferenceGraph {
    pub fn build(f: &Function, liveness: &Liveness) -> Self {
        let mut graph = Self {
            adjacency: vec![FxHashSet::default(); f.num_vregs()],
            max_live: vec![0; f.class_names.len()],
        };
        let mut live = LiveSet::new(f.num_vregs());
        let mut pressure = vec![0u32; f.class_names.len()];
        for b in f.block_ids() {
            walk_block_backward(f, liveness, b, &mut live, |i, live_after| {
                let copy_source = f.copy_pair(i).map(|(_, src)| src);
                let defs: Vec<VReg> = f.defs(i).collect();
                for (n, &d) in defs.iter().enumerate() {
                    let Some(class) = f.class_of(d) else { continue };
                    for l in live_after.iter() {
                        if l != d && Some(l) != copy_source && f.class_of(l) == Some(class) {
                            graph.add_edge(d, l);
                        }
                    }
                    for &other in &defs[n + 1..] {
                        if other != d && f.class_of(other) == Some(class) {
                            graph.add_edge(d, other);
                        }
                    }
                }
                pressure.fill(0);
                for v in live_after
                    .iter()
                    .chain(defs.iter().copied().filter(|d| !live_after.contains(*d)))
                {
                    if let Some(c) = f.class_of(v) {
                        pressure[c.index()] += 1;
                    }
                }
                for (max, &now) in graph.max_live.iter_mut().zip(&pressure) {
                    *max = (*max).max(now);
                }
            });
        }
        graph
    }

    pub fn add_edge(&mut self, a: VReg, b: VReg) {
        debug_assert_ne!(a, b);
        if self.adjacency[a.index()].insert(b) {
            self.adjacency[b.index()].insert(a);
        }
    }

    pub fn interferes(&self, a: VReg, b: VReg) -> bool {
        self.adjacency[a.index()].contains(&b)
    }

    pub fn neighbors(&self, v: VReg) -> impl Iterator<Item = VReg> + '_ {
        self.adjacency[v.index()].iter().copied()
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
            self.adjacency[w.index()].remove(&from);
            self.add_edge(into, w);
        }
    }

    pub fn max_live_of(&self, class: RegClass) -> u32 {
        self.max_live[class.index()]
    }
}

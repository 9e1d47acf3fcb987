//! Briggs optimistic coloring with copy-aware color choice.
//!
//! Simplify takes nodes off an indexed max-heap whose priority is infinite
//! for Briggs-safe nodes (fewer than K high-degree neighbours) and
//! `spill_cost / (degree * factor)` otherwise; ties go to the lower degree,
//! then the lower vreg number. Move-related nodes that are not yet safe wait
//! in a FIFO freeze list; the rest wait in the spill list, from which the node
//! with the lowest `cost / (degree * factor)` is removed when nothing else can
//! be. Select then pops the stack and gives each node the color of a colored
//! copy partner if that color is free, else the lowest free color.
//!
//! With an unbounded palette (rename mode, `rename`) every node gets a color;
//! with a palette of N colors (`budget`) a node left without one is an
//! actual spill.

use std::cmp::Ordering;
use std::collections::VecDeque;

use priority_queue::PriorityQueue;
use rustc_hash::FxBuildHasher;

use crate::coloring::{colors_per_class, Coloring};
use crate::function::{Function, VReg};
use crate::interference::InterferenceGraph;
use crate::options::Options;

type Heap<K> = PriorityQueue<VReg, K, FxBuildHasher>;

/// Simplify order: the greatest key is removed first.
#[derive(Clone, Copy, Debug)]
struct SimplifyKey {
    priority: f64,
    degree: u32,
    vreg: VReg,
}

impl Ord for SimplifyKey {
    fn cmp(&self, other: &Self) -> Ordering {
        self.priority
            .total_cmp(&other.priority)
            .then_with(|| other.degree.cmp(&self.degree))
            .then_with(|| other.vreg.cmp(&self.vreg))
    }
}
impl PartialOrd for SimplifyKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl PartialEq for SimplifyKey {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for SimplifyKey {}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    NotANode,
    /// In the graph, not yet put on a worklist (while the worklists are built).
    Pending,
    Simplify,
    Freeze,
    Spill,
    Removed,
}

pub struct Briggs<'a> {
    graph: &'a InterferenceGraph,
    options: &'a Options,
    cost: &'a [f64],
    degree: Vec<u32>,
    /// Neighbours still in the graph that are high-degree, kept up to date as
    /// degrees fall, so the Briggs test is O(1).
    high_neighbours: Vec<u32>,
    place: Vec<Place>,
    /// Copy partners that can still share a color (not frozen).
    partners: Vec<Vec<VReg>>,
    /// Every copy partner, frozen or not: select still prefers a partner's
    /// color when it is free, since that deletes the copy.
    copy_partners: Vec<Vec<VReg>>,
    simplify: Heap<SimplifyKey>,
    freeze: VecDeque<VReg>,
    spill: Heap<SimplifyKey>,
    stack: Vec<VReg>,
}

impl<'a> Briggs<'a> {
    /// `nodes` are the vregs to color; `copies` the (dst, src) pairs whose
    /// registers would like one color.
    pub fn new(
        graph: &'a InterferenceGraph,
        options: &'a Options,
        cost: &'a [f64],
        nodes: &[VReg],
        copies: &[(VReg, VReg)],
    ) -> Self {
        let n = cost.len();
        let mut place = vec![Place::NotANode; n];
        let mut degree = vec![0; n];
        for &v in nodes {
            place[v.index()] = Place::Pending;
        }
        for &v in nodes {
            degree[v.index()] =
                graph.neighbors(v).filter(|w| place[w.index()] != Place::NotANode).count() as u32;
        }
        let mut partners = vec![Vec::new(); n];
        for &(d, s) in copies {
            let both_nodes = place[d.index()] != Place::NotANode && place[s.index()] != Place::NotANode;
            if d != s && both_nodes && !graph.interferes(d, s) && !partners[d.index()].contains(&s) {
                partners[d.index()].push(s);
                partners[s.index()].push(d);
            }
        }
        let high = |d: u32| options.is_high_degree(d as usize);
        let mut high_neighbours = vec![0; n];
        for &v in nodes {
            high_neighbours[v.index()] = graph
                .neighbors(v)
                .filter(|w| place[w.index()] != Place::NotANode && high(degree[w.index()]))
                .count() as u32;
        }
        let mut briggs = Self {
            graph,
            options,
            cost,
            degree,
            high_neighbours,
            place,
            copy_partners: partners.clone(),
            partners,
            simplify: Heap::default(),
            freeze: VecDeque::new(),
            spill: Heap::default(),
            stack: Vec::with_capacity(nodes.len()),
        };
        for &v in nodes {
            briggs.place_node(v);
        }
        briggs
    }

    fn is_high(&self, v: VReg) -> bool {
        self.options.is_high_degree(self.degree[v.index()] as usize)
    }

    fn in_graph(&self, v: VReg) -> bool {
        matches!(self.place[v.index()], Place::Pending | Place::Simplify | Place::Freeze | Place::Spill)
    }

    /// Fewer than K neighbours still in the graph are high-degree.
    fn briggs_safe(&self, v: VReg) -> bool {
        self.high_neighbours[v.index()] < self.options.k
    }

    fn key(&self, v: VReg, safe: bool) -> SimplifyKey {
        let degree = self.degree[v.index()];
        let priority = if safe {
            f64::INFINITY
        } else {
            self.cost[v.index()] / (f64::from(degree) * self.options.coalesce_factor).max(f64::MIN_POSITIVE)
        };
        SimplifyKey { priority, degree, vreg: v }
    }

    /// Spill order: the greatest key has the lowest cost per (effective) degree.
    fn spill_key(&self, v: VReg) -> SimplifyKey {
        let mut key = self.key(v, false);
        key.priority = -key.priority;
        key
    }

    fn move_related(&self, v: VReg) -> bool {
        !self.partners[v.index()].is_empty()
    }

    fn place_node(&mut self, v: VReg) {
        if self.briggs_safe(v) {
            self.place[v.index()] = Place::Simplify;
            self.simplify.push(v, self.key(v, true));
        } else if self.move_related(v) {
            self.place[v.index()] = Place::Freeze;
            self.freeze.push_back(v);
        } else {
            self.place[v.index()] = Place::Spill;
            self.spill.push(v, self.spill_key(v));
        }
    }

    /// A neighbour lost an edge: update its key, or promote it to simplify.
    fn reconsider(&mut self, w: VReg) {
        match self.place[w.index()] {
            Place::Simplify => {
                // Safe stays safe as degrees fall; only the tie-break moves.
                let key = self.key(w, true);
                self.simplify.change_priority(&w, key);
            }
            Place::Freeze | Place::Spill if self.briggs_safe(w) => {
                if self.place[w.index()] == Place::Spill {
                    self.spill.remove(&w);
                } // a stale freeze entry is skipped when dequeued
                self.place[w.index()] = Place::Simplify;
                self.simplify.push(w, self.key(w, true));
            }
            Place::Spill => {
                let key = self.spill_key(w);
                self.spill.change_priority(&w, key);
            }
            _ => {}
        }
    }

    fn remove(&mut self, v: VReg) {
        let v_was_high = self.is_high(v);
        self.place[v.index()] = Place::Removed;
        self.stack.push(v);
        let graph = self.graph;
        for w in graph.neighbors(v) {
            if !self.in_graph(w) {
                continue;
            }
            if v_was_high {
                self.high_neighbours[w.index()] -= 1;
            }
            let w_was_high = self.is_high(w);
            self.degree[w.index()] -= 1;
            if w_was_high && !self.is_high(w) {
                // w stops counting as high-degree for its other neighbours.
                for x in graph.neighbors(w) {
                    if self.in_graph(x) {
                        self.high_neighbours[x.index()] -= 1;
                        self.reconsider(x);
                    }
                }
            }
            self.reconsider(w);
        }
    }

    /// Gives up on sharing a color between `v` and its copy partners.
    fn freeze_moves(&mut self, v: VReg) {
        for p in std::mem::take(&mut self.partners[v.index()]) {
            self.partners[p.index()].retain(|&q| q != v);
            if self.place[p.index()] == Place::Freeze && !self.move_related(p) {
                self.place[p.index()] = Place::Spill;
                self.spill.push(p, self.spill_key(p));
            }
        }
    }

    /// Runs simplify/freeze/spill to an empty graph, then select.
    /// `palette`: colors per class, `None` for unbounded.
    pub fn run(mut self, palette: Option<u32>) -> Coloring {
        let _span = tracing::debug_span!("briggs").entered();
        let optimistic = self.simplify();
        tracing::debug!(optimistic, "spill candidates removed optimistically");
        self.select(palette)
    }

    /// Empties the graph onto the stack; returns how many nodes were removed
    /// as (optimistic) spill candidates.
    fn simplify(&mut self) -> usize {
        let mut optimistic = 0;
        loop {
            if let Some((v, _)) = self.simplify.pop() {
                self.remove(v);
            } else if let Some(v) = self.freeze.pop_front() {
                if self.place[v.index()] != Place::Freeze {
                    continue;
                }
                self.freeze_moves(v);
                if (self.degree[v.index()] as usize) < self.options.k as usize {
                    self.place[v.index()] = Place::Simplify;
                    self.simplify.push(v, self.key(v, true));
                } else {
                    self.place[v.index()] = Place::Spill;
                    self.spill.push(v, self.spill_key(v));
                }
            } else if let Some((v, _)) = self.spill.pop() {
                optimistic += 1;
                self.freeze_moves(v);
                self.remove(v);
            } else {
                break;
            }
        }
        optimistic
    }

    fn select(self, palette: Option<u32>) -> Coloring {
        let mut color: Vec<Option<u32>> = vec![None; self.cost.len()];
        let mut spilled = Vec::new();
        let mut taken: Vec<bool> = Vec::new();
        for &v in self.stack.iter().rev() {
            taken.clear();
            for w in self.graph.neighbors(v) {
                if let Some(c) = color[w.index()] {
                    let c = c as usize;
                    if taken.len() <= c {
                        taken.resize(c + 1, false);
                    }
                    taken[c] = true;
                }
            }
            let free = |c: u32| !taken.get(c as usize).copied().unwrap_or(false);
            let fits = |c: u32| palette.is_none_or(|n| c < n);
            let biased = self.copy_partners[v.index()]
                .iter()
                .filter_map(|p| color[p.index()])
                .find(|&c| free(c) && fits(c));
            let chosen = biased.or_else(|| (0..).find(|&c| free(c)).filter(|&c| fits(c)));
            match chosen {
                Some(c) => color[v.index()] = Some(c),
                None => spilled.push(v),
            }
        }
        Coloring { color, spilled }
    }
}

/// Rename mode wants the fewest registers, and MaxLive bounds that from
/// below. Where Briggs's removal order leaves a class above MaxLive, a greedy
/// coloring in maximum-cardinality-search order (optimal on chordal graphs,
/// which interference graphs of SSA-derived code nearly are) is tried too,
/// and the class keeps whichever coloring uses fewer colors.
pub fn improve_classes_above_max_live(
    f: &Function,
    graph: &InterferenceGraph,
    nodes: &[VReg],
    copies: &[(VReg, VReg)],
    coloring: &mut Coloring,
) {
    let briggs_colors = colors_per_class(f, coloring);
    let above: Vec<bool> = briggs_colors.iter().zip(&graph.max_live).map(|(c, m)| c > m).collect();
    if !above.contains(&true) {
        return;
    }
    adopt_greedy_classes(f, graph, nodes, copies, coloring, |class, briggs, greedy| {
        above[class] && greedy < briggs
    });
}

/// Colors the classes `adopt(class, colors Briggs used, colors MCS greedy
/// used)` picks with `mcs_greedy` instead; returns which classes it picked.
pub fn adopt_greedy_classes(
    f: &Function,
    graph: &InterferenceGraph,
    nodes: &[VReg],
    copies: &[(VReg, VReg)],
    coloring: &mut Coloring,
    adopt: impl Fn(usize, u32, u32) -> bool,
) -> Vec<bool> {
    let greedy = Coloring { color: mcs_greedy(graph, nodes, copies), spilled: Vec::new() };
    let briggs_colors = colors_per_class(f, coloring);
    let greedy_colors = colors_per_class(f, &greedy);
    let adopted: Vec<bool> =
        (0..f.class_names.len()).map(|c| adopt(c, briggs_colors[c], greedy_colors[c])).collect();
    for &v in nodes {
        if adopted[f.class_of(v).expect("nodes have classes").index()] {
            coloring.color[v.index()] = greedy.color[v.index()];
        }
    }
    adopted
}

/// Greedy coloring in maximum-cardinality-search order: each step colors the
/// uncolored node with the most colored neighbours, taking a copy partner's
/// color when it is free and already in use, else the lowest free color.
pub fn mcs_greedy(graph: &InterferenceGraph, nodes: &[VReg], copies: &[(VReg, VReg)]) -> Vec<Option<u32>> {
    let n = graph.num_vregs();
    let mut is_node = vec![false; n];
    for &v in nodes {
        is_node[v.index()] = true;
    }
    let mut partners = vec![Vec::new(); n];
    for &(d, s) in copies {
        if is_node[d.index()] && is_node[s.index()] && d != s {
            partners[d.index()].push(s);
            partners[s.index()].push(d);
        }
    }
    let mut weight = vec![0usize; n];
    let mut buckets: Vec<Vec<VReg>> = vec![nodes.iter().rev().copied().collect()];
    let mut color: Vec<Option<u32>> = vec![None; n];
    let mut top = 0;
    let mut used = 0u32;
    let mut taken = Vec::new();
    let mut remaining = nodes.len();
    while remaining > 0 {
        let Some(v) = buckets[top].pop() else {
            top -= 1;
            continue;
        };
        if color[v.index()].is_some() || weight[v.index()] != top {
            continue; // stale entry
        }
        taken.clear();
        taken.resize(used as usize + 1, false);
        for w in graph.neighbors(v) {
            if let Some(c) = color[w.index()] {
                taken[c as usize] = true;
            }
        }
        let partner_color =
            partners[v.index()].iter().filter_map(|p| color[p.index()]).find(|&c| !taken[c as usize]);
        let c = partner_color.unwrap_or_else(|| (0..).find(|&c| !taken[c as usize]).expect("a free color"));
        color[v.index()] = Some(c);
        used = used.max(c + 1);
        remaining -= 1;
        for w in graph.neighbors(v) {
            if is_node[w.index()] && color[w.index()].is_none() {
                weight[w.index()] += 1;
                let bucket = weight[w.index()];
                if buckets.len() <= bucket {
                    buckets.resize(bucket + 1, Vec::new());
                }
                buckets[bucket].push(w);
                top = top.max(bucket);
            }
        }
    }
    color
}

#[cfg(test)]
mod tests {
    use super::*;
    fn graph(n: u32, edges: &[(u32, u32)]) -> (InterferenceGraph, Vec<VReg>) {
        let mut g = InterferenceGraph::new(n as usize, 1);
        for &(a, b) in edges {
            g.add_edge(VReg(a), VReg(b));
        }
        (g, (0..n).map(VReg).collect())
    }

    fn removal_order(g: &InterferenceGraph, nodes: &[VReg], cost: &[f64], options: &Options) -> Vec<u32> {
        let mut briggs = Briggs::new(g, options, cost, nodes, &[]);
        briggs.simplify();
        briggs.stack.iter().map(|v| v.0).collect()
    }

    #[test]
    fn safe_nodes_leave_lowest_degree_first_then_lowest_vreg() {
        // A star around 0 plus an edge 3-4: degrees 0:4, 1:1, 2:1, 3:2, 4:2.
        let (g, nodes) = graph(5, &[(0, 1), (0, 2), (0, 3), (0, 4), (3, 4)]);
        let order = removal_order(&g, &nodes, &[1.0; 5], &Options::default());
        // 1 and 2 tie at degree 1 (1 first); removing 1 and 2 drops 0 to
        // degree 2, tying with 3 and 4: vreg 0 first, then 3 (degree 1), 4.
        assert_eq!(order, [1, 2, 0, 3, 4]);
    }

    #[test]
    fn a_stuck_graph_gives_up_the_node_with_the_lowest_cost_per_degree() {
        // K = 2 with factor 1.0 on a 4-clique: nothing is Briggs-safe.
        let (g, nodes) = graph(4, &[(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]);
        let options = Options { k: 2, coalesce_factor: 1.0, ..Options::default() };
        let order = removal_order(&g, &nodes, &[8.0, 2.0, 9.0, 7.0], &options);
        assert_eq!(order[0], 1);
    }

    #[test]
    fn optimism_colors_a_square_in_two_colors_without_spilling() {
        // A 4-cycle with K = 2 and factor 1.0: every neighbour is high-degree,
        // so simplify must push a spill candidate, yet two colors suffice.
        let (g, nodes) = graph(4, &[(0, 1), (1, 2), (2, 3), (3, 0)]);
        let options = Options { k: 2, coalesce_factor: 1.0, ..Options::default() };
        let mut briggs = Briggs::new(&g, &options, &[1.0; 4], &nodes, &[]);
        assert!(briggs.simplify() >= 1);
        let coloring = briggs.select(Some(2));
        assert!(coloring.spilled.is_empty());
        assert!(coloring.color.iter().all(|c| c.is_some_and(|c| c < 2)));
    }

    #[test]
    fn a_triangle_in_two_colors_spills_one_node() {
        let (g, nodes) = graph(3, &[(0, 1), (1, 2), (2, 0)]);
        let options = Options { k: 2, ..Options::default() };
        let coloring = Briggs::new(&g, &options, &[1.0; 3], &nodes, &[]).run(Some(2));
        assert_eq!(coloring.spilled.len(), 1);
    }

    #[test]
    fn copy_partners_share_a_free_color() {
        // 0 and 1 interfere; 2 is a copy of 0 that interferes with 1 only:
        // lowest-free would also give 2 color 0, so make 3 copy-related to 1
        // and interfere with 0: it must take 1's color, not the lowest.
        let (g, nodes) = graph(4, &[(0, 1), (1, 2), (0, 3)]);
        let coloring = Briggs::new(
            &g,
            &Options::default(),
            &[1.0; 4],
            &nodes,
            &[(3, 1)].map(|(a, b)| (VReg(a), VReg(b))),
        )
        .run(None);
        assert_eq!(coloring.color[3], coloring.color[1]);
        assert_ne!(coloring.color[0], coloring.color[1]);
    }

    #[test]
    fn mcs_greedy_colors_an_interval_graph_with_its_clique_number() {
        // Intervals [0,2) [1,3) [2,4) [3,5) [0,5): max clique 3.
        let (g, nodes) = graph(5, &[(0, 1), (1, 2), (2, 3), (4, 0), (4, 1), (4, 2), (4, 3)]);
        let colors = mcs_greedy(&g, &nodes, &[]);
        assert_eq!(colors.iter().flatten().max(), Some(&2));
    }
}

//! Graph-free coloring, for functions whose interference graph would be too
//! big to build (`-nvregalloc-graph-limit`): thousands of values live at
//! once make the graph quadratic, while their live ranges stay linear.
//!
//! Each vreg's live range is widened to its hull, one interval over the
//! instructions in layout order, and the hulls are colored by a sweep in
//! order of their starts: a hull whose end has passed gives its color back,
//! and a new hull takes the color its copy source just gave back if it can
//! (deleting the copy), else the lowest free one. Interval graphs are colored
//! optimally this way, so a class needs exactly as many colors as hulls
//! overlap at one point: MaxLive wherever live ranges are intervals (straight
//! code, unrolled tiles, reductions), more where a hull spans a hole in a
//! live range (a loop-carried value, a value live on one arm of a branch).
//!
//! Two vregs that interfere have overlapping hulls: an instruction `i` reads
//! at point `2i` and writes at `2i + 1`, a value live into a block occupies
//! the block's first point and one live out of it the block's last, so a def
//! and a value live after it share the def's point. A value read for the last
//! time by the instruction that defines another may share its register, as in
//! any allocator, unless that def is early-clobber (inline assembly's `=&r`),
//! which is written at its instruction's read point.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

use crate::coloring::Coloring;
use crate::function::{Function, Inst, VReg};
use crate::liveness::Liveness;

/// Colors every vreg in `nodes` (vregs with a class): at most as many colors
/// per class as hulls of that class overlap at one point.
pub fn color(f: &Function, liveness: &Liveness, nodes: &[VReg]) -> Coloring {
    let _span = tracing::debug_span!("linear scan").entered();
    let (start, end) = hulls(f, liveness);
    // The copy each vreg's hull starts with: its source's color is the one to reuse.
    let mut hint: Vec<Option<VReg>> = vec![None; f.num_vregs()];
    for i in (0..f.insts.len()).map(Inst::new) {
        if let Some((d, s)) = f.copy_pair(i) {
            if start[d.index()] == 2 * i.0 + 1 {
                hint[d.index()] = Some(s);
            }
        }
    }

    let mut order: Vec<VReg> = nodes.to_vec();
    order.sort_unstable_by_key(|v| (start[v.index()], v.0));
    let mut color: Vec<Option<u32>> = vec![None; f.num_vregs()];
    let mut free: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); f.class_names.len()];
    let mut used = vec![0u32; f.class_names.len()];
    let mut active: BinaryHeap<Reverse<(u32, VReg)>> = BinaryHeap::new();
    for v in order {
        while let Some(&Reverse((last, w))) = active.peek() {
            if last >= start[v.index()] {
                break;
            }
            active.pop();
            let class = f.class_of(w).expect("nodes have classes").index();
            free[class].insert(color[w.index()].expect("active vregs are colored"));
        }
        let class = f.class_of(v).expect("nodes have classes").index();
        let hinted = hint[v.index()].and_then(|s| color[s.index()]).filter(|c| free[class].remove(c));
        let c = hinted.or_else(|| free[class].pop_first()).unwrap_or_else(|| {
            used[class] += 1;
            used[class] - 1
        });
        color[v.index()] = Some(c);
        active.push(Reverse((end[v.index()], v)));
    }
    Coloring { color, spilled: Vec::new() }
}

/// Each vreg's hull as (first point, last point), both inclusive; a vreg no
/// instruction touches gets an empty hull (`u32::MAX`, 0).
fn hulls(f: &Function, liveness: &Liveness) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![u32::MAX; f.num_vregs()];
    let mut end = vec![0u32; f.num_vregs()];
    let mut cover = |v: VReg, point: u32| {
        start[v.index()] = start[v.index()].min(point);
        end[v.index()] = end[v.index()].max(point);
    };
    for b in f.block_ids() {
        let data = f.block(b);
        let first = 2 * data.first_inst;
        // An empty block is the one point where its live values meet.
        let last = (2 * (data.first_inst + data.num_insts)).saturating_sub(1).max(first);
        for &v in &liveness.live_in[b.index()] {
            cover(v, first);
        }
        for &v in &liveness.live_out[b.index()] {
            cover(v, last);
        }
    }
    for (i, data) in f.insts.iter().enumerate() {
        let early: Vec<usize> = f.written_before_reads(Inst::new(i)).map(|(d, _)| d).collect();
        for (k, o) in data.operands.iter().enumerate() {
            // An early-clobber or tied def is written at the point its uses
            // are read.
            cover(o.vreg, 2 * i as u32 + u32::from(o.is_def() && !early.contains(&k)));
        }
    }
    (start, end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::function::{FunctionBuilder, InstKind, RegClass};

    /// A straight block loads `n` values, then adds them up one by one: all
    /// `n` are live at once, and the sum reuses the register of each value
    /// it consumes.
    fn reduction(n: usize) -> Function {
        let mut b = FunctionBuilder::new("reduction", &["B32"]);
        let c = RegClass(0);
        b.block(0);
        let values: Vec<VReg> = (0..n).map(|_| b.vreg(c)).collect();
        for &v in &values {
            b.inst(InstKind::Other, &[v], &[]);
        }
        let mut sum = values[0];
        for &v in &values[1..] {
            let next = b.vreg(c);
            b.inst(InstKind::Other, &[next], &[sum, v]);
            sum = next;
        }
        b.inst(InstKind::Other, &[], &[sum]);
        b.finish()
    }

    #[test]
    fn a_straight_reduction_takes_max_live_colors_and_passes_the_checker() {
        let f = reduction(64);
        let liveness = Liveness::compute(&f);
        let nodes = crate::coloring::referenced_vregs(&f);
        let coloring = color(&f, &liveness, &nodes);
        assert_eq!(crate::coloring::colors_per_class(&f, &coloring), [64]);
        let census = crate::interference::Census::take(&f, &liveness);
        assert_eq!(census.max_live, [64]);
        let mut rewrite = crate::rewrite::Rewrite::identity(f.num_vregs());
        rewrite.rename = crate::coloring::color_representatives(&f, &coloring);
        crate::checker::check(&f, &rewrite).expect("the checker approves");
    }

    #[test]
    fn a_copy_takes_the_register_its_source_gives_back() {
        let mut b = FunctionBuilder::new("copy", &["B32"]);
        let c = RegClass(0);
        b.block(0);
        let (w, x, y) = (b.vreg(c), b.vreg(c), b.vreg(c));
        b.inst(InstKind::Other, &[w], &[]);
        b.inst(InstKind::Other, &[x], &[]);
        b.inst(InstKind::Other, &[], &[w]);
        b.copy(y, x);
        b.inst(InstKind::Other, &[], &[y]);
        let f = b.finish();
        let liveness = Liveness::compute(&f);
        let coloring = color(&f, &liveness, &crate::coloring::referenced_vregs(&f));
        // At the copy both w's color (0, the lowest) and x's (1) are free:
        // y takes x's, and the copy joins one register.
        assert_eq!(coloring.color[x.index()], Some(1));
        assert_eq!(coloring.color[y.index()], Some(1));
    }
}

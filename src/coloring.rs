//! What a coloring is, and the figures read off one: a leaf that the
//! colorers (`color`'s Briggs, `linear_scan`), their users and the DOT output
//! share.

use crate::function::{Function, RegClass, VReg};
use crate::rewrite::{stat_name, Rewrite, Stat};

/// The outcome of coloring: a color per node (`None`: not a node, or an
/// actual spill under a bounded palette), and those actual spills.
pub struct Coloring {
    pub color: Vec<Option<u32>>,
    pub spilled: Vec<VReg>,
}

/// The vregs a function references, by class.
pub fn referenced_vregs(f: &Function) -> Vec<VReg> {
    let mut seen = vec![false; f.num_vregs()];
    for data in &f.insts {
        for o in &data.operands {
            seen[o.vreg.index()] = true;
        }
    }
    seen.iter()
        .enumerate()
        .filter(|&(v, &s)| s && f.vreg_class[v].is_some())
        .map(|(v, _)| VReg::new(v))
        .collect()
}

/// Colors used per class.
pub fn colors_per_class(f: &Function, coloring: &Coloring) -> Vec<u32> {
    let mut used = vec![0u32; f.class_names.len()];
    for (v, c) in coloring.color.iter().enumerate() {
        if let (Some(c), Some(class)) = (c, f.vreg_class[v]) {
            used[class.index()] = used[class.index()].max(c + 1);
        }
    }
    used
}
/// One vreg per (class, color): the lowest-numbered vreg with that color.
pub fn color_representatives(f: &Function, coloring: &Coloring) -> Vec<VReg> {
    let mut rep: rustc_hash::FxHashMap<(RegClass, u32), VReg> = Default::default();
    let mut rename: Vec<VReg> = (0..f.num_vregs()).map(VReg::new).collect();
    for (v, c) in coloring.color.iter().enumerate() {
        if let (Some(c), Some(class)) = (*c, f.vreg_class[v]) {
            rename[v] = *rep.entry((class, c)).or_insert(VReg::new(v));
        }
    }
    rename
}
/// Figures of a coloring of `f`, overall and per class.
pub fn coloring_stats(
    f: &Function,
    max_live: &[u32],
    nodes: &[VReg],
    coloring: &Coloring,
    rewrite: &Rewrite,
) -> Vec<crate::rewrite::Stat> {
    let colors = colors_per_class(f, coloring);
    let mut vregs = vec![0u32; f.class_names.len()];
    for v in nodes {
        vregs[f.class_of(*v).expect("nodes have classes").index()] += 1;
    }
    let mut stats = [
        (c"vregs-before", nodes.len() as u64),
        (c"vregs-after", colors.iter().map(|&c| u64::from(c)).sum()),
        (c"max-live", max_live.iter().map(|&m| u64::from(m)).sum()),
        (c"copies-deleted", rewrite.deleted.len() as u64),
        (c"classes-above-max-live", colors.iter().zip(max_live).filter(|(c, m)| c > m).count() as u64),
    ]
    .map(|(name, value)| Stat { name, value })
    .to_vec();
    for (class, name) in f.class_names.iter().enumerate() {
        let figures = [("vregs", vregs[class]), ("colors", colors[class]), ("max-live", max_live[class])];
        for (prefix, value) in figures {
            stats.push(Stat { name: stat_name(&format!("{prefix}-{name}")), value: u64::from(value) });
        }
    }
    stats
}

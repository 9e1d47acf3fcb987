//! The rename-mode pass: every color becomes one PTX register. Briggs
//! (`color`) on the interference graph while it stays within
//! `-nvregalloc-graph-limit`, else the graph-free sweep over live ranges
//! (`linear_scan`); then the registers that must keep to themselves are
//! given their own.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::color::{improve_classes_above_max_live, Briggs};
use crate::coloring::{color_representatives, coloring_stats, colors_per_class, referenced_vregs, Coloring};
use crate::function::{Block, Function, Inst, RegClass, VReg};
use crate::interference::{ImplicitDefs, InterferenceGraph};
use crate::liveness::Liveness;
use crate::options::Options;
use crate::rewrite::{Method, PassOutcome, PhaseTimes, Rewrite, Stat};

/// Renames `f`'s registers to one per color.
pub fn rename(f: &Function, options: &Options) -> PassOutcome {
    let mut phases = PhaseTimes::default();
    let liveness = phases.time("liveness", || Liveness::compute(f));
    let built = phases.time("interference", || {
        InterferenceGraph::build_within(f, &liveness, options.graph_limit, ImplicitDefs::Write)
    });
    let nodes = referenced_vregs(f);
    let mut dot = None;
    let (mut coloring, max_live, entries, method) = match built {
        Ok(graph) => {
            let copies: Vec<(VReg, VReg)> =
                (0..f.insts.len()).filter_map(|i| f.copy_pair(Inst::new(i))).collect();
            let coloring = phases.time("briggs", || {
                let cost =
                    crate::spill_cost::spill_costs(f, crate::spill_cost::L1_LATENCY, options.loop_base);
                let mut coloring = Briggs::new(&graph, options, &cost, &nodes, &copies).run(None);
                improve_classes_above_max_live(f, &graph, &nodes, &copies, &mut coloring);
                coloring
            });
            dot =
                options.outputs.dot_dir.is_some().then(|| crate::dot::render(f, &graph, &coloring, &copies));
            (coloring, graph.max_live, graph.entries, Method::Graph)
        }
        Err(census) => {
            let coloring = phases.time("linear scan", || crate::linear_scan::color(f, &liveness, &nodes));
            (coloring, census.max_live, census.graph_entries, Method::GraphFree)
        }
    };

    let undefined = if options.undefined_apart { f.undefined_values() } else { vec![false; f.num_vregs()] };
    let alone: Vec<bool> =
        f.frame_addresses().into_iter().zip(undefined).map(|(frame, undef)| frame || undef).collect();
    keep_alone(f, &alone, &mut coloring);
    if !options.reuse_within_block {
        keep_block_defs_apart(f, &mut coloring);
    }
    let mut rewrite = Rewrite::identity(f.num_vregs());
    rewrite.rename = color_representatives(f, &coloring);
    rewrite.deleted = rewrite.redundant_after_renaming(f);
    let mut stats = coloring_stats(f, &max_live, &nodes, &coloring, &rewrite);
    stats.push(Stat { name: c"graph-entries", value: entries });
    PassOutcome { rewrite, stats, phases, method: Some(method), dot, ..Default::default() }
}
/// Gives a vreg of `alone` a color of its own where another vreg's def
/// writes its color's register: frame addresses (see
/// `Function::frame_addresses`) and undefined values (see
/// `Function::undefined_values`). Taking a vreg out of a color class leaves
/// the rest of the class as valid as it was.
fn keep_alone(f: &Function, alone: &[bool], coloring: &mut Coloring) {
    if !alone.contains(&true) {
        return;
    }
    let mut rewrite = Rewrite::identity(f.num_vregs());
    rewrite.rename = color_representatives(f, coloring);
    rewrite.deleted = rewrite.redundant_after_renaming(f);
    // Per register: the first vreg seen writing it, and whether another does.
    let mut writer: Vec<Option<VReg>> = vec![None; f.num_vregs()];
    let mut shared = vec![false; f.num_vregs()];
    for i in (0..f.insts.len()).map(Inst::new).filter(|i| rewrite.deleted.binary_search(i).is_err()) {
        for d in f.defs(i) {
            let register = rewrite.renamed(d).index();
            match writer[register] {
                None => writer[register] = Some(d),
                Some(w) if w != d => shared[register] = true,
                Some(_) => {}
            }
        }
    }
    let mut next = colors_per_class(f, coloring);
    for v in (0..f.num_vregs()).filter(|&v| alone[v]) {
        let register = rewrite.rename[v];
        if let (Some(_), Some(class), true) = (coloring.color[v], f.vreg_class[v], shared[register.index()]) {
            coloring.color[v] = Some(next[class.index()]);
            next[class.index()] += 1;
        }
    }
}
/// Splits each color so that no block defines two of its vregs: the members
/// go, in vreg order, to the first part whose blocks defines none of theirs
/// (a new color when none fits). Any subset of a color class is a valid
/// class, so the coloring stays valid.
///
/// Why: ptxas re-allocates registers after scheduling within blocks, and a
/// PTX register reused in one block orders its defs and uses as they were
/// (false write-after-read and write-after-write dependences). On HeCBench's
/// 864 functions, ptxas needs more registers than stock for 8 with this rule
/// against 25 with MaxLive names, but only 1 gains a warp step (and 1 loses
/// one) against 5 (none lost): so it is an option
/// (`-nvregalloc-reuse-within-block=false`), not the default.
fn keep_block_defs_apart(f: &Function, coloring: &mut Coloring) {
    let mut def_blocks: Vec<Vec<Block>> = vec![Vec::new(); f.num_vregs()];
    for b in f.block_ids() {
        for i in f.block_insts(b) {
            for d in f.defs(i) {
                if def_blocks[d.index()].last() != Some(&b) {
                    def_blocks[d.index()].push(b);
                }
            }
        }
    }
    let mut next = colors_per_class(f, coloring);
    // A color and the blocks defining a member of it.
    type Part = (u32, FxHashSet<Block>);
    // Per (class, color): its parts.
    let mut parts: FxHashMap<(RegClass, u32), Vec<Part>> = FxHashMap::default();
    for (v, blocks) in def_blocks.iter().enumerate() {
        let (Some(c), Some(class)) = (coloring.color[v], f.vreg_class[v]) else { continue };
        let parts = parts.entry((class, c)).or_default();
        let color = match parts.iter_mut().find(|(_, defined)| blocks.iter().all(|b| !defined.contains(b))) {
            Some((color, defined)) => {
                defined.extend(blocks.iter().copied());
                *color
            }
            None => {
                let color = if parts.is_empty() {
                    c
                } else {
                    next[class.index()] += 1;
                    next[class.index()] - 1
                };
                parts.push((color, blocks.iter().copied().collect()));
                color
            }
        };
        coloring.color[v] = Some(color);
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    /// A frame address, and an undefined value, dead after its one use shares
    /// no register with the values defined after it, though one color would
    /// do for all of them.
    #[test]
    fn frame_addresses_and_undefined_values_keep_their_registers_to_themselves() {
        use crate::function::{FunctionBuilder, InstData, InstFlags, InstKind, Operand};
        for (kind, flags) in
            [(InstKind::Other, InstFlags::FRAME_ADDRESS), (InstKind::ImplicitDef, InstFlags::empty())]
        {
            let mut b = FunctionBuilder::new("alone", &["B64"]);
            let [alone, x, y] = std::array::from_fn(|_| b.vreg(RegClass(0)));
            b.block(0);
            b.inst_with(InstData { kind, flags, opcode: 0, operands: vec![Operand::def(alone)] });
            b.inst(InstKind::Other, &[], &[alone]);
            for v in [x, y] {
                b.inst(InstKind::Other, &[v], &[]);
                b.inst(InstKind::Other, &[], &[v]);
            }
            let f = b.finish();
            for graph_limit in [Options::default().graph_limit, 0] {
                let outcome = rename(&f, &Options { graph_limit, ..Options::default() });
                let rename = &outcome.rewrite.rename;
                assert_eq!(rename[x.index()], rename[y.index()], "{kind:?}, graph limit {graph_limit}");
                assert_ne!(rename[alone.index()], rename[x.index()], "{kind:?}, graph limit {graph_limit}");
                crate::checker::check(&f, &outcome.rewrite).unwrap();
            }
            if kind == InstKind::ImplicitDef {
                let shared = rename(&f, &Options { undefined_apart: false, ..Options::default() });
                assert_eq!(shared.rewrite.rename[alone.index()], shared.rewrite.rename[x.index()]);
            }
        }
    }

    /// x and y (one block) and z (the next) are each dead after one use: one
    /// color fits them all, and that is what reuse within a block (the
    /// default) gives; without it only values defined in different blocks
    /// share (x or y with z).
    #[test]
    fn values_defined_in_one_block_keep_apart_unless_reuse_is_asked_for() {
        use crate::function::{FunctionBuilder, InstKind};
        let mut b = FunctionBuilder::new("blocks", &["B32"]);
        let [x, y, z] = std::array::from_fn(|_| b.vreg(RegClass(0)));
        let first = b.block(0);
        for v in [x, y] {
            b.inst(InstKind::Other, &[v], &[]);
            b.inst(InstKind::Other, &[], &[v]);
        }
        let second = b.block(0);
        b.inst(InstKind::Other, &[z], &[]);
        b.inst(InstKind::Other, &[], &[z]);
        b.edge(first, second);
        let f = b.finish();
        let registers = |options: &Options| {
            let outcome = rename(&f, options);
            crate::checker::check(&f, &outcome.rewrite).unwrap();
            let mut r: Vec<VReg> = [x, y, z].iter().map(|&v| outcome.rewrite.renamed(v)).collect();
            r.sort();
            r.dedup();
            r.len()
        };
        assert_eq!(registers(&Options::default()), 1);
        assert_eq!(registers(&Options { reuse_within_block: false, ..Options::default() }), 2);
    }
}

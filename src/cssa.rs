//! CSSA coalescing: before PHI elimination, give a PHI's result and its
//! operands one register, so that the PHI can be deleted without the copies
//! PHI elimination would make (one per operand into a fresh register, one
//! from it into the result).
//!
//! The function is in SSA form. Each vreg starts in a congruence class of its
//! own; PHIs are visited hottest block first, and for each one the result's
//! class absorbs every operand class that interferes with nothing in it. If
//! an operand interferes, the PHI is left whole to PHI elimination, whose
//! temporaries are always correct (the lost-copy and swap patterns included).
//!
//! (Sreedhar's method would give an interfering operand a copy at the end of
//! its predecessor instead; tried, it sequentialized rotations LLVM's
//! coalescer resolves and added final moves: docs/design.md, "CSSA coalescing".)
//!
//! Two more rules keep it from costing moves that stock would not, in the
//! two ways HeCBench showed (LLVM's PHI elimination and value-based
//! coalescer handle every PHI we leave): a PHI with a *twin* in its block
//! (the same value from every predecessor) is left, since one class per PHI
//! would give the two PHIs two registers; and so is a PHI whose join would
//! make a vreg interfere with a copy partner it could share a register with
//! before, since that partner's copy would then stay.
//!
//! Interference is the one the other passes use (`interference`), with the
//! liveness of SSA form: a PHI operand is live out of its predecessor only.
//! After the rewrite the function is no longer in SSA form (a class register
//! has several defs); the shim tells LLVM so.

use std::collections::hash_map::Entry;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::function::{Block, Function, Inst, VReg};
use crate::interference::{ImplicitDefs, InterferenceGraph};
use crate::liveness::Liveness;
use crate::options::Options;
use crate::rewrite::{Method, PassOutcome, Rewrite, Stat};
use crate::union_find::VRegSets;

/// One PHI: its result and, per predecessor, the operand read from it.
struct Phi {
    inst: Inst,
    block: Block,
    result: VReg,
    /// (predecessor, operand); `None`: an undef operand.
    incoming: Vec<(Block, Option<VReg>)>,
}

/// The congruence classes: vregs merged so far.
struct Classes {
    sets: VRegSets,
    members: Vec<Vec<VReg>>,
    /// The value each vreg holds: the start of its chain of copies. In SSA
    /// form a value never changes, so two vregs with one value may share a
    /// register even where both are live.
    value: Vec<VReg>,
}

impl Classes {
    fn new(f: &Function) -> Self {
        let num_vregs = f.num_vregs();
        Self {
            sets: VRegSets::new(num_vregs),
            members: (0..num_vregs).map(|v| vec![VReg::new(v)]).collect(),
            value: f.copy_origins(|_| true),
        }
    }

    fn root(&mut self, v: VReg) -> VReg {
        self.sets.find(v)
    }

    /// Whether class `class` may share a register with the classes `group`.
    fn fits(&mut self, graph: &InterferenceGraph, class: VReg, group: &[VReg]) -> bool {
        // Walk the smaller side's edges: one class can grow to most of a
        // long chain of PHIs.
        let group_size: usize = group.iter().map(|g| self.members[g.index()].len()).sum();
        let (walk, other): (Vec<VReg>, &[VReg]) = if self.members[class.index()].len() <= group_size {
            (vec![class], group)
        } else {
            (group.to_vec(), &[class])
        };
        for side in walk {
            // By index: `root` compresses paths, so it needs `self` mutably.
            for k in 0..self.members[side.index()].len() {
                let m = self.members[side.index()][k];
                for n in graph.neighbors(m) {
                    if self.value[m.index()] != self.value[n.index()] && other.contains(&self.root(n)) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// A copy partner that could share a register with its own member's
    /// class but no longer can once the classes `group` (roots) are one: the
    /// join would cost the copy between them, which stock would have removed.
    fn blocked_partner(
        &mut self,
        graph: &InterferenceGraph,
        group: &[VReg],
        partners: &[Vec<VReg>],
    ) -> Option<(VReg, VReg)> {
        for &g in group {
            for k in 0..self.members[g.index()].len() {
                let m = self.members[g.index()][k];
                for &p in &partners[m.index()] {
                    let theirs = self.root(p);
                    if !group.contains(&theirs)
                        && self.fits(graph, theirs, &[g])
                        && !self.fits(graph, theirs, group)
                    {
                        return Some((m, p));
                    }
                }
            }
        }
        None
    }

    /// Joins the classes `group` (roots); returns the new root.
    fn join(&mut self, group: &[VReg]) -> VReg {
        let mut root = group[0];
        for &other in &group[1..] {
            let (new_root, gone) = self.sets.union(root, other);
            let members = std::mem::take(&mut self.members[gone.index()]);
            self.members[new_root.index()].extend(members);
            root = new_root;
        }
        root
    }
}

fn phis(f: &Function) -> Vec<Phi> {
    let mut phis = Vec::new();
    for b in f.block_ids() {
        for i in f.phis(b) {
            let operands = &f.inst(i).operands;
            let Some(result) = operands.iter().find(|o| o.is_def()).map(|o| o.vreg) else { continue };
            let incoming = operands
                .iter()
                .filter(|o| !o.is_def())
                .filter_map(|o| o.incoming.map(|p| (p, o.reads().then_some(o.vreg))))
                .collect();
            phis.push(Phi { inst: i, block: b, result, incoming });
        }
    }
    phis
}

/// Which PHIs have a twin in their block: another PHI that takes the same
/// value from every predecessor (CUB's warp reductions carry a value and a
/// copy of it side by side through each stage). The two hold one value, and
/// LLVM's coalescer, joining by value, gives them one register; our classes,
/// one per PHI, would give them two and keep a copy between them, so twins
/// are left to PHI elimination. Twins of twins are twins too, hence the
/// rounds: a value is a copy's origin (`origin`, per vreg), or one PHI's
/// result for all its twins.
fn phis_with_twins(phis: &[Phi], origin: &[VReg]) -> Vec<bool> {
    let mut same = VRegSets::new(origin.len());
    let mut twin = vec![false; phis.len()];
    loop {
        let mut seen: FxHashMap<(Block, Vec<(Block, VReg)>), VReg> = FxHashMap::default();
        let mut changed = false;
        for (k, phi) in phis.iter().enumerate() {
            let Some(mut key) = phi
                .incoming
                .iter()
                .map(|&(pred, operand)| operand.map(|v| (pred, same.find(origin[v.index()]))))
                .collect::<Option<Vec<_>>>()
            else {
                continue;
            };
            key.sort_unstable();
            match seen.entry((phi.block, key)) {
                Entry::Vacant(slot) => {
                    slot.insert(phi.result);
                }
                Entry::Occupied(first) => {
                    let first = *first.get();
                    twin[k] = true;
                    if same.find(first) != same.find(phi.result) {
                        same.union(first, phi.result);
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    // The first of each pair was seen before its twin: mark it too.
    let twins: FxHashSet<VReg> =
        phis.iter().zip(&twin).filter(|(_, &t)| t).map(|(phi, _)| same.find(phi.result)).collect();
    phis.iter().map(|phi| twins.contains(&same.find(phi.result))).collect()
}

/// Each vreg's copy partners: the other side of each COPY and of each PHI's
/// result/operand pair. Stock's coalescer tries to give each such pair one
/// register; a merge of ours that makes a pair interfere takes that away.
fn copy_partners(f: &Function, phis: &[Phi]) -> Vec<Vec<VReg>> {
    let mut partners = vec![Vec::new(); f.num_vregs()];
    let mut pair = |a: VReg, b: VReg| {
        if a != b {
            partners[a.index()].push(b);
            partners[b.index()].push(a);
        }
    };
    for i in (0..f.insts.len()).map(Inst::new) {
        if let Some((dst, src)) = f.copy_pair(i) {
            pair(dst, src);
        }
    }
    for phi in phis {
        for operand in phi.incoming.iter().filter_map(|&(_, operand)| operand) {
            pair(phi.result, operand);
        }
    }
    partners
}

pub fn coalesce_phis(f: &Function, options: &Options) -> PassOutcome {
    let _span = tracing::debug_span!("cssa").entered();
    let mut outcome = PassOutcome::default();
    let mut phis = phis(f);
    if phis.is_empty() {
        outcome.rewrite = Rewrite::identity(f.num_vregs());
        return outcome;
    }
    let liveness = outcome.phases.time("liveness", || Liveness::compute(f));
    let built = outcome.phases.time("interference", || {
        InterferenceGraph::build_within(f, &liveness, options.graph_limit, ImplicitDefs::Write)
    });
    let graph = match built {
        Ok(graph) => graph,
        // PHI elimination lowers the PHIs as it does without this pass.
        Err(census) => return PassOutcome::guarded(f, &census, options.graph_limit, outcome.phases),
    };
    outcome.method = Some(Method::Graph);

    // Hot PHIs first: they get first pick of the operands they can absorb.
    phis.sort_by(|a, b| f.block(b.block).frequency.total_cmp(&f.block(a.block).frequency));

    let partners = copy_partners(f, &phis);
    let mut classes = Classes::new(f);
    let twins = phis_with_twins(&phis, &classes.value);
    let mut eliminated: Vec<&Phi> = Vec::new();
    let (mut merged_operands, mut kept) = (0u64, 0u64);
    outcome.phases.time("merge", || {
        for (phi, &twin) in phis.iter().zip(&twins) {
            let decision = if twin {
                Err("another PHI of its block takes the same values".to_string())
            } else {
                plan(f, &graph, &partners, &mut classes, phi, options)
            };
            match decision {
                Ok(group) => {
                    merged_operands += (group.len() - 1) as u64;
                    classes.join(&group);
                    eliminated.push(phi);
                }
                Err(why) => {
                    kept += 1;
                    if options.outputs.cssa_verbosity >= 1 {
                        tracing::info!(target: "nvregalloc::cssa", "{} {:?} in {:?}: kept, {why}",
                            f.name, phi.inst, phi.block);
                    }
                }
            }
        }
    });

    let mut rewrite = Rewrite::identity(f.num_vregs());
    for v in 0..f.num_vregs() {
        rewrite.rename[v] = classes.sets.smallest_member(VReg::new(v));
    }
    rewrite.deleted.extend(eliminated.iter().map(|phi| phi.inst));
    // Copies between members of one class became `v = v`.
    let redundant = rewrite.redundant_after_renaming(f);
    rewrite.deleted.extend(redundant);
    rewrite.deleted.sort_unstable();

    // PHI elimination would have made, per PHI, one copy per operand into a
    // fresh register and one from it into the result.
    let avoided: u64 = eliminated.iter().map(|phi| f.uses(phi.inst).count() as u64 + 1).sum();
    outcome.stats = vec![
        Stat { name: c"phis", value: phis.len() as u64 },
        Stat { name: c"phis-eliminated", value: eliminated.len() as u64 },
        Stat { name: c"phis-kept", value: kept },
        Stat { name: c"operands-merged", value: merged_operands },
        Stat { name: c"copies-avoided", value: avoided },
        Stat { name: c"graph-entries", value: graph.entries },
    ];
    outcome.rewrite = rewrite;
    outcome
}

/// Decides one PHI: the classes (roots) to join, result's first. `Err`: why
/// the PHI is left to PHI elimination.
fn plan(
    f: &Function,
    graph: &InterferenceGraph,
    partners: &[Vec<VReg>],
    classes: &mut Classes,
    phi: &Phi,
    options: &Options,
) -> Result<Vec<VReg>, String> {
    let class = f.class_of(phi.result);
    let mut group = vec![classes.root(phi.result)];
    for &(pred, operand) in &phi.incoming {
        // Deleting the PHI would leave the register unwritten on that path,
        // which LLVM's liveness does not allow; PHI elimination makes it an
        // IMPLICIT_DEF.
        let Some(operand) = operand else { return Err(format!("its operand from {pred:?} is undef")) };
        if f.class_of(operand) != class {
            return Err(format!("{operand:?} is in another register class"));
        }
        let root = classes.root(operand);
        let joined = group.contains(&root) || classes.fits(graph, root, &group);
        if options.outputs.cssa_verbosity >= 2 {
            let what = if joined { "fits" } else { "interferes" };
            tracing::info!(target: "nvregalloc::cssa", "{} {:?}: {operand:?} from {pred:?} {what}",
                f.name, phi.inst);
        }
        if !joined {
            return Err(format!("{operand:?} from {pred:?} interferes"));
        }
        if !group.contains(&root) {
            group.push(root);
        }
    }
    // Never worse than stock: PHI elimination and LLVM's coalescer would
    // weigh this PHI's copies against the others; the join decides alone.
    if let Some((member, partner)) = classes.blocked_partner(graph, &group, partners) {
        return Err(format!("it would keep {member:?} from its copy partner {partner:?}"));
    }
    if options.outputs.cssa_verbosity >= 1 {
        tracing::info!(target: "nvregalloc::cssa", "{} {:?} in {:?}: eliminated, {} classes joined",
            f.name, phi.inst, phi.block, group.len());
    }
    Ok(group)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::function::{FunctionBuilder, InstData, InstFlags, InstKind, Operand, RegClass};

    fn phi(b: &mut FunctionBuilder, result: VReg, incoming: &[(VReg, Block)]) -> Inst {
        let mut operands = vec![Operand::def(result)];
        operands.extend(incoming.iter().map(|&(v, from)| Operand::phi_use(v, from)));
        b.inst_with(InstData { kind: InstKind::Phi, flags: InstFlags::empty(), opcode: 0, operands })
    }

    fn store(b: &mut FunctionBuilder, v: VReg) {
        b.inst_with(InstData {
            kind: InstKind::Other,
            flags: InstFlags::MAY_STORE,
            opcode: 7,
            operands: vec![Operand::use_of(v)],
        });
    }

    /// Ends the current block with a conditional branch.
    fn branch(b: &mut FunctionBuilder, class: RegClass) {
        let cond = b.vreg(class);
        b.inst(InstKind::Other, &[cond], &[]);
        b.inst(InstKind::Terminator, &[], &[cond]);
    }

    /// `entry` branches to `then` or straight to `join`; `then` falls into `join`.
    fn if_then(mut b: FunctionBuilder, entry: Block, then: Block, join: Block) -> Function {
        for (from, to) in [(entry, then), (entry, join), (then, join)] {
            b.edge(from, to);
        }
        b.finish()
    }

    /// An inline asm writing `def`, its operand 0, tied to its input
    /// `tied` (operand 1), and reading `other` too.
    fn tied_asm(b: &mut FunctionBuilder, def: VReg, tied: VReg, other: VReg, early_clobber: bool) -> Inst {
        let mut d = Operand::def(def);
        d.tied_to = Some(1);
        if early_clobber {
            d.flags |= crate::function::OperandFlags::EARLY_CLOBBER;
        }
        let mut t = Operand::use_of(tied);
        t.tied_to = Some(0);
        let operands = vec![d, t, Operand::use_of(other)];
        b.inst_with(InstData { kind: InstKind::Other, flags: InstFlags::empty(), opcode: 9, operands })
    }

    /// The shape the IR fuzzer found (an inline asm `"=l,0,l"` in a loop):
    /// `a` is tied to `c`, and the loop PHI `p` is the asm's other input,
    /// dying there. TwoAddressInstruction will copy `c` into `a`'s register
    /// before the asm reads `p`, so `a` and `p` must not share a register,
    /// and the checker must reject a rewrite where they do.
    #[test]
    fn a_tied_def_meets_the_other_inputs_of_its_instruction() {
        let mut b = FunctionBuilder::new("tied", &["B64"]);
        let k = RegClass(0);
        let (x0, p, c, a, cond) = (b.vreg(k), b.vreg(k), b.vreg(k), b.vreg(k), b.vreg(k));
        let entry = b.block(0);
        b.inst(InstKind::Other, &[x0], &[]);
        let body = b.block(1);
        phi(&mut b, p, &[(x0, entry), (a, body)]);
        b.inst(InstKind::Other, &[c], &[]);
        tied_asm(&mut b, a, c, p, false);
        b.inst(InstKind::Other, &[cond], &[]);
        b.inst(InstKind::Terminator, &[], &[cond]);
        let exit = b.block(0);
        store(&mut b, a);
        b.inst(InstKind::Terminator, &[], &[]);
        for (from, to) in [(entry, body), (body, body), (body, exit)] {
            b.edge(from, to);
        }
        let f = b.finish();

        let outcome = coalesce_phis(&f, &Options::default());
        let rewrite = &outcome.rewrite;
        assert_ne!(rewrite.renamed(a), rewrite.renamed(p), "{outcome:?}");
        crate::checker::check(&f, rewrite).expect("the checker accepts it");

        let mut merged = Rewrite::identity(f.num_vregs());
        merged.rename[p.index()] = a;
        merged.rename[x0.index()] = a;
        let err = crate::checker::check(&f, &merged).expect_err("a and p share a register");
        assert!(format!("{err:?}").contains("tied def"), "{err:?}");
    }

    /// After TwoAddressInstruction, an early-clobber output tied to an input
    /// (`"=&l,0,l"` given one value twice): `a` copies `v` and the asm reads
    /// `a` (tied) and `v`. The two hold one value, yet may not share a
    /// register, since the asm writes `a` before it reads `v`.
    #[test]
    fn an_early_clobber_tied_def_meets_a_copy_of_its_input() {
        let mut b = FunctionBuilder::new("early-tied", &["B64"]);
        let k = RegClass(0);
        let (v, a) = (b.vreg(k), b.vreg(k));
        b.block(0);
        b.inst(InstKind::Other, &[v], &[]);
        b.copy(a, v);
        tied_asm(&mut b, a, a, v, true);
        store(&mut b, a);
        b.inst(InstKind::Terminator, &[], &[]);
        let f = b.finish();

        let graph = InterferenceGraph::build(&f, &Liveness::compute(&f));
        assert!(graph.interferes(a, v));
        let mut merged = Rewrite::identity(f.num_vregs());
        merged.rename[v.index()] = a;
        let err = crate::checker::check(&f, &merged).expect_err("a and v share a register");
        assert!(format!("{err:?}").contains("early-clobber"), "{err:?}");
    }

    /// `z` and `x` copy `y` in different blocks and are live at once; they
    /// hold one value, so the PHI joining them goes. Numbering values per
    /// block alone would see `x` defined while `z` holds another value.
    #[test]
    fn copies_of_one_value_share_a_register_across_blocks() {
        let mut b = FunctionBuilder::new("copies", &["B32"]);
        let c = RegClass(0);
        let (y, z, x, r, cond) = (b.vreg(c), b.vreg(c), b.vreg(c), b.vreg(c), b.vreg(c));
        let entry = b.block(0);
        b.inst(InstKind::Other, &[y], &[]);
        b.copy(z, y);
        let split = b.block(0);
        b.copy(x, y);
        b.inst(InstKind::Other, &[cond], &[]);
        b.inst(InstKind::Terminator, &[], &[cond]);
        let left = b.block(0);
        store(&mut b, z);
        let right = b.block(0);
        store(&mut b, x);
        let join = b.block(0);
        phi(&mut b, r, &[(z, left), (x, right)]);
        store(&mut b, r);
        b.inst(InstKind::Terminator, &[], &[]);
        for (from, to) in [(entry, split), (split, left), (split, right), (left, join), (right, join)] {
            b.edge(from, to);
        }
        let f = b.finish();

        let outcome = coalesce_phis(&f, &Options::default());
        assert_eq!(outcome.stat("phis-eliminated"), Some(1), "{outcome:?}");
        let rewrite = &outcome.rewrite;
        assert!([x, z].iter().all(|&v| rewrite.renamed(v) == rewrite.renamed(r)));
        crate::checker::check(&f, rewrite).expect("the checker accepts it");
    }

    /// Two PHIs of one block take one value from each predecessor (`q`'s
    /// operands are copies of `p`'s): CUB's warp reductions are full of them.
    /// Each PHI would get a class of its own, two registers for one value,
    /// where LLVM's coalescer gives them one; both are left to PHI elimination.
    #[test]
    fn twin_phis_are_left_to_phi_elimination() {
        let mut b = FunctionBuilder::new("twins", &["B32"]);
        let c = RegClass(0);
        let (x, x2, y, y2, p, q, cond) =
            (b.vreg(c), b.vreg(c), b.vreg(c), b.vreg(c), b.vreg(c), b.vreg(c), b.vreg(c));
        let entry = b.block(0);
        b.inst(InstKind::Other, &[x], &[]);
        b.copy(x2, x);
        b.inst(InstKind::Other, &[cond], &[]);
        b.inst(InstKind::Terminator, &[], &[cond]);
        let left = b.block(0);
        b.inst(InstKind::Other, &[y], &[]);
        b.copy(y2, y);
        let join = b.block(0);
        phi(&mut b, p, &[(x, entry), (y, left)]);
        phi(&mut b, q, &[(x2, entry), (y2, left)]);
        store(&mut b, p);
        store(&mut b, q);
        b.inst(InstKind::Terminator, &[], &[]);
        let f = if_then(b, entry, left, join);

        let outcome = coalesce_phis(&f, &Options::default());
        assert_eq!(outcome.stat("phis-eliminated"), Some(0), "{outcome:?}");
        crate::checker::check(&f, &outcome.rewrite).expect("the checker accepts it");
    }

    /// `z` copies `x` and is still live where `y` is made. Joining the PHI
    /// `a = phi(x, y)` puts `x` and `y` in one class, which `z` then
    /// interferes with: the copy `z = x`, which LLVM's coalescer would
    /// remove, would stay. The PHI is left to PHI elimination instead.
    #[test]
    fn a_phi_whose_join_would_keep_a_copy_is_left() {
        let mut b = FunctionBuilder::new("partner", &["B32"]);
        let c = RegClass(0);
        let (x, z, y, a) = (b.vreg(c), b.vreg(c), b.vreg(c), b.vreg(c));
        let entry = b.block(0);
        b.inst(InstKind::Other, &[x], &[]);
        b.copy(z, x);
        branch(&mut b, c);
        let left = b.block(0);
        b.inst(InstKind::Other, &[y], &[]);
        store(&mut b, z);
        let join = b.block(0);
        phi(&mut b, a, &[(x, entry), (y, left)]);
        store(&mut b, a);
        b.inst(InstKind::Terminator, &[], &[]);
        let f = if_then(b, entry, left, join);

        let outcome = coalesce_phis(&f, &Options::default());
        assert_eq!(outcome.stat("phis-eliminated"), Some(0), "{outcome:?}");
    }
}

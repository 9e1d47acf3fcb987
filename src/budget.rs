//! Register budget mode (`-nvregalloc-max-regs=N`): color every class into
//! at most N registers, spilling what does not fit.
//!
//! Each round builds liveness and the interference graph of the function
//! with the spill code decided so far, colors it with Briggs's optimistic
//! coloring (the conservative tests use K = N; copies are coalesced by giving
//! a copy's ends one color where it is free) and looks at the nodes left
//! without a color:
//! - an original value becomes spilled: rematerialized if an input-free pure
//!   instruction computes it, else stored to a slot after each def; a value
//!   already spilled stops serving the uses after its def in its block;
//! - a reload temporary of a spilled value makes that value's reloads more
//!   local (`spill::Level`);
//! - a node that cannot be spilled (a spilled value whose def no longer
//!   serves other uses, a temporary that lives one instruction, a 128-bit
//!   register) makes its cheapest spillable neighbour go instead.
//!
//! Spill code for all decisions is then regenerated from the original
//! function, and the next round starts, until a round colors everything.
//! Every round takes one of these finitely many steps, so this ends. A
//! function with an instruction that needs more than N registers of a class
//! at once is refused up front; one that still does not fit (too many
//! values spill code cannot handle live at once) is left as it is, and so is
//! one whose interference graph would pass `-nvregalloc-graph-limit` (budget
//! mode has no graph-free method yet).

use std::collections::BTreeMap;

use crate::color::{adopt_greedy_classes, Briggs};
use crate::coloring::{color_representatives, coloring_stats, referenced_vregs, Coloring};
use crate::function::{Function, Inst, InstKind, VReg};
use crate::interference::{ImplicitDefs, InterferenceGraph};
use crate::liveness::Liveness;
use crate::options::Options;
use crate::rewrite::{Method, PassOutcome, PhaseTimes, Stat};
use crate::spill::{self, Home, Level, Spilled, Temp};

/// Rounds before giving up; real functions need a handful.
const MAX_ROUNDS: usize = 64;

pub fn allocate(f: &Function, options: &Options, budget: u32) -> Result<PassOutcome, String> {
    if let Some(why) = needs_more_at_once(f, budget) {
        return Err(why);
    }
    let mut phases = PhaseTimes::default();
    let colored = Options { k: budget, ..options.clone() };
    let liveness = phases.time("liveness", || Liveness::compute(f));
    let built = phases.time("interference", || {
        InterferenceGraph::build_within(f, &liveness, options.graph_limit, ImplicitDefs::Write)
    });
    let original_graph = match built {
        Ok(graph) => graph,
        Err(census) => return Err(census.over(options.graph_limit)),
    };
    let latency = options.spill_latency.unwrap_or_else(|| {
        crate::spill_cost::estimated_latency(original_graph.max_live.iter().map(|&m| u64::from(m)).sum())
    });
    let defs = f.def_insts();
    let fixed = unspillable_values(f, &defs);
    let mut spilled: BTreeMap<VReg, Spilled> = BTreeMap::new();
    for round in 1..=MAX_ROUNDS {
        let decisions: Vec<Spilled> = spilled.values().copied().collect();
        let code = phases.time("spill code", || spill::insert_spill_code(f, &original_graph, &decisions));
        let (w, origin) = code.rewrite.apply(f);
        let live = phases.time("liveness", || Liveness::compute(&w));
        let built = phases.time("interference", || {
            InterferenceGraph::build_within(&w, &live, options.graph_limit, ImplicitDefs::Write)
        });
        let graph = match built {
            Ok(graph) => graph,
            Err(census) => return Err(census.over(options.graph_limit)),
        };
        let nodes = referenced_vregs(&w);
        let copies: Vec<(VReg, VReg)> =
            (0..w.insts.len()).filter_map(|i| w.copy_pair(Inst::new(i))).collect();
        let mut cost = crate::spill_cost::spill_costs(&w, latency, options.loop_base);
        for (v, c) in cost.iter_mut().enumerate() {
            let spillable = match v.checked_sub(f.num_vregs()).map(|t| code.temps[t]) {
                None => !fixed[v] && spilled.get(&VReg::new(v)).is_none_or(|s| s.keep_def),
                Some(Temp::Of(value)) => spilled[&value].level.lower().is_some(),
                Some(Temp::PredicateCarrier) => false,
            };
            if !spillable {
                *c = f64::INFINITY;
            }
        }
        let coloring =
            phases.time("briggs", || Briggs::new(&graph, &colored, &cost, &nodes, &copies).run(Some(budget)));
        let coloring = if coloring.spilled.is_empty() {
            coloring
        } else {
            take_greedy_where_it_fits(&w, &graph, &nodes, &copies, coloring, budget)
        };
        if coloring.spilled.is_empty() {
            let mut rewrite = code.rewrite;
            rewrite.rename = color_representatives(&w, &coloring);
            rewrite.deleted.extend(
                rewrite
                    .redundant_after_renaming(&w)
                    .into_iter()
                    .map(|j| origin[j.index()].expect("spill code has no copies")),
            );
            rewrite.deleted.sort_unstable();
            rewrite.deleted.dedup();
            let mut stats = coloring_stats(&w, &graph.max_live, &nodes, &coloring, &rewrite);
            let c = code.counts;
            stats.extend(
                [
                    (c"max-regs", u64::from(budget)),
                    (c"rounds", round as u64),
                    (c"spilled-values", c.slot_values),
                    (c"remat-values", c.remat_values),
                    (c"spill-stores", c.stores),
                    (c"reloads", c.reloads),
                    (c"remats", c.remats),
                    (c"reloads-every-use", c.reloads_every_use),
                    (c"remats-every-use", c.remats_every_use),
                    (c"spill-slots", c.slots),
                    (c"spill-slot-bytes", c.slot_bytes),
                    (c"graph-entries", graph.entries),
                ]
                .map(|(name, value)| Stat { name, value }),
            );
            return Ok(PassOutcome {
                rewrite,
                stats,
                phases,
                method: Some(Method::Graph),
                ..Default::default()
            });
        }
        let mut progress = false;
        for &u in &coloring.spilled {
            let victim = if cost[u.index()].is_finite() {
                u
            } else {
                let cheapest = graph.neighbors(u).filter(|w| cost[w.index()].is_finite()).min_by(|a, b| {
                    let ratio = |v: &VReg| cost[v.index()] / graph.degree(*v).max(1) as f64;
                    ratio(a).total_cmp(&ratio(b)).then(a.cmp(b))
                });
                match cheapest {
                    Some(w) => w,
                    None => continue,
                }
            };
            progress |= match victim.index().checked_sub(f.num_vregs()).map(|t| code.temps[t]) {
                None => match spilled.get_mut(&victim) {
                    Some(s) => std::mem::replace(&mut s.keep_def, false),
                    None => {
                        let home = match spill::remat_source(f, &defs, victim) {
                            Some(source) if options.remat => Home::Remat(source),
                            _ => Home::Slot,
                        };
                        let keep_def = !spill::only_read_after_local_defs(f, victim);
                        spilled.insert(victim, Spilled { value: victim, home, level: Level::Lazy, keep_def });
                        true
                    }
                },
                Some(Temp::Of(value)) => {
                    let s = spilled.get_mut(&value).expect("temporaries belong to spilled values");
                    match s.level.lower() {
                        Some(lower) => {
                            s.level = lower;
                            true
                        }
                        None => false,
                    }
                }
                Some(Temp::PredicateCarrier) => unreachable!("a carrier has no finite spill cost"),
            };
        }
        if !progress {
            let u = coloring.spilled[0];
            let class = w.class_of(u).map_or("?", |c| w.class_name(c));
            return Err(format!(
                "does not fit in {budget} registers per class: {class} register {u:?} of round {round} cannot be colored and nothing around it can be spilled"
            ));
        }
    }
    Err(format!("does not fit in {budget} registers per class after {MAX_ROUNDS} rounds"))
}

/// For each class Briggs could not color within the budget, a greedy
/// coloring in maximum-cardinality-search order (optimal on chordal graphs)
/// may still fit: that class takes it.
fn take_greedy_where_it_fits(
    f: &Function,
    graph: &InterferenceGraph,
    nodes: &[VReg],
    copies: &[(VReg, VReg)],
    mut coloring: Coloring,
    budget: u32,
) -> Coloring {
    let class = |v: VReg| f.class_of(v).expect("nodes have classes").index();
    let mut failing = vec![false; f.class_names.len()];
    for &v in &coloring.spilled {
        failing[class(v)] = true;
    }
    let adopted = adopt_greedy_classes(f, graph, nodes, copies, &mut coloring, |c, _, greedy| {
        failing[c] && greedy <= budget
    });
    coloring.spilled.retain(|&v| !adopted[class(v)]);
    coloring
}

/// Why `f` cannot fit whatever is spilled, if one instruction reads, or
/// writes, more than `budget` distinct registers of one class.
fn needs_more_at_once(f: &Function, budget: u32) -> Option<String> {
    (0..f.insts.len()).map(Inst::new).find_map(|i| {
        let over = |regs: &mut Vec<VReg>, what: &str| {
            regs.sort_unstable_by_key(|&v| (f.class_of(v), v));
            regs.dedup();
            let per_class = regs.chunk_by(|a, b| f.class_of(*a) == f.class_of(*b));
            per_class.filter(|c| c.len() > budget as usize).find_map(|c| {
                let class = f.class_name(f.class_of(c[0])?);
                Some(format!(
                    "does not fit in {budget} registers per class: instruction {i:?} {what} {} {class} registers at once",
                    c.len()
                ))
            })
        };
        // Early-clobber defs are written while the uses are still to be read.
        let at_once = || f.uses(i).chain(f.early_clobbers(i)).collect();
        over(&mut f.uses(i).collect(), "reads")
            .or_else(|| over(&mut f.defs(i).collect(), "writes"))
            .or_else(|| over(&mut at_once(), "reads and writes early"))
    })
}

/// Original values spill code cannot handle, or that spilling cannot help:
/// classes with no store (128-bit registers, frame registers), values never
/// defined (nothing to store), values nothing reads (their defs need the
/// register whatever happens, and a store after a def LLVM marked dead would
/// read a register the verifier counts as undefined), values defined by a
/// terminator (no place for the store), and operands tied to another (the tie
/// needs one register on both sides).
fn unspillable_values(f: &Function, defs: &[Vec<Inst>]) -> Vec<bool> {
    let mut read = vec![false; f.num_vregs()];
    for i in (0..f.insts.len()).map(Inst::new) {
        for v in f.uses(i) {
            read[v.index()] = true;
        }
    }
    let mut fixed: Vec<bool> = (0..f.num_vregs())
        .map(|v| {
            defs[v].is_empty()
                || !read[v]
                || f.vreg_class[v].is_none_or(|c| !spill::is_spillable_class(f.class_name(c)))
                || defs[v].iter().any(|&i| f.inst(i).kind == InstKind::Terminator)
        })
        .collect();
    for data in &f.insts {
        for o in &data.operands {
            if let Some(t) = o.tied_to {
                fixed[o.vreg.index()] = true;
                fixed[data.operands[t as usize].vreg.index()] = true;
            }
        }
    }
    fixed
}

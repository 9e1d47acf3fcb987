//! The independent checker: proves that a rewrite (renames, deleted copies)
//! makes every instruction of the original function read the value it read
//! before.
//!
//! It shares no analysis with the passes it checks. It runs a forward
//! dataflow over the original function that sorts original vregs and
//! locations (registers of the rewritten function) into classes of one
//! value: on every path to the current point, the vregs of a class hold the
//! same value and so do its locations. An instruction that reads `v` is
//! correct if the location `v` was renamed to is in `v`'s class. At joins
//! two things stay together only if they were together on both paths; the
//! function's entry and blocks no path reaches start with every location
//! holding all the vregs renamed to it (values read there without a def are
//! undefined in the original too). For the same reason a deleted
//! `IMPLICIT_DEF`, and a deleted PHI on an edge it has no operand for, gives
//! its vreg whatever its register holds. Classes rather than (location, vreg)
//! pairs keep the cost linear where one value has many copies.
//!
//! Spill code adds locations: each spill slot is one, after the registers. A
//! store makes its slot hold what its register holds, a reload the reverse,
//! and a rematerialization makes its register hold the value of the one vreg
//! its cloned instruction defines. Cloning a pure instruction with no inputs
//! that is its vreg's only def gives that vreg's value anywhere. Cloning one
//! with inputs gives the value it gave when it last ran if its inputs'
//! registers hold the values it read then: each time such a source runs in
//! the original, the state records a fact (classes of its inputs, class of
//! its result), which joins keep only where both paths have it. A use the
//! rewrite substitutes must find its value in the substitute.
//!
//! To keep block states small it tracks only values its own liveness says
//! may still be read.

use std::collections::VecDeque;
use std::fmt;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::function::{Block, Function, Inst, InstData, InstFlags, InstKind, OperandFlags, VReg};
use crate::rewrite::{Place, Rewrite, SpillOp};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckError {
    pub inst: Option<Inst>,
    pub message: String,
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.inst {
            Some(i) => write!(f, "at instruction {}: {}", i.0, self.message),
            None => f.write_str(&self.message),
        }
    }
}

fn error<T>(inst: Option<Inst>, message: String) -> Result<T, CheckError> {
    Err(CheckError { inst, message })
}

/// A class of one value.
type Class = u32;

/// The classes of the original vregs and locations whose value is known.
/// Anything absent holds no value the checker knows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct State {
    vreg: FxHashMap<VReg, Class>,
    location: FxHashMap<VReg, Class>,
    /// Per recomputed instruction with inputs, as it last ran: the classes
    /// it read and the class it wrote.
    facts: FxHashMap<Inst, (Vec<Class>, Class)>,
    next: Class,
}

impl State {
    fn holds(&self, location: VReg, v: VReg) -> bool {
        self.location.get(&location).is_some_and(|c| self.vreg.get(&v) == Some(c))
    }

    fn class_at(&self, location: VReg) -> Option<Class> {
        self.location.get(&location).copied()
    }

    fn class_of(&self, v: VReg) -> Option<Class> {
        self.vreg.get(&v).copied()
    }

    fn fresh(&mut self) -> Class {
        self.next += 1;
        self.next - 1
    }

    /// `location` now holds the value of `class` (`None`: an unknown one).
    fn put(&mut self, location: VReg, class: Option<Class>) {
        match class {
            Some(c) => self.location.insert(location, c),
            None => self.location.remove(&location),
        };
    }

    /// `v` now holds the value of `class` (`None`: an unknown one).
    fn assign(&mut self, v: VReg, class: Option<Class>) {
        match class {
            Some(c) => self.vreg.insert(v, c),
            None => self.vreg.remove(&v),
        };
    }

    /// The class of what `location` holds, made if it was unknown (it holds
    /// something, whatever it is).
    fn class_at_or_fresh(&mut self, location: VReg) -> Class {
        match self.class_at(location) {
            Some(c) => c,
            None => {
                let c = self.fresh();
                self.put(location, Some(c));
                c
            }
        }
    }

    /// The class of `v`, made if `v`'s value was unknown (it is known to be
    /// itself).
    fn class_of_or_fresh(&mut self, v: VReg) -> Class {
        match self.class_of(v) {
            Some(c) => c,
            None => {
                let c = self.fresh();
                self.vreg.insert(v, c);
                c
            }
        }
    }

    /// What holds together on both paths: two things share a class if they
    /// shared one in `self` and one in `other`.
    fn meet(&mut self, other: &State) {
        let mut pairs: FxHashMap<(Class, Class), Class> = FxHashMap::default();
        let mut next = 0;
        let mut both = |mine: Class, theirs: Class| {
            *pairs.entry((mine, theirs)).or_insert_with(|| {
                next += 1;
                next - 1
            })
        };
        let mut vreg = FxHashMap::default();
        for (&v, &c) in &self.vreg {
            if let Some(&d) = other.vreg.get(&v) {
                vreg.insert(v, both(c, d));
            }
        }
        let mut location = FxHashMap::default();
        for (&l, &c) in &self.location {
            if let Some(&d) = other.location.get(&l) {
                location.insert(l, both(c, d));
            }
        }
        let mut facts = FxHashMap::default();
        for (&i, (ins, out)) in &self.facts {
            if let Some((their_ins, their_out)) = other.facts.get(&i) {
                let ins = ins.iter().zip(their_ins).map(|(&a, &b)| both(a, b)).collect();
                facts.insert(i, (ins, both(*out, *their_out)));
            }
        }
        *self = Self { vreg, location, facts, next };
    }

    /// Keeps only what a later instruction can consult: values still live,
    /// held in a register some live value is renamed to. Any other register
    /// is written before it is read. (Forgetting is always safe: the checker
    /// then knows less and can only refuse more.) With spill code, values
    /// also wait in slots and temporaries, so every location is kept.
    /// Classes are then numbered in a canonical order, so that equal states
    /// compare equal.
    fn keep_only(&mut self, live: &[VReg], rewrite: &Rewrite) {
        self.vreg.retain(|v, _| live.binary_search(v).is_ok());
        if rewrite.inserts.is_empty() {
            let locations: FxHashSet<VReg> = live.iter().map(|&v| rewrite.renamed(v)).collect();
            self.location.retain(|l, _| locations.contains(l));
        }
        let mut vregs: Vec<(VReg, Class)> = self.vreg.iter().map(|(&v, &c)| (v, c)).collect();
        let mut locations: Vec<(VReg, Class)> = self.location.iter().map(|(&l, &c)| (l, c)).collect();
        vregs.sort_unstable();
        locations.sort_unstable();
        let mut renumber: FxHashMap<Class, Class> = FxHashMap::default();
        let mut canonical = |c: Class| {
            let next = renumber.len() as Class;
            *renumber.entry(c).or_insert(next)
        };
        self.vreg = vregs.into_iter().map(|(v, c)| (v, canonical(c))).collect();
        self.location = locations.into_iter().map(|(l, c)| (l, canonical(c))).collect();
        // A fact is of use while some register holds each input and some
        // value is the result; all those classes are numbered by now.
        let facts = std::mem::take(&mut self.facts);
        let held: FxHashSet<Class> = self.location.values().copied().collect();
        let valued: FxHashSet<Class> = self.vreg.values().copied().collect();
        for (i, (ins, out)) in facts {
            if let (Some(&out), true) = (renumber.get(&out), ins.iter().all(|c| renumber.contains_key(c))) {
                let ins: Vec<Class> = ins.iter().map(|c| renumber[c]).collect();
                if valued.contains(&out) && ins.iter().all(|c| held.contains(c)) {
                    self.facts.insert(i, (ins, out));
                }
            }
        }
        self.next = renumber.len() as Class;
    }
}

pub fn check(original: &Function, rewrite: &Rewrite) -> Result<(), CheckError> {
    let _span = tracing::debug_span!("checker").entered();
    check_rename_map(original, rewrite)?;
    let ctx = Context::new(original, rewrite);
    let live_in = live_in_sets(original);

    let num_blocks = original.blocks.len();
    let mut entry_state: Vec<Option<State>> = vec![None; num_blocks];
    let mut exit_state: Vec<Option<State>> = vec![None; num_blocks];
    let mut worklist: VecDeque<Block> = original.block_ids().collect();
    let mut queued = vec![true; num_blocks];
    while let Some(b) = worklist.pop_front() {
        queued[b.index()] = false;
        let preds = &original.block(b).preds;
        let mut state = if b.index() == 0 || preds.is_empty() {
            let mut s = State::default();
            for &v in &live_in[b.index()] {
                let class = s.class_at(rewrite.renamed(v)).unwrap_or_else(|| s.fresh());
                s.put(rewrite.renamed(v), Some(class));
                s.assign(v, Some(class));
            }
            s
        } else {
            let mut met: Option<State> = None;
            for &p in preds {
                let Some(exit) = &exit_state[p.index()] else { continue };
                let arriving = take_edge(original, rewrite, p, b, exit)?;
                match &mut met {
                    None => met = Some(arriving),
                    Some(s) => s.meet(&arriving),
                }
            }
            let Some(s) = met else { continue };
            s
        };
        state.keep_only(&live_in[b.index()], rewrite);
        if entry_state[b.index()].as_ref() == Some(&state) {
            continue;
        }
        entry_state[b.index()] = Some(state.clone());
        for i in original.block_insts(b) {
            run_spill_code(rewrite, &ctx, Place::Before(i), &mut state)?;
            step(original, rewrite, &ctx, i, &mut state)?;
            run_spill_code(rewrite, &ctx, Place::After(i), &mut state)?;
        }
        exit_state[b.index()] = Some(state);
        for &s in &original.block(b).succs {
            if !queued[s.index()] {
                queued[s.index()] = true;
                worklist.push_back(s);
            }
        }
    }
    Ok(())
}

/// The spill code at `place`.
fn run_spill_code(
    rewrite: &Rewrite,
    ctx: &Context,
    place: Place,
    state: &mut State,
) -> Result<(), CheckError> {
    let at = |v: VReg| rewrite.renamed(v);
    for insert in rewrite.inserts_at(place) {
        match insert.op {
            SpillOp::Store { slot, src } => state.put(ctx.slot_location(slot), state.class_at(at(src))),
            SpillOp::Reload { slot, dst } => state.put(at(dst), state.class_at(ctx.slot_location(slot))),
            SpillOp::Convert { dst, src } => state.put(at(dst), state.class_at(at(src))),
            SpillOp::Remat { source, dst } => {
                let data = ctx.f.inst(source);
                let value = data.operands.first().map(|o| o.vreg);
                match value {
                    Some(v) if is_pure_constant(data) && ctx.defs_per_vreg[v.index()] == 1 => {
                        // The recomputed value is `v`'s, and so equal to
                        // whatever is known equal to `v`.
                        let class = state.class_of_or_fresh(v);
                        state.put(at(dst), Some(class));
                    }
                    Some(_) if is_recomputable(data) => {
                        let reading: Option<Vec<Class>> = data
                            .operands
                            .iter()
                            .filter(|o| o.reads())
                            .map(|o| state.class_at(at(o.vreg)))
                            .collect();
                        match (reading, state.facts.get(&source)) {
                            (Some(ins), Some((then, out))) if ins == *then => {
                                let out = *out;
                                state.put(at(dst), Some(out));
                            }
                            _ => {
                                return error(
                                    Some(source),
                                    "recomputed where its inputs' registers may not hold the values it read"
                                        .into(),
                                )
                            }
                        }
                    }
                    _ => {
                        return error(
                            Some(source),
                            "rematerialized from an instruction that is not pure with one def".into(),
                        )
                    }
                }
            }
        }
    }
    Ok(())
}

/// The state on entry to `to` along the edge from `from`, whose exit state is
/// `exit`: `to`'s PHIs take their values from `from`, all at once.
///
/// A PHI the rewrite keeps is lowered later by PHI elimination, which reads
/// its operand's register at the end of `from` and
/// writes its result's register at the top of `to`: the operand's register
/// must hold the operand there. A deleted PHI does nothing at run time: its
/// result's value is its operand's, so every register holding the operand
/// now holds the result too.
fn take_edge(
    f: &Function,
    rewrite: &Rewrite,
    from: Block,
    to: Block,
    exit: &State,
) -> Result<State, CheckError> {
    let deleted = |i: Inst| rewrite.deleted.binary_search(&i).is_ok();
    let phis: Vec<Inst> = f.phis(to).collect();
    // Read everything first: the class each PHI's result takes, and for a
    // kept PHI, the register it writes.
    let mut aliases: Vec<(VReg, Option<Class>)> = Vec::new();
    let mut writes: Vec<(VReg, VReg, Option<Class>)> = Vec::new();
    let mut written: FxHashSet<VReg> = FxHashSet::default();
    let mut state = exit.clone();
    for &i in &phis {
        let data = f.inst(i);
        let Some(result) = data.operands.iter().find(|o| o.is_def()).map(|o| o.vreg) else { continue };
        let operand = data.operands.iter().find(|o| !o.is_def() && o.incoming == Some(from));
        let value = operand.filter(|o| o.reads()).map(|o| o.vreg);
        if deleted(i) {
            let class = match value {
                Some(v) => exit.class_of(v),
                // Undefined: whatever the result's register holds will do.
                None => Some(state.class_at_or_fresh(rewrite.renamed(result))),
            };
            aliases.push((result, class));
            continue;
        }
        let class = match value {
            Some(v) if !exit.holds(rewrite.renamed(v), v) => {
                return error(
                    Some(i),
                    format!(
                        "PHI reads {v:?} from {:?} at the end of {from:?}, which may not hold its value there",
                        rewrite.renamed(v)
                    ),
                );
            }
            Some(v) => exit.class_of(v),
            None => Some(state.fresh()),
        };
        if !written.insert(rewrite.renamed(result)) {
            return error(Some(i), format!("two PHIs write {:?}", rewrite.renamed(result)));
        }
        writes.push((rewrite.renamed(result), result, class));
    }
    // The results' values from the previous time round are gone.
    for (result, class) in aliases {
        state.assign(result, class);
    }
    for (location, result, class) in writes {
        state.put(location, class);
        state.assign(result, class);
    }
    Ok(state)
}

/// What the checker knows about the rewrite beyond its rename map.
struct Context<'a> {
    f: &'a Function,
    deleted: FxHashSet<Inst>,
    remat_source: FxHashMap<Inst, Inst>,
    /// Instructions with inputs that spill code clones (their facts are kept).
    recomputed: FxHashSet<Inst>,
    defs_per_vreg: Vec<u32>,
    /// Registers of the rewritten function; slots are the locations after.
    num_registers: usize,
}

impl<'a> Context<'a> {
    fn new(f: &'a Function, rewrite: &Rewrite) -> Self {
        let mut defs_per_vreg = vec![0; f.num_vregs()];
        for data in &f.insts {
            for o in data.operands.iter().filter(|o| o.is_def()) {
                defs_per_vreg[o.vreg.index()] += 1;
            }
        }
        Self {
            f,
            deleted: rewrite.deleted.iter().copied().collect(),
            remat_source: rewrite.remats.iter().map(|r| (r.copy, r.source)).collect(),
            recomputed: rewrite
                .inserts
                .iter()
                .filter_map(|x| match x.op {
                    SpillOp::Remat { source, .. } if !is_pure_constant(f.inst(source)) => Some(source),
                    _ => None,
                })
                .collect(),
            defs_per_vreg,
            num_registers: rewrite.rename.len(),
        }
    }

    fn slot_location(&self, slot: u32) -> VReg {
        VReg::new(self.num_registers + slot as usize)
    }

    /// `source` is a pure constant defining `v`, and it is the def of `v` that
    /// reaches `at`: either the only def of `v` in the function, or one earlier
    /// in the same block with no def of `v` in between. Recomputing it then
    /// gives the value `v` holds at `at`.
    fn constant_reaches(&self, source: Inst, at: Inst, v: VReg) -> bool {
        let data = self.f.inst(source);
        if !is_pure_constant(data) || data.operands[0].vreg != v {
            return false;
        }
        if self.defs_per_vreg[v.index()] == 1 {
            return true;
        }
        let block = |i: Inst| {
            self.f.blocks.iter().position(|b| (b.first_inst..b.first_inst + b.num_insts).contains(&i.0))
        };
        block(source) == block(at)
            && source < at
            && ((source.0 + 1)..at.0)
                .all(|i| self.f.inst(Inst(i)).operands.iter().all(|o| !(o.is_def() && o.vreg == v)))
    }
}

/// A pure instruction with one plain def (the first operand) and plain
/// reads: cloned with the same inputs, it computes what it computed before.
fn is_recomputable(data: &InstData) -> bool {
    matches!(data.kind, InstKind::Other | InstKind::MoveImm)
        && !data.flags.intersects(InstFlags::SIDE_EFFECTS | InstFlags::MAY_LOAD | InstFlags::MAY_STORE)
        && data.operands.first().is_some_and(|o| o.flags == OperandFlags::DEF && o.tied_to.is_none())
        && data.operands[1..].iter().all(|o| o.flags.is_empty() && o.tied_to.is_none())
}

/// A move-immediate, or an instruction the target says may be recomputed,
/// with no effects and no register inputs.
fn is_pure_constant(data: &InstData) -> bool {
    (data.kind == InstKind::MoveImm || data.flags.contains(InstFlags::REMATERIALIZABLE))
        && !data.flags.intersects(InstFlags::SIDE_EFFECTS | InstFlags::MAY_LOAD | InstFlags::MAY_STORE)
        && data.operands.len() == 1
        && data.operands[0].flags == OperandFlags::DEF
}

fn check_rename_map(f: &Function, rewrite: &Rewrite) -> Result<(), CheckError> {
    let classes = rewrite.classes(f);
    if rewrite.rename.len() != classes.len() {
        return error(None, format!("rename map covers {} of {} vregs", rewrite.rename.len(), classes.len()));
    }
    for (v, &to) in rewrite.rename.iter().enumerate() {
        let from_class = classes[v];
        if to.index() >= classes.len() || (from_class.is_some() && classes[to.index()] != from_class) {
            return error(None, format!("v{v} renamed to {to:?}, outside its register class"));
        }
    }
    Ok(())
}

/// Applies one original instruction to the state, checking its reads.
fn step(
    f: &Function,
    rewrite: &Rewrite,
    ctx: &Context,
    i: Inst,
    state: &mut State,
) -> Result<(), CheckError> {
    let deleted = &ctx.deleted;
    let at = |v: VReg| rewrite.renamed(v);
    if f.inst(i).kind == InstKind::Phi {
        // Done on the edges into the block (`take_edge`).
        return Ok(());
    }
    // The instruction as it reads after substitution; values are still
    // named by the original vregs, `location[k]` is where operand k is.
    let data = f.inst(i);
    let location: Vec<VReg> =
        data.operands.iter().enumerate().map(|(k, o)| at(rewrite.substituted(i, k, o.vreg))).collect();

    if let Some(source) = ctx.remat_source.get(&i) {
        // The copy now recomputes its source's constant into its destination.
        let (dst, src) = match data.operands.as_slice() {
            [d, s] if data.kind == InstKind::Copy && d.is_def() && s.reads() => {
                if !ctx.constant_reaches(*source, i, s.vreg) {
                    return error(
                        Some(i),
                        format!("rematerialized {:?} from an instruction that is not its constant", s.vreg),
                    );
                }
                (d.vreg, s.vreg)
            }
            _ => return error(Some(i), "rematerialized an instruction that is not a plain copy".into()),
        };
        // The constant is the source's current value: as if copied from it.
        let class = state.class_of_or_fresh(src);
        state.put(at(dst), Some(class));
        state.assign(dst, Some(class));
        return Ok(());
    }

    if deleted.contains(&i) && data.kind == InstKind::ImplicitDef {
        // An undefined value may be whatever its register holds.
        for o in data.operands.iter().filter(|o| o.is_def()) {
            let class = state.class_at_or_fresh(at(o.vreg));
            state.assign(o.vreg, Some(class));
        }
        return Ok(());
    }

    if deleted.contains(&i) && data.kind != InstKind::Copy {
        if ctx.recomputed.contains(&i) && is_recomputable(data) {
            // Recomputed where it is read: it still runs in the original,
            // and its value is known by its fact, not by a register.
            record_fact(data, i, state);
            return Ok(());
        }
        // Otherwise only a pure constant may go; whatever it defined is
        // gone with it.
        if !is_pure_constant(data) {
            return error(Some(i), "deleted an instruction that has effects or inputs".into());
        }
        for o in &data.operands {
            state.assign(o.vreg, None);
        }
        return Ok(());
    }

    if deleted.contains(&i) {
        let is_copy = data.kind == InstKind::Copy;
        let (dst, src) = match data.operands.as_slice() {
            [d, s] if is_copy && d.is_def() && s.reads() => (d.vreg, s.vreg),
            _ => return error(Some(i), "deleted an instruction that is not a plain copy".into()),
        };
        // The copy's two registers became one, or its destination's
        // register already holds the value it would have written.
        if location[0] != location[1] && !state.holds(location[0], src) {
            return error(
                Some(i),
                format!("deleted copy {dst:?} <- {src:?}, whose destination register may not hold its value"),
            );
        }
        state.assign(dst, state.class_of(src));
        return Ok(());
    }

    for (o, &l) in data.operands.iter().zip(&location).filter(|(o, _)| o.reads()) {
        if !state.holds(l, o.vreg) {
            return error(
                Some(i),
                format!("reads {:?} from {l:?}, which may not hold its value there", o.vreg),
            );
        }
    }

    let defs: Vec<VReg> = data.operands.iter().filter(|o| o.is_def()).map(|o| o.vreg).collect();
    let mut writer: FxHashMap<VReg, VReg> = FxHashMap::default();
    for &d in &defs {
        if *writer.entry(at(d)).or_insert(d) != d {
            return error(Some(i), format!("writes two values into {:?}", at(d)));
        }
    }
    // An early-clobber def, and a def tied to a use held elsewhere (which
    // TwoAddressInstruction copies into the def's register first), are
    // written before the uses are read: no use but the tied one may be read
    // from the def's register.
    for (d, tied) in f.written_before_reads(i) {
        let (o, l) = (&data.operands[d], location[d]);
        let what = match tied {
            _ if o.is_early_clobber() => "early-clobber",
            Some(t) if location[t] != l => "tied def",
            _ => continue,
        };
        let mut reads = data.operands.iter().zip(&location).enumerate();
        if reads.any(|(k, (u, &read_from))| u.reads() && read_from == l && Some(k) != tied) {
            return error(
                Some(i),
                format!("{what} {:?} is written into {l:?}, which the instruction reads", o.vreg),
            );
        }
    }
    // A copy's destination holds what its source held; any other def holds a
    // fresh value.
    if let (InstKind::Copy, [d, s]) = (data.kind, data.operands.as_slice()) {
        if d.is_def() && s.reads() {
            let class = state.class_at(location[1]);
            state.put(at(d.vreg), class);
            state.assign(d.vreg, class);
            return Ok(());
        }
    }
    if ctx.recomputed.contains(&i) && is_recomputable(data) {
        let class = record_fact(data, i, state);
        state.put(at(defs[0]), Some(class));
        return Ok(());
    }
    for &d in &defs {
        let class = state.fresh();
        state.put(at(d), Some(class));
        state.assign(d, Some(class));
    }
    Ok(())
}

/// Runs recomputable instruction `i` of the original: its def gets a fresh
/// class, and the fact that `i` applied to its inputs' classes gives it.
fn record_fact(data: &InstData, i: Inst, state: &mut State) -> Class {
    let reading: Option<Vec<Class>> =
        data.operands.iter().filter(|o| o.reads()).map(|o| state.class_of(o.vreg)).collect();
    let class = state.fresh();
    state.assign(data.operands[0].vreg, Some(class));
    match reading {
        Some(ins) => state.facts.insert(i, (ins, class)),
        None => state.facts.remove(&i),
    };
    class
}

/// The checker's own liveness, sorted sets of what may be read after the
/// PHIs of each block (so a PHI's result is in its block's set, and its
/// operand is live out of its predecessor only): plain round-robin iteration
/// to a fixpoint.
fn live_in_sets(f: &Function) -> Vec<Vec<VReg>> {
    let is_phi = |i: Inst| f.inst(i).kind == InstKind::Phi;
    let mut live_in: Vec<Vec<VReg>> = vec![Vec::new(); f.blocks.len()];
    let mut live = LiveVregs::default();
    let mut changed = true;
    while changed {
        changed = false;
        for b in f.block_ids().rev() {
            live.clear();
            for &s in &f.block(b).succs {
                let phi_results: Vec<VReg> = f.phis(s).flat_map(|i| f.defs(i)).collect();
                live.extend(live_in[s.index()].iter().filter(|v| !phi_results.contains(v)));
                for i in f.phis(s) {
                    let from_b = f.inst(i).operands.iter().filter(|o| o.reads() && o.incoming == Some(b));
                    live.extend(from_b.map(|o| &o.vreg));
                }
            }
            for i in f.block_insts(b).rev().filter(|&i| !is_phi(i)) {
                for o in f.inst(i).operands.iter().filter(|o| o.is_def()) {
                    live.remove(o.vreg);
                }
                for o in f.inst(i).operands.iter().filter(|o| o.reads()) {
                    live.insert(o.vreg);
                }
            }
            let sorted = live.sorted();
            if sorted != live_in[b.index()] {
                live_in[b.index()] = sorted;
                changed = true;
            }
        }
    }
    live_in
}

/// A small set of vregs for one backward walk.
#[derive(Default)]
struct LiveVregs {
    members: FxHashSet<VReg>,
}

impl LiveVregs {
    fn clear(&mut self) {
        self.members.clear();
    }
    fn extend<'a>(&mut self, vregs: impl IntoIterator<Item = &'a VReg>) {
        self.members.extend(vregs.into_iter().copied());
    }
    fn insert(&mut self, v: VReg) {
        self.members.insert(v);
    }
    fn remove(&mut self, v: VReg) {
        self.members.remove(&v);
    }
    fn sorted(&self) -> Vec<VReg> {
        let mut all: Vec<VReg> = self.members.iter().copied().collect();
        all.sort_unstable();
        all
    }
}

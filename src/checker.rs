//! The independent checker: proves that a rewrite (renames, deleted copies)
//! makes every instruction of the original function read the value it read
//! before.
//!
//! It shares no analysis with the passes it checks. It runs a forward
//! dataflow over the original function, tracking for every location (a
//! register of the rewritten function) which original vregs currently hold
//! the value that is in it. An instruction that reads `v` is correct if the
//! location `v` was renamed to holds `v`'s value on every path to it. At
//! joins the sets intersect; the function's entry and blocks no path reaches
//! start with every location holding all the vregs renamed to it (values read
//! there without a def are undefined in the original too).
//!
//! Spill code adds locations: each spill slot is one, after the registers. A
//! store makes its slot hold what its register holds, a reload the reverse,
//! and a rematerialization makes its register hold the value of the one vreg
//! its cloned instruction defines, which must be a pure instruction with no
//! inputs and that vreg's only def (so its value is the same everywhere). A
//! use the rewrite substitutes must find its value in the substitute.
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

/// Which original vregs' current values each location holds, as sorted
/// `(location, original vreg)` pairs: holder sets are tiny, and a flat vector
/// is cheap to copy at every block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct State {
    pairs: Vec<(VReg, VReg)>,
}

impl State {
    fn holds(&self, location: VReg, v: VReg) -> bool {
        self.pairs.binary_search(&(location, v)).is_ok()
    }

    fn range(&self, location: VReg) -> std::ops::Range<usize> {
        let start = self.pairs.partition_point(|&(l, _)| l < location);
        let end = self.pairs.partition_point(|&(l, _)| l <= location);
        start..end
    }

    /// The original vregs `location` holds.
    fn holders(&self, location: VReg) -> Vec<VReg> {
        self.pairs[self.range(location)].iter().map(|&(_, v)| v).collect()
    }

    fn add(&mut self, location: VReg, v: VReg) {
        if let Err(at) = self.pairs.binary_search(&(location, v)) {
            self.pairs.insert(at, (location, v));
        }
    }

    /// `location` was written: it now holds exactly `values` (sorted, unique).
    fn set(&mut self, location: VReg, values: &[VReg]) {
        let range = self.range(location);
        self.pairs.splice(range, values.iter().map(|&v| (location, v)));
    }

    /// `location` was written with `original`'s current value on behalf of
    /// `copy`, and `value` are the vregs known to hold that value. If the
    /// location already held it (it shares a holder), its holders stay.
    /// Every other location holding `original` now holds `copy` too.
    fn copy_value(&mut self, location: VReg, copy: VReg, original: VReg, mut value: Vec<VReg>) {
        let already = self.holders(location);
        if already.iter().any(|v| value.contains(v)) {
            value.extend(already);
        }
        if copy == original {
            // No value changes; the location now holds the source's too.
            value.sort_unstable();
            value.dedup();
            self.set(location, &value);
            return;
        }
        self.forget(copy);
        value.retain(|&v| v != copy);
        value.push(copy);
        value.sort_unstable();
        value.dedup();
        self.set(location, &value);
        self.alias(copy, original);
    }

    /// `copy` was just given `original`'s value: every location holding
    /// `original` holds `copy` too.
    fn alias(&mut self, copy: VReg, original: VReg) {
        let locations: Vec<VReg> =
            self.pairs.iter().filter(|&&(_, o)| o == original).map(|&(l, _)| l).collect();
        for location in locations {
            self.add(location, copy);
        }
    }

    /// `v` was redefined: no location holds its value any more.
    fn forget(&mut self, v: VReg) {
        self.pairs.retain(|&(_, o)| o != v);
    }

    fn meet(&mut self, other: &State) {
        let theirs = &other.pairs;
        let mut j = 0;
        self.pairs.retain(|pair| {
            while j < theirs.len() && theirs[j] < *pair {
                j += 1;
            }
            j < theirs.len() && theirs[j] == *pair
        });
    }

    /// Keeps only what a later instruction can consult: values still live,
    /// held in a register some live value is renamed to. Any other register
    /// is written before it is read. (Forgetting is always safe: the checker
    /// then knows less and can only refuse more.) With spill code, values
    /// also wait in slots and temporaries, so every location is kept.
    fn keep_only(&mut self, live: &[VReg], rewrite: &Rewrite) {
        if !rewrite.inserts.is_empty() {
            self.pairs.retain(|(_, v)| live.binary_search(v).is_ok());
            return;
        }
        let mut locations: Vec<VReg> = live.iter().map(|&v| rewrite.renamed(v)).collect();
        locations.sort_unstable();
        self.pairs.retain(|(l, v)| live.binary_search(v).is_ok() && locations.binary_search(l).is_ok());
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
                s.add(rewrite.renamed(v), v);
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
        let terminators = original.first_terminator(b);
        for i in original.block_insts(b) {
            if i == terminators {
                run_edge_copies(rewrite, b, &mut state);
            }
            run_spill_code(rewrite, &ctx, Place::Before(i), &mut state)?;
            step(original, rewrite, &ctx, i, &mut state)?;
            run_spill_code(rewrite, &ctx, Place::After(i), &mut state)?;
        }
        if terminators.0 == original.block(b).first_inst + original.block(b).num_insts {
            run_edge_copies(rewrite, b, &mut state);
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

/// The edge copies at the end of `b`: each makes its destination hold what
/// its source holds.
fn run_edge_copies(rewrite: &Rewrite, b: Block, state: &mut State) {
    for copy in rewrite.edge_copies_of(b) {
        let holders = state.holders(copy.src);
        state.set(copy.dst, &holders);
    }
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
            SpillOp::Store { slot, src } => {
                let holders = state.holders(at(src));
                state.set(ctx.slot_location(slot), &holders);
            }
            SpillOp::Reload { slot, dst } => {
                let holders = state.holders(ctx.slot_location(slot));
                state.set(at(dst), &holders);
            }
            SpillOp::Convert { dst, src } => {
                let holders = state.holders(at(src));
                state.set(at(dst), &holders);
            }
            SpillOp::Remat { source, dst } => {
                let data = ctx.f.inst(source);
                let value = data.operands.first().map(|o| o.vreg);
                match value {
                    Some(v) if is_pure_constant(data) && ctx.defs_per_vreg[v.index()] == 1 => {
                        // Whatever is known equal to `v` (held with it) is
                        // equal to the recomputed value too.
                        let mut equal = vec![v];
                        for location in
                            state.pairs.iter().filter(|&&(_, o)| o == v).map(|&(l, _)| l).collect::<Vec<_>>()
                        {
                            equal.extend(state.holders(location));
                        }
                        equal.sort_unstable();
                        equal.dedup();
                        state.set(at(dst), &equal);
                    }
                    _ => {
                        return error(
                            Some(source),
                            "rematerialized from an instruction that is not a pure input-free only def"
                                .into(),
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
/// its operand's register at the end of `from` (after the edge copies) and
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
    let results: Vec<VReg> = phis.iter().flat_map(|&i| f.defs(i)).collect();
    let not_result = |v: &VReg| !results.contains(v);
    // Read everything first: (phi, result, incoming operand if it reads one).
    let mut aliases: Vec<(VReg, Vec<VReg>)> = Vec::new();
    let mut writes: Vec<(VReg, Vec<VReg>)> = Vec::new();
    for &i in &phis {
        let data = f.inst(i);
        let Some(result) = data.operands.iter().find(|o| o.is_def()).map(|o| o.vreg) else { continue };
        let operand = data.operands.iter().find(|o| !o.is_def() && o.incoming == Some(from));
        let value = operand.filter(|o| o.reads()).map(|o| o.vreg);
        if deleted(i) {
            let locations = match value {
                Some(v) => exit.pairs.iter().filter(|&&(_, o)| o == v).map(|&(l, _)| l).collect(),
                // Undefined: whatever the result's register holds will do.
                None => vec![rewrite.renamed(result)],
            };
            aliases.push((result, locations));
            continue;
        }
        let mut holders = match value {
            Some(v) if !exit.holds(rewrite.renamed(v), v) => {
                return error(
                    Some(i),
                    format!(
                        "PHI reads {v:?} from {:?} at the end of {from:?}, which may not hold its value there",
                        rewrite.renamed(v)
                    ),
                );
            }
            Some(v) => exit.holders(rewrite.renamed(v)),
            None => Vec::new(),
        };
        holders.retain(not_result);
        holders.push(result);
        holders.sort_unstable();
        holders.dedup();
        if writes.iter().any(|(l, _)| *l == rewrite.renamed(result)) {
            return error(Some(i), format!("two PHIs write {:?}", rewrite.renamed(result)));
        }
        writes.push((rewrite.renamed(result), holders));
    }
    // The results' values from the previous time round are gone.
    let mut state = exit.clone();
    for &r in &results {
        state.forget(r);
    }
    for (result, locations) in aliases {
        for location in locations {
            state.add(location, result);
        }
    }
    for (location, holders) in writes {
        state.set(location, &holders);
    }
    Ok(state)
}

/// What the checker knows about the rewrite beyond its rename map.
struct Context<'a> {
    f: &'a Function,
    deleted: FxHashSet<Inst>,
    remat_source: FxHashMap<Inst, Inst>,
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
        state.copy_value(at(dst), dst, src, vec![src]);
        return Ok(());
    }

    if deleted.contains(&i) && data.kind != InstKind::Copy {
        // Only a pure constant may go; whatever it defined is gone with it.
        if !is_pure_constant(data) {
            return error(Some(i), "deleted an instruction that has effects or inputs".into());
        }
        for o in &data.operands {
            state.forget(o.vreg);
        }
        return Ok(());
    }

    if deleted.contains(&i) {
        let is_copy = data.kind == InstKind::Copy;
        let (dst, src) = match data.operands.as_slice() {
            [d, s] if is_copy && d.is_def() && s.reads() => (d.vreg, s.vreg),
            _ => return error(Some(i), "deleted an instruction that is not a plain copy".into()),
        };
        if location[0] != location[1] {
            return error(Some(i), format!("deleted copy {dst:?} <- {src:?} joins two different registers"));
        }
        if dst != src {
            state.forget(dst);
            state.alias(dst, src);
        }
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
    // A copy's destination holds what its source held; any other def holds a
    // fresh value.
    if let (InstKind::Copy, [d, s]) = (data.kind, data.operands.as_slice()) {
        if d.is_def() && s.reads() {
            let source_holders = state.holders(location[1]);
            state.copy_value(at(d.vreg), d.vreg, s.vreg, source_holders);
            return Ok(());
        }
    }
    for &d in &defs {
        state.forget(d);
    }
    for &d in &defs {
        state.set(at(d), &[d]);
    }
    Ok(())
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

//! Spill code for the values coloring could not keep in registers: a store
//! into the value's slot after each def and a reload before uses, or, for a
//! value an input-free side-effect-free instruction computes, a clone of that
//! instruction before uses (rematerialization) and no slot at all.
//!
//! Reloads are placed lazily, right before a use, and each spilled value has
//! a [`Level`] saying how far one reload may serve later uses. At first, uses
//! that follow a def in its block read the def's register and need no reload
//! at all ([`Spilled::keep_def`]). A value starts
//! at [`Level::Lazy`]: one temporary register per value, reloaded only where
//! a forward "already reloaded on every incoming path" dataflow says it does
//! not hold the value yet. That can leave the temporary live across a long
//! stretch; if coloring then fails on it, the value drops to
//! [`Level::Block`] (a fresh temporary per block, reused within it), then to
//! [`Level::EveryUse`] (a reload before every instruction that reads it),
//! whose temporaries live from the reload to the next instruction only.
//!
//! Spill slots are shared by spilled values of one class whose live ranges do
//! not overlap (slot coalescing), greedily in vreg order.

use crate::function::{Block, Function, Inst, InstFlags, InstKind, RegClass, VReg};
use crate::interference::InterferenceGraph;
use crate::rewrite::{Insert, Place, Rewrite, Slot, SpillOp, UseSubstitution};

/// How far one reload (or rematerialization) of a spilled value serves later
/// uses; each step down gives shorter temporaries and more reloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Lazy,
    Block,
    EveryUse,
}

impl Level {
    pub fn lower(self) -> Option<Level> {
        match self {
            Level::Lazy => Some(Level::Block),
            Level::Block => Some(Level::EveryUse),
            Level::EveryUse => None,
        }
    }
}

/// Where a spilled value lives between uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Home {
    Slot,
    /// Recomputed by cloning this instruction, its only def.
    Remat(Inst),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spilled {
    pub value: VReg,
    pub home: Home,
    pub level: Level,
    /// Uses after a def in the def's block read the def's own register
    /// rather than a reload. That keeps the register live up to the block's
    /// last such use; if it then fails to color, this is turned off and the
    /// register lives from the def to its store only.
    pub keep_def: bool,
}

/// Classes spill code handles: those NVPTX stores to local memory as they
/// are (`st.local.b16/b32/b64`), and predicates, which go through a 16-bit
/// register ([`PREDICATE_CLASS`]). 128-bit registers are not supported.
pub fn is_spillable_class(name: &str) -> bool {
    matches!(name, PREDICATE_CLASS | "B16" | "B32" | "B64")
}

/// NVPTX's predicate class: no load or store takes one, so a predicate is
/// spilled as 0 or 1 in a register of [`PREDICATE_CARRIER_CLASS`]
/// (`selp.b16 %rs, 1, 0, %p` before the store, `setp.ne.b16 %p, %rs, 0`
/// after the reload), and its slot is that class's.
pub const PREDICATE_CLASS: &str = "B1";
pub const PREDICATE_CARRIER_CLASS: &str = "B16";

/// Bytes of a slot for `class`.
pub fn slot_bytes(name: &str) -> u64 {
    match name {
        "B16" => 2,
        "B32" => 4,
        _ => 8,
    }
}

/// The instruction that may be cloned to recompute `v`: `v`'s only def, with
/// no register inputs, no side effects and no memory access, and which the
/// target says may be recomputed (or is a move of an immediate).
pub fn remat_source(f: &Function, defs: &[Vec<Inst>], v: VReg) -> Option<Inst> {
    let [i] = defs[v.index()].as_slice() else { return None };
    let data = f.inst(*i);
    let cheap = data.kind == InstKind::MoveImm || data.flags.contains(InstFlags::REMATERIALIZABLE);
    let pure = !data.flags.intersects(InstFlags::SIDE_EFFECTS | InstFlags::MAY_LOAD | InstFlags::MAY_STORE);
    let only_def =
        data.operands.len() == 1 && data.operands[0].is_def() && data.operands[0].tied_to.is_none();
    (cheap && pure && only_def).then_some(*i)
}

/// What the spill code of one round adds up to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpillCounts {
    pub slot_values: u64,
    pub remat_values: u64,
    pub stores: u64,
    pub reloads: u64,
    pub remats: u64,
    /// Reloads and rematerializations a placement before every reading
    /// instruction would have needed.
    pub reloads_every_use: u64,
    pub remats_every_use: u64,
    pub slots: u64,
    pub slot_bytes: u64,
}

/// What a new vreg of spill code holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Temp {
    /// A reload or rematerialization of this spilled value.
    Of(VReg),
    /// A predicate's 0 or 1 on its way to or from a slot, from one
    /// instruction to the next.
    PredicateCarrier,
}

/// Spill code for `spilled` (sorted by value): the edits, with an identity
/// rename over the original and new vregs, and what each new vreg holds.
pub struct SpillCode {
    pub rewrite: Rewrite,
    pub temps: Vec<Temp>,
    pub counts: SpillCounts,
}

/// One event of a spilled value in a block: an instruction reading it (and
/// which of its operands do), or writing it.
enum Event {
    Use(Inst, Vec<u32>),
    Def(Inst),
}

pub fn insert_spill_code(f: &Function, original_graph: &InterferenceGraph, spilled: &[Spilled]) -> SpillCode {
    let mut code = SpillCode {
        rewrite: Rewrite::identity(f.num_vregs()),
        temps: Vec::new(),
        counts: SpillCounts::default(),
    };
    let slot_of = assign_slots(f, original_graph, spilled, &mut code);
    for s in spilled {
        let events = events_by_block(f, s.value);
        let class = f.class_of(s.value).expect("spilled values have a class");
        let uses: u64 = events.iter().flatten().filter(|e| matches!(e, Event::Use(..))).count() as u64;
        match s.home {
            Home::Slot => code.counts.reloads_every_use += uses,
            Home::Remat(def) => {
                code.counts.remats_every_use += uses;
                // Every use now reads a clone, so the original is dead.
                code.rewrite.deleted.push(def);
            }
        }
        let slot = slot_of[s.value.index()];
        // Where a predicate has a slot, its 0 or 1 travels in this class.
        let carrier_class = (f.class_name(class) == PREDICATE_CLASS && slot.is_some())
            .then(|| code.class_named(f, PREDICATE_CARRIER_CLASS));
        // Lazy: one temporary for the whole function, and the blocks it
        // already holds the value on entry to.
        let lazy_temp = (s.level == Level::Lazy && uses > 0).then(|| code.new_temp(class, Temp::Of(s.value)));
        // A rematerialized value's def is deleted: nothing to read.
        let reads_def = s.keep_def && s.home == Home::Slot;
        let available_on_entry = lazy_temp.map(|_| lazy_availability(f, &events, reads_def));
        for (b, block_events) in events.iter().enumerate() {
            let mut current = lazy_temp.filter(|_| available_on_entry.as_ref().is_some_and(|a| a[b]));
            for e in block_events {
                match e {
                    Event::Def(i) => {
                        if let Some(slot) = slot {
                            let mut src = s.value;
                            if let Some(carrier_class) = carrier_class {
                                let carrier = code.new_temp(carrier_class, Temp::PredicateCarrier);
                                code.push(Place::After(*i), SpillOp::Convert { dst: carrier, src });
                                src = carrier;
                            }
                            code.push(Place::After(*i), SpillOp::Store { slot, src });
                            code.counts.stores += 1;
                        }
                        current = reads_def.then_some(s.value);
                    }
                    Event::Use(i, operands) => {
                        let temp = match current {
                            Some(held) if held == s.value || s.level != Level::EveryUse => held,
                            _ => {
                                let temp =
                                    lazy_temp.unwrap_or_else(|| code.new_temp(class, Temp::Of(s.value)));
                                // A use in a terminator after the first (the index of
                                // a jump table's brx.idx) is reloaded before the first:
                                // nothing may sit between terminators.
                                let at = Inst(i.0.min(f.first_terminator(Block::new(b)).0));
                                let place = Place::Before(at);
                                match (s.home, carrier_class) {
                                    (Home::Slot, Some(carrier_class)) => {
                                        let carrier = code.new_temp(carrier_class, Temp::PredicateCarrier);
                                        let slot = slot.expect("a slot");
                                        code.push(place, SpillOp::Reload { slot, dst: carrier });
                                        code.push(place, SpillOp::Convert { dst: temp, src: carrier });
                                        code.counts.reloads += 1;
                                    }
                                    (Home::Slot, None) => {
                                        code.push(
                                            place,
                                            SpillOp::Reload { slot: slot.expect("a slot"), dst: temp },
                                        );
                                        code.counts.reloads += 1;
                                    }
                                    (Home::Remat(source), _) => {
                                        code.push(place, SpillOp::Remat { source, dst: temp });
                                        code.counts.remats += 1;
                                    }
                                }
                                temp
                            }
                        };
                        current = Some(temp);
                        for &operand in operands {
                            code.rewrite.substitutions.push(UseSubstitution {
                                inst: *i,
                                operand,
                                vreg: temp,
                            });
                        }
                    }
                }
            }
        }
    }
    code.rewrite.inserts.sort_by_key(|x| x.place);
    code.rewrite.substitutions.sort_unstable();
    code.rewrite.deleted.sort_unstable();
    code
}

impl SpillCode {
    fn new_temp(&mut self, class: RegClass, temp: Temp) -> VReg {
        let v = VReg::new(self.rewrite.rename.len());
        self.rewrite.rename.push(v);
        self.rewrite.new_vregs.push(class);
        self.temps.push(temp);
        v
    }

    fn push(&mut self, place: Place, op: SpillOp) {
        self.rewrite.inserts.push(Insert { place, op });
    }

    /// The class named `name`, added to the rewrite's new classes if `f` has
    /// none.
    fn class_named(&mut self, f: &Function, name: &str) -> RegClass {
        let known = f.class_names.iter().chain(&self.rewrite.new_classes).position(|n| n == name);
        RegClass::new(known.unwrap_or_else(|| {
            self.rewrite.new_classes.push(name.to_owned());
            f.class_names.len() + self.rewrite.new_classes.len() - 1
        }))
    }
}

/// A slot per spilled value that has no rematerialization; values of one
/// class that do not interfere share one.
fn assign_slots(
    f: &Function,
    graph: &InterferenceGraph,
    spilled: &[Spilled],
    code: &mut SpillCode,
) -> Vec<Option<Slot>> {
    let mut slot_of = vec![None; f.num_vregs()];
    let mut members: Vec<Vec<VReg>> = Vec::new();
    for s in spilled {
        if s.home != Home::Slot {
            code.counts.remat_values += 1;
            continue;
        }
        code.counts.slot_values += 1;
        let value_class = f.class_of(s.value).expect("spilled values have a class");
        let stored_as = match f.class_name(value_class) {
            PREDICATE_CLASS => PREDICATE_CARRIER_CLASS,
            name => name,
        };
        let class = code.class_named(f, stored_as);
        // Interference is only known within a class: a predicate and a
        // 16-bit value never share a slot.
        let shared = (0..members.len()).find(|&k| {
            f.class_of(members[k][0]) == Some(value_class)
                && members[k].iter().all(|&w| !graph.interferes(w, s.value))
        });
        let slot = shared.unwrap_or_else(|| {
            code.rewrite.slots.push(class);
            members.push(Vec::new());
            code.counts.slots += 1;
            code.counts.slot_bytes += slot_bytes(stored_as);
            members.len() - 1
        });
        members[slot].push(s.value);
        slot_of[s.value.index()] = Some(slot as Slot);
    }
    slot_of
}

/// Whether every use of `v` follows a def of it in the same block: spilled
/// with `keep_def`, such a value would still be read from its own register
/// everywhere, and its live range would not shrink at all.
pub fn only_read_after_local_defs(f: &Function, v: VReg) -> bool {
    events_by_block(f, v).iter().all(|events| {
        let first_def = events.iter().position(|e| matches!(e, Event::Def(_)));
        let first_use = events.iter().position(|e| matches!(e, Event::Use(..)));
        first_use.is_none_or(|u| first_def.is_some_and(|d| d < u))
    })
}

/// Each block's reads and writes of `v`, in order (a read before a write
/// within one instruction).
fn events_by_block(f: &Function, v: VReg) -> Vec<Vec<Event>> {
    f.block_ids()
        .map(|b| {
            let mut events = Vec::new();
            for i in f.block_insts(b) {
                let data = f.inst(i);
                let reads: Vec<u32> = (0..data.operands.len() as u32)
                    .filter(|&k| data.operands[k as usize].reads() && data.operands[k as usize].vreg == v)
                    .collect();
                if !reads.is_empty() {
                    events.push(Event::Use(i, reads));
                }
                if data.operands.iter().any(|o| o.is_def() && o.vreg == v) {
                    events.push(Event::Def(i));
                }
            }
            events
        })
        .collect()
}

/// For lazy reloads: whether the value's temporary holds it on entry to each
/// block, on every path (a forward must-dataflow: a reload makes it hold the
/// value, a def of the value makes it stale; the entry holds nothing). With
/// `reads_def`, uses after a def read the def's register, not a reload.
fn lazy_availability(f: &Function, events: &[Vec<Event>], reads_def: bool) -> Vec<bool> {
    let transfer = |b: usize, on_entry: bool| {
        let mut held = on_entry;
        let mut after_def = false;
        for e in &events[b] {
            match e {
                Event::Def(_) => (held, after_def) = (false, reads_def),
                Event::Use(..) => held |= !after_def,
            }
        }
        held
    };
    let n = f.blocks.len();
    let mut entry = vec![true; n];
    let mut exit: Vec<bool> = (0..n).map(|b| transfer(b, true)).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for b in f.block_ids() {
            let preds = &f.block(b).preds;
            let on_entry = b.index() != 0 && !preds.is_empty() && preds.iter().all(|p| exit[p.index()]);
            let on_exit = transfer(b.index(), on_entry);
            if on_entry != entry[b.index()] || on_exit != exit[b.index()] {
                entry[b.index()] = on_entry;
                exit[b.index()] = on_exit;
                changed = true;
            }
        }
    }
    entry
}

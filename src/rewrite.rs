//! What a pass returns: a plain list of edits to the function it was given,
//! plus the figures it wants reported.

use std::collections::BTreeMap;
use std::ffi::{CStr, CString};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::function::{Block, Function, Inst, InstData, InstFlags, InstKind, Operand, RegClass, VReg};

/// A copy replaced by a clone of the instruction that computes its source
/// (a constant), writing the copy's destination instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Remat {
    pub copy: Inst,
    pub source: Inst,
}

/// A spill slot: one stack object in PTX local memory, sized for its class.
pub type Slot = u32;

/// An instruction spill code adds. Its registers are those before renaming,
/// like every other operand of the rewrite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpillOp {
    /// Store `src` into `slot`.
    Store { slot: Slot, src: VReg },
    /// Load `slot` into `dst`.
    Reload { slot: Slot, dst: VReg },
    /// A clone of `source` (a side-effect-free instruction with one def)
    /// that writes `dst` instead of its def and reads the same registers:
    /// the checker proves they still hold the values `source` read.
    Remat { source: Inst, dst: VReg },
    /// `dst = src` between a predicate and a 16-bit register (as 0 or 1):
    /// predicates have no load or store, so their spill code goes through a
    /// 16-bit one. Which way it converts follows from the two classes.
    Convert { dst: VReg, src: VReg },
}

/// `op`, inserted right before or right after original instruction `at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Place {
    Before(Inst),
    After(Inst),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Insert {
    pub place: Place,
    pub op: SpillOp,
}

/// Operand `operand` (an index among the instruction's vreg operands, a use)
/// of original instruction `inst` reads `vreg` instead: a reload or
/// rematerialization temporary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct UseSubstitution {
    pub inst: Inst,
    pub operand: u32,
    pub vreg: VReg,
}

/// Edits applied together: copies in `remats` become clones of their source
/// instruction, the uses in `substitutions` read their new vreg, every
/// operand `v` becomes `rename[v]`, the `deleted` instructions are removed
/// and the spill code `inserts` added.
///
/// Vregs from `f.num_vregs()` on are the `new_vregs` (spill temporaries) the
/// rewrite creates, in order; `rename` covers them too.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rewrite {
    pub rename: Vec<VReg>,
    /// Ascending.
    pub deleted: Vec<Inst>,
    /// Ascending by copy.
    pub remats: Vec<Remat>,
    /// Class of each new vreg.
    pub new_vregs: Vec<RegClass>,
    /// Classes the function had no vreg of, that new vregs or slots need,
    /// by name; they number on from the function's own classes.
    pub new_classes: Vec<String>,
    /// Class of each spill slot.
    pub slots: Vec<RegClass>,
    /// Ascending by place (stable: in execution order within one place).
    pub inserts: Vec<Insert>,
    /// Ascending.
    pub substitutions: Vec<UseSubstitution>,
}

impl Rewrite {
    pub fn identity(num_vregs: usize) -> Self {
        Self { rename: (0..num_vregs).map(VReg::new).collect(), ..Self::default() }
    }

    pub fn is_identity(&self) -> bool {
        self.deleted.is_empty()
            && self.remats.is_empty()
            && self.inserts.is_empty()
            && self.substitutions.is_empty()
            && self.rename.iter().enumerate().all(|(i, v)| v.index() == i)
    }

    /// The copies this renaming makes redundant: those whose two registers
    /// became one.
    pub fn redundant_after_renaming(&self, f: &Function) -> Vec<Inst> {
        (0..f.insts.len())
            .map(Inst::new)
            .filter(|&i| f.copy_pair(i).is_some_and(|(d, s)| self.renamed(d) == self.renamed(s)))
            .collect()
    }

    /// For each register of the rewritten function, how many of the original
    /// instructions the rewrite keeps write it (spill code not counted).
    pub fn defs_per_register(&self, f: &Function) -> Vec<u32> {
        let mut defs = vec![0u32; self.rename.len()];
        for i in (0..f.insts.len()).map(Inst::new).filter(|i| self.deleted.binary_search(i).is_err()) {
            let mut written: Vec<VReg> = f.defs(i).map(|v| self.renamed(v)).collect();
            written.sort_unstable();
            written.dedup();
            for r in written {
                defs[r.index()] += 1;
            }
        }
        defs
    }

    pub fn renamed(&self, v: VReg) -> VReg {
        self.rename[v.index()]
    }

    /// The spill code at `place`, in execution order.
    pub fn inserts_at(&self, place: Place) -> &[Insert] {
        let start = self.inserts.partition_point(|x| x.place < place);
        let end = self.inserts.partition_point(|x| x.place <= place);
        &self.inserts[start..end]
    }

    /// The vreg operand `operand` of `i` reads once substituted (not renamed).
    pub fn substituted(&self, i: Inst, operand: usize, original: VReg) -> VReg {
        let key = (i, operand as u32);
        match self.substitutions.binary_search_by(|s| (s.inst, s.operand).cmp(&key)) {
            Ok(at) => self.substitutions[at].vreg,
            Err(_) => original,
        }
    }

    /// Classes of every vreg the rewritten function has.
    pub fn classes(&self, f: &Function) -> Vec<Option<RegClass>> {
        f.vreg_class.iter().copied().chain(self.new_vregs.iter().map(|&c| Some(c))).collect()
    }

    /// The function as it reads after the rewrite, and for each of its
    /// instructions the original it came from (`None`: an edge copy or spill
    /// code). Spill code becomes `InstKind::SpillStore` / `Reload`
    /// instructions whose opcode is the slot; a conversion becomes a `Copy`
    /// between two classes, which moves the value as the conversion does and
    /// is no copy coalescing may remove (`Function::copy_pair`).
    pub fn apply(&self, f: &Function) -> (Function, Vec<Option<Inst>>) {
        let mut out = f.clone();
        out.vreg_class = self.classes(f);
        out.class_names.extend(self.new_classes.iter().cloned());
        out.insts.clear();
        let mut origin = Vec::new();
        let mut deleted = self.deleted.iter().peekable();
        for (b, block) in f.blocks.iter().enumerate() {
            let b_id = Block::new(b);
            let first = out.insts.len() as u32;
            for i in f.block_insts(b_id) {
                self.push_inserts(f, Place::Before(i), &mut out, &mut origin);
                if deleted.next_if_eq(&&i).is_some() {
                    self.push_inserts(f, Place::After(i), &mut out, &mut origin);
                    continue;
                }
                let mut data = match self.remats.iter().find(|r| r.copy == i) {
                    Some(r) => {
                        let mut clone = f.inst(r.source).clone();
                        clone.operands[0].vreg = f.inst(i).operands[0].vreg;
                        clone
                    }
                    None => f.inst(i).clone(),
                };
                for (k, operand) in data.operands.iter_mut().enumerate() {
                    operand.vreg = self.renamed(self.substituted(i, k, operand.vreg));
                }
                out.insts.push(data);
                origin.push(Some(i));
                self.push_inserts(f, Place::After(i), &mut out, &mut origin);
            }
            out.blocks[b].first_inst = first;
            out.blocks[b].num_insts = out.insts.len() as u32 - first;
            debug_assert_eq!(out.blocks[b].succs, block.succs);
        }
        (out, origin)
    }

    fn push_inserts(&self, f: &Function, place: Place, out: &mut Function, origin: &mut Vec<Option<Inst>>) {
        for insert in self.inserts_at(place) {
            let data = match insert.op {
                SpillOp::Store { slot, src } => InstData {
                    kind: InstKind::SpillStore,
                    flags: InstFlags::empty(),
                    opcode: slot,
                    operands: vec![Operand::use_of(self.renamed(src))],
                },
                SpillOp::Reload { slot, dst } => InstData {
                    kind: InstKind::Reload,
                    flags: InstFlags::empty(),
                    opcode: slot,
                    operands: vec![Operand::def(self.renamed(dst))],
                },
                SpillOp::Remat { source, dst } => {
                    let mut clone = f.inst(source).clone();
                    for o in &mut clone.operands {
                        o.vreg = self.renamed(if o.is_def() { dst } else { o.vreg });
                    }
                    clone
                }
                SpillOp::Convert { dst, src } => InstData {
                    kind: InstKind::Copy,
                    flags: InstFlags::empty(),
                    opcode: 0,
                    operands: vec![Operand::def(self.renamed(dst)), Operand::use_of(self.renamed(src))],
                },
            };
            out.insts.push(data);
            origin.push(None);
        }
    }
}

/// One figure for statistics and remarks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stat {
    pub name: &'static CStr,
    pub value: u64,
}

/// A statistic name made at run time (e.g. per register class), interned so
/// that it lives as long as the static ones: there are few distinct names.
pub fn stat_name(name: &str) -> &'static CStr {
    static NAMES: Mutex<BTreeMap<String, &'static CStr>> = Mutex::new(BTreeMap::new());
    let mut names = NAMES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    names.entry(name.to_owned()).or_insert_with(|| {
        Box::leak(CString::new(name).expect("no NUL in a statistic name").into_boxed_c_str())
    })
}

/// A copy left in place, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeptCopy {
    pub inst: Inst,
    pub reason: &'static CStr,
}

/// Wall time per phase, for the JSON report.
#[derive(Clone, Debug, Default)]
pub struct PhaseTimes(pub Vec<(&'static str, Duration)>);

impl PhaseTimes {
    pub fn time<T>(&mut self, phase: &'static str, work: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let result = work();
        self.0.push((phase, start.elapsed()));
        result
    }
}

/// How a pass treated a function's interference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// It built the interference graph.
    Graph,
    /// The graph would have been too big; it worked from live ranges.
    GraphFree,
    /// The graph would have been too big and the pass has no graph-free
    /// method: the function is left as it was.
    Guard,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Self::Graph => "graph",
            Self::GraphFree => "graph-free",
            Self::Guard => "guard",
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct PassOutcome {
    pub rewrite: Rewrite,
    pub stats: Vec<Stat>,
    pub kept_copies: Vec<KeptCopy>,
    pub phases: PhaseTimes,
    /// How interference was handled (`None`: the pass did not need it).
    pub method: Option<Method>,
    /// Said in a remark: why the function was treated as it was, if that
    /// needs saying.
    pub note: Option<String>,
    /// The interference graph in Graphviz form, where `-nvregalloc-dot`
    /// asks for it; the FFI boundary writes it.
    pub dot: Option<String>,
}

impl PassOutcome {
    /// Leaves `f` as it is because its interference graph would take
    /// `census.graph_entries` entries, over `limit`.
    pub fn guarded(
        f: &crate::function::Function,
        census: &crate::interference::Census,
        limit: u64,
        phases: PhaseTimes,
    ) -> Self {
        Self {
            rewrite: Rewrite::identity(f.num_vregs()),
            stats: vec![Stat { name: c"graph-entries", value: census.graph_entries }],
            kept_copies: Vec::new(),
            phases,
            method: Some(Method::Guard),
            note: Some(format!("left unchanged: {}", census.over(limit))),
            dot: None,
        }
    }

    pub fn stat(&self, name: &str) -> Option<u64> {
        self.stats.iter().find(|s| s.name.to_bytes() == name.as_bytes()).map(|s| s.value)
    }
}

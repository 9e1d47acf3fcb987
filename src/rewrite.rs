//! What a pass returns: a plain list of edits to the function it was given,
//! plus the figures it wants reported.

use std::collections::BTreeMap;
use std::ffi::{CStr, CString};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::function::{Block, Function, Inst, InstData, InstFlags, InstKind, Operand, VReg};

/// A copy replaced by a clone of the instruction that computes its source
/// (a constant), writing the copy's destination instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Remat {
    pub copy: Inst,
    pub source: Inst,
}

/// A new copy `dst = src` at the end of `block`, before its terminators. Its
/// registers are those of the rewritten function (already renamed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EdgeCopy {
    pub block: Block,
    pub dst: VReg,
    pub src: VReg,
}

/// Edits applied together: copies in `remats` become clones of their source
/// instruction, every operand `v` becomes `rename[v]`, the `deleted`
/// instructions are removed and the `edge_copies` inserted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rewrite {
    pub rename: Vec<VReg>,
    /// Ascending.
    pub deleted: Vec<Inst>,
    /// Ascending by copy.
    pub remats: Vec<Remat>,
    /// Ascending by block; within a block in the order they execute.
    pub edge_copies: Vec<EdgeCopy>,
}

impl Rewrite {
    pub fn identity(num_vregs: usize) -> Self {
        Self { rename: (0..num_vregs).map(VReg::new).collect(), ..Self::default() }
    }

    pub fn is_identity(&self) -> bool {
        self.deleted.is_empty()
            && self.remats.is_empty()
            && self.edge_copies.is_empty()
            && self.rename.iter().enumerate().all(|(i, v)| v.index() == i)
    }

    /// The copies to insert at the end of `b`.
    pub fn edge_copies_of(&self, b: Block) -> &[EdgeCopy] {
        let start = self.edge_copies.partition_point(|c| c.block < b);
        let end = self.edge_copies.partition_point(|c| c.block <= b);
        &self.edge_copies[start..end]
    }

    pub fn renamed(&self, v: VReg) -> VReg {
        self.rename[v.index()]
    }

    /// The function as it reads after the rewrite, and for each of its
    /// instructions the original it came from (`None`: an edge copy).
    pub fn apply(&self, f: &Function) -> (Function, Vec<Option<Inst>>) {
        let mut out = f.clone();
        out.insts.clear();
        let mut origin = Vec::new();
        let mut deleted = self.deleted.iter().peekable();
        for (b, block) in f.blocks.iter().enumerate() {
            let b_id = Block::new(b);
            let first = out.insts.len() as u32;
            let terminators = f.first_terminator(b_id);
            for i in f.block_insts(b_id) {
                if i == terminators {
                    self.push_edge_copies(b_id, &mut out, &mut origin);
                }
                if deleted.next_if_eq(&&i).is_some() {
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
                for operand in &mut data.operands {
                    operand.vreg = self.renamed(operand.vreg);
                }
                out.insts.push(data);
                origin.push(Some(i));
            }
            if terminators.0 == block.first_inst + block.num_insts {
                self.push_edge_copies(b_id, &mut out, &mut origin);
            }
            out.blocks[b].first_inst = first;
            out.blocks[b].num_insts = out.insts.len() as u32 - first;
            debug_assert_eq!(out.blocks[b].succs, block.succs);
        }
        (out, origin)
    }

    fn push_edge_copies(&self, b: Block, out: &mut Function, origin: &mut Vec<Option<Inst>>) {
        for copy in self.edge_copies_of(b) {
            out.insts.push(InstData {
                kind: InstKind::Copy,
                flags: InstFlags::empty(),
                opcode: 0,
                operands: vec![Operand::def(copy.dst), Operand::use_of(copy.src)],
            });
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

#[derive(Clone, Debug, Default)]
pub struct PassOutcome {
    pub rewrite: Rewrite,
    pub stats: Vec<Stat>,
    pub kept_copies: Vec<KeptCopy>,
    pub phases: PhaseTimes,
}

impl PassOutcome {
    pub fn stat(&self, name: &str) -> Option<u64> {
        self.stats.iter().find(|s| s.name.to_bytes() == name.as_bytes()).map(|s| s.value)
    }
}

//! Which virtual registers hold a value that may still be read: live-in and
//! live-out sets per block by backward dataflow over a worklist, and a
//! backward walk through a block for the phases that need liveness at every
//! instruction (interference, register pressure).

use std::collections::VecDeque;

use fixedbitset::FixedBitSet;

use crate::function::{Block, Function, Inst, InstKind, RegClass, VReg};

/// Live-in and live-out sets per block, as sorted vectors: values live across
/// block boundaries are few, and dense sets would cost blocks x vregs.
pub struct Liveness {
    pub live_in: Vec<Vec<VReg>>,
    pub live_out: Vec<Vec<VReg>>,
}

impl Liveness {
    pub fn compute(f: &Function) -> Self {
        let _span = tracing::debug_span!("liveness").entered();
        let num_blocks = f.blocks.len();
        // Per block: registers read before any write in it (upward-exposed),
        // and registers it writes; `seen` marks, per vreg, the last block that
        // wrote it (+1) so each block is scanned once.
        let mut exposed = vec![Vec::new(); num_blocks];
        let mut written = vec![Vec::new(); num_blocks];
        let mut wrote_in = vec![u32::MAX; f.num_vregs()];
        // A PHI's operand is read at the end of the predecessor it comes from,
        // so it is live out of that block only: `phi_reads[p]`.
        let mut phi_reads = vec![Vec::new(); num_blocks];
        for b in f.block_ids() {
            for i in f.block_insts(b) {
                if f.inst(i).kind == InstKind::Phi {
                    for o in f.inst(i).operands.iter().filter(|o| o.reads()) {
                        if let Some(p) = o.incoming {
                            phi_reads[p.index()].push(o.vreg);
                        }
                    }
                }
                for v in f.uses(i).filter(|_| f.inst(i).kind != InstKind::Phi) {
                    if wrote_in[v.index()] != b.0 {
                        exposed[b.index()].push(v);
                    }
                }
                for v in f.defs(i) {
                    if wrote_in[v.index()] != b.0 {
                        wrote_in[v.index()] = b.0;
                        written[b.index()].push(v);
                    }
                }
            }
            exposed[b.index()].sort_unstable();
            exposed[b.index()].dedup();
            written[b.index()].sort_unstable();
        }

        let mut live_in: Vec<Vec<VReg>> = vec![Vec::new(); num_blocks];
        let mut live_out: Vec<Vec<VReg>> = vec![Vec::new(); num_blocks];
        // Later blocks first: in layout order most successors come later, so
        // this approximates a postorder and converges in few sweeps.
        let mut queued = FixedBitSet::with_capacity(num_blocks);
        queued.insert_range(..);
        let mut worklist: VecDeque<Block> = f.block_ids().rev().collect();
        while let Some(b) = worklist.pop_front() {
            queued.set(b.index(), false);
            let mut out: Vec<VReg> =
                f.block(b).succs.iter().flat_map(|s| live_in[s.index()].iter().copied()).collect();
            out.extend_from_slice(&phi_reads[b.index()]);
            out.sort_unstable();
            out.dedup();
            let written = &written[b.index()];
            let mut inside: Vec<VReg> =
                out.iter().copied().filter(|v| written.binary_search(v).is_err()).collect();
            inside.extend_from_slice(&exposed[b.index()]);
            inside.sort_unstable();
            inside.dedup();
            live_out[b.index()] = out;
            if inside != live_in[b.index()] {
                live_in[b.index()] = inside;
                for &p in &f.block(b).preds {
                    if !queued.put(p.index()) {
                        worklist.push_back(p);
                    }
                }
            }
        }
        Self { live_in, live_out }
    }
}

/// A set of vregs with O(1) insert, remove and membership, and iteration in
/// time proportional to its size, over the whole set or one class's members,
/// for walking through blocks.
pub struct LiveSet {
    /// Members, one list per class; the last list holds vregs with no class.
    dense: Vec<Vec<VReg>>,
    /// Each vreg's index within its list, or `u32::MAX` if not a member.
    position: Vec<u32>,
    /// Each vreg's list.
    list: Vec<u32>,
}

impl LiveSet {
    pub fn new(f: &Function) -> Self {
        let no_class = f.class_names.len() as u32;
        Self {
            dense: vec![Vec::new(); f.class_names.len() + 1],
            position: vec![u32::MAX; f.num_vregs()],
            list: f.vreg_class.iter().map(|c| c.map_or(no_class, |c| c.0)).collect(),
        }
    }

    pub fn contains(&self, v: VReg) -> bool {
        self.position[v.index()] != u32::MAX
    }

    pub fn insert(&mut self, v: VReg) {
        if !self.contains(v) {
            let list = self.list[v.index()] as usize;
            self.position[v.index()] = self.dense[list].len() as u32;
            self.dense[list].push(v);
        }
    }

    pub fn remove(&mut self, v: VReg) {
        let at = self.position[v.index()];
        if at == u32::MAX {
            return;
        }
        let list = self.list[v.index()] as usize;
        let last = self.dense[list].pop().expect("non-empty");
        if last != v {
            self.dense[list][at as usize] = last;
            self.position[last.index()] = at;
        }
        self.position[v.index()] = u32::MAX;
    }

    /// How many members `class` has.
    pub fn count(&self, class: RegClass) -> u32 {
        self.dense[class.index()].len() as u32
    }

    pub fn reset_to(&mut self, members: &[VReg]) {
        for list in &mut self.dense {
            for v in list.drain(..) {
                self.position[v.index()] = u32::MAX;
            }
        }
        for &v in members {
            self.insert(v);
        }
    }

    /// The members of `class`.
    pub fn iter_class(&self, class: RegClass) -> impl Iterator<Item = VReg> + '_ {
        self.dense[class.index()].iter().copied()
    }
}

/// Walks block `b` from its end to its start. For each instruction, `visit`
/// sees the instruction and the set live just after it; the set is then
/// stepped back over the instruction (its defs removed, its uses added, except
/// a PHI's, which are read in the predecessors). PHIs are visited like other
/// instructions, so a PHI's result interferes with what is live after the
/// PHIs, including the results of the PHIs after it.
pub fn walk_block_backward(
    f: &Function,
    liveness: &Liveness,
    b: Block,
    live: &mut LiveSet,
    mut visit: impl FnMut(Inst, &LiveSet),
) {
    live.reset_to(&liveness.live_out[b.index()]);
    for i in f.block_insts(b).rev() {
        visit(i, live);
        for v in f.defs(i) {
            live.remove(v);
        }
        if f.inst(i).kind != InstKind::Phi {
            for v in f.uses(i) {
                live.insert(v);
            }
        }
    }
}

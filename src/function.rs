//! The function abstraction every phase works on: blocks in layout order,
//! instructions with their virtual-register operands, and register classes.
//! It is an owned copy of what the shim flattened (see `ffi`), so the core and
//! its tests never touch LLVM.

use std::fmt;

macro_rules! index_type {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub u32);

        impl $name {
            pub fn new(index: usize) -> Self {
                Self(u32::try_from(index).expect(concat!(stringify!($name), " index fits u32")))
            }
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

index_type!(
    /// A basic block, by position in layout order.
    Block, "bb"
);
index_type!(
    /// An instruction, by position in the function (debug instructions excluded).
    Inst, "i"
);
index_type!(
    /// A virtual register, by LLVM's virtual register index.
    VReg, "v"
);
index_type!(
    /// A register class, by index into `Function::class_names`.
    RegClass, "rc"
);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InstKind {
    Other,
    /// COPY or a target register-to-register move.
    Copy,
    MoveImm,
    Call,
    Terminator,
    Phi,
    ImplicitDef,
    /// Spill code (only in a function a rewrite produced): stores its one
    /// use into, or loads its one def from, the spill slot numbered `opcode`.
    SpillStore,
    Reload,
}

bitflags::bitflags! {
    /// Facts the shim reports about an instruction.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct InstFlags: u32 {
        const PHYS_REG = 1 << 1;
        const SIDE_EFFECTS = 1 << 2;
        const MAY_LOAD = 1 << 3;
        const MAY_STORE = 1 << 4;
        const REMATERIALIZABLE = 1 << 5;
        /// Defines a stack-frame address that must stay its register's only
        /// def (see `Function::frame_addresses`).
        const FRAME_ADDRESS = 1 << 6;
        /// One cheap ALU instruction (`pressure::is_cheap_alu_opcode`, which
        /// sets it): worth recomputing next to its uses rather than keeping
        /// its value in a register where registers cost warps.
        const CHEAP = 1 << 7;
    }
}

bitflags::bitflags! {
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct OperandFlags: u32 {
        const DEF = 1 << 0;
        const IMPLICIT = 1 << 1;
        const UNDEF = 1 << 2;
        const SUBREG = 1 << 3;
        /// A def written while the instruction's uses are still to be read:
        /// it may share a register with none of them (the rule, from the
        /// shim's facts: `ffi::mark_defs_written_early`).
        const EARLY_CLOBBER = 1 << 4;
    }
}

/// A virtual-register operand. Physical registers and non-register operands
/// are not represented.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operand {
    pub vreg: VReg,
    pub flags: OperandFlags,
    /// Index, within the same instruction's operands, of the tied operand.
    pub tied_to: Option<u32>,
    /// A PHI's use: the predecessor block the value arrives from.
    pub incoming: Option<Block>,
}

impl Operand {
    pub fn def(vreg: VReg) -> Self {
        Self { vreg, flags: OperandFlags::DEF, tied_to: None, incoming: None }
    }
    pub fn use_of(vreg: VReg) -> Self {
        Self { vreg, flags: OperandFlags::empty(), tied_to: None, incoming: None }
    }
    pub fn phi_use(vreg: VReg, from: Block) -> Self {
        Self { incoming: Some(from), ..Self::use_of(vreg) }
    }
    pub fn is_def(&self) -> bool {
        self.flags.contains(OperandFlags::DEF)
    }
    /// A use that reads the register's value (an undef use reads nothing).
    pub fn reads(&self) -> bool {
        !self.is_def() && !self.flags.contains(OperandFlags::UNDEF)
    }
    pub fn is_early_clobber(&self) -> bool {
        self.is_def() && self.flags.contains(OperandFlags::EARLY_CLOBBER)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct BlockData {
    pub first_inst: u32,
    pub num_insts: u32,
    pub succs: Vec<Block>,
    pub preds: Vec<Block>,
    pub loop_depth: u32,
    /// Frequency relative to the entry block.
    pub frequency: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct InstData {
    pub kind: InstKind,
    pub flags: InstFlags,
    pub opcode: u32,
    pub operands: Vec<Operand>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Function {
    pub name: String,
    pub blocks: Vec<BlockData>,
    pub insts: Vec<InstData>,
    /// Class of each vreg; `None` for an index with no register behind it.
    pub vreg_class: Vec<Option<RegClass>>,
    pub class_names: Vec<String>,
}

impl Function {
    pub fn num_vregs(&self) -> usize {
        self.vreg_class.len()
    }

    pub fn block_ids(&self) -> impl DoubleEndedIterator<Item = Block> + ExactSizeIterator {
        (0..self.blocks.len()).map(Block::new)
    }

    pub fn block(&self, b: Block) -> &BlockData {
        &self.blocks[b.index()]
    }

    pub fn block_insts(&self, b: Block) -> impl DoubleEndedIterator<Item = Inst> {
        let data = self.block(b);
        (data.first_inst..data.first_inst + data.num_insts).map(Inst)
    }

    /// The blocks the entry reaches, in reverse post-order: each block after
    /// its predecessors but for those that reach it by a back edge.
    pub fn reverse_post_order(&self) -> Vec<Block> {
        let mut visited = vec![false; self.blocks.len()];
        let mut post_order = Vec::with_capacity(self.blocks.len());
        // (block, how many of its successors were visited so far)
        let mut stack = Vec::new();
        if !self.blocks.is_empty() {
            visited[0] = true;
            stack.push((Block(0), 0));
        }
        while let Some((b, next)) = stack.last_mut() {
            let b = *b;
            match self.block(b).succs.get(*next) {
                Some(&s) => {
                    *next += 1;
                    if !visited[s.index()] {
                        visited[s.index()] = true;
                        stack.push((s, 0));
                    }
                }
                None => {
                    post_order.push(b);
                    stack.pop();
                }
            }
        }
        post_order.reverse();
        post_order
    }

    /// The block of each instruction.
    pub fn block_of_each_inst(&self) -> Vec<Block> {
        let mut block_of = vec![Block(0); self.insts.len()];
        for b in self.block_ids() {
            for i in self.block_insts(b) {
                block_of[i.index()] = b;
            }
        }
        block_of
    }

    /// The PHIs at the head of `b`.
    pub fn phis(&self, b: Block) -> impl Iterator<Item = Inst> + '_ {
        self.block_insts(b).take_while(|&i| self.inst(i).kind == InstKind::Phi)
    }

    /// For a function in SSA form: each vreg's origin through chains of
    /// copies, following only the copies whose destination `follow` accepts
    /// (the vreg itself where its def is not such a copy). In SSA form the
    /// origin's value is the vreg's, everywhere.
    pub fn copy_origins(&self, follow: impl Fn(VReg) -> bool) -> Vec<VReg> {
        let mut source: Vec<VReg> = (0..self.num_vregs()).map(VReg::new).collect();
        for i in (0..self.insts.len()).map(Inst::new) {
            if let Some((d, s)) = self.copy_pair(i).filter(|&(d, _)| follow(d)) {
                source[d.index()] = s;
            }
        }
        (0..self.num_vregs())
            .map(|v| {
                let mut v = VReg::new(v);
                // Bounded: SSA has no cycle of copies, but a malformed input might.
                for _ in 0..self.num_vregs() {
                    if source[v.index()] == v {
                        break;
                    }
                    v = source[v.index()];
                }
                v
            })
            .collect()
    }

    /// The instructions defining each vreg, in order.
    pub fn def_insts(&self) -> Vec<Vec<Inst>> {
        let mut defs = vec![Vec::new(); self.num_vregs()];
        for i in (0..self.insts.len()).map(Inst::new) {
            for d in self.defs(i) {
                if defs[d.index()].last() != Some(&i) {
                    defs[d.index()].push(i);
                }
            }
        }
        defs
    }

    /// Where `b`'s trailing terminators start (its end if it has none): edge
    /// copies go just before, as LLVM's `getFirstTerminator`.
    pub fn first_terminator(&self, b: Block) -> Inst {
        let mut at = Inst(self.block(b).first_inst + self.block(b).num_insts);
        while at.0 > self.block(b).first_inst && self.inst(Inst(at.0 - 1)).kind == InstKind::Terminator {
            at = Inst(at.0 - 1);
        }
        at
    }

    pub fn inst(&self, i: Inst) -> &InstData {
        &self.insts[i.index()]
    }

    pub fn class_of(&self, v: VReg) -> Option<RegClass> {
        self.vreg_class.get(v.index()).copied().flatten()
    }

    pub fn class_name(&self, c: RegClass) -> &str {
        &self.class_names[c.index()]
    }

    /// Registers an instruction writes.
    pub fn defs(&self, i: Inst) -> impl Iterator<Item = VReg> + '_ {
        self.inst(i).operands.iter().filter(|o| o.is_def()).map(|o| o.vreg)
    }

    /// Vregs defined by a frame-address instruction. NVPTX's peephole (after
    /// our passes) folds a frame address converted to a local address into a
    /// direct `%SPL` address only while that instruction is its register's
    /// only def; sharing the register leaves the stack addressed through
    /// generic `%SP` (more SASS, more local-memory traffic). So the passes
    /// never give these vregs a register another vreg uses.
    pub fn frame_addresses(&self) -> Vec<bool> {
        let mut frame_address = vec![false; self.num_vregs()];
        for data in self.insts.iter().filter(|data| data.flags.contains(InstFlags::FRAME_ADDRESS)) {
            for o in data.operands.iter().filter(|o| o.is_def()) {
                frame_address[o.vreg.index()] = true;
            }
        }
        frame_address
    }

    /// Vregs an IMPLICIT_DEF defines: undefined on some path. ptxas takes an
    /// undefined register as any value it likes (a `selp` between a value and
    /// an undefined loop-carried register becomes the value); sharing the
    /// register with a defined value takes that away from it (HeCBench ssm:
    /// 32 -> 38 registers from one such register).
    pub fn undefined_values(&self) -> Vec<bool> {
        let mut undefined = vec![false; self.num_vregs()];
        for data in self.insts.iter().filter(|data| data.kind == InstKind::ImplicitDef) {
            for o in data.operands.iter().filter(|o| o.is_def()) {
                undefined[o.vreg.index()] = true;
            }
        }
        undefined
    }

    /// Registers an instruction writes before reading its uses.
    pub fn early_clobbers(&self, i: Inst) -> impl Iterator<Item = VReg> + '_ {
        self.inst(i).operands.iter().filter(|o| o.is_early_clobber()).map(|o| o.vreg)
    }

    /// Defs whose register is written before the instruction reads all its
    /// uses, as (def operand, operand of the use tied to it): early-clobber
    /// defs, and defs tied to a use. In SSA form a tied def and its use are
    /// different vregs, and TwoAddressInstruction will copy the use into the
    /// def's register ahead of the instruction, so that register is written
    /// before the other uses are read, as an early clobber's is. Uses holding
    /// the tied use's value may still share a plain tied def's register
    /// (written after all reads), but not an early clobber's.
    pub fn written_before_reads(&self, i: Inst) -> impl Iterator<Item = (usize, Option<usize>)> + '_ {
        let ops = &self.inst(i).operands;
        ops.iter().enumerate().filter(|(_, o)| o.is_def()).filter_map(|(k, o)| {
            let tied = o.tied_to.map(|t| t as usize).filter(|&t| !ops[t].is_def());
            (o.is_early_clobber() || tied.is_some()).then_some((k, tied))
        })
    }

    /// Registers whose value an instruction reads.
    pub fn uses(&self, i: Inst) -> impl Iterator<Item = VReg> + '_ {
        self.inst(i).operands.iter().filter(|o| o.reads()).map(|o| o.vreg)
    }

    /// `(destination, source)` if `i` is a plain copy between two registers
    /// of the same class: the only kind of instruction coalescing may remove.
    pub fn copy_pair(&self, i: Inst) -> Option<(VReg, VReg)> {
        let data = self.inst(i);
        if data.kind != InstKind::Copy {
            return None;
        }
        let plain = |o: &Operand| (o.flags - OperandFlags::DEF).is_empty() && o.tied_to.is_none();
        match data.operands.as_slice() {
            [dst, src] if dst.is_def() && !src.is_def() && plain(dst) && plain(src) => {
                let class = self.class_of(dst.vreg)?;
                (self.class_of(src.vreg) == Some(class)).then_some((dst.vreg, src.vreg))
            }
            _ => None,
        }
    }
}

/// Builds functions by hand, for tests and for the random-program generator.
#[derive(Default)]
pub struct FunctionBuilder {
    function: Function,
}

impl FunctionBuilder {
    pub fn new(name: &str, class_names: &[&str]) -> Self {
        let mut builder = Self::default();
        builder.function.name = name.to_owned();
        builder.function.class_names = class_names.iter().map(|s| (*s).to_owned()).collect();
        builder
    }

    pub fn vreg(&mut self, class: RegClass) -> VReg {
        self.function.vreg_class.push(Some(class));
        VReg::new(self.function.vreg_class.len() - 1)
    }

    /// Starts a new block; instructions added next belong to it.
    pub fn block(&mut self, loop_depth: u32) -> Block {
        let first_inst = self.function.insts.len() as u32;
        self.function.blocks.push(BlockData {
            first_inst,
            num_insts: 0,
            succs: Vec::new(),
            preds: Vec::new(),
            loop_depth,
            frequency: 1.0,
        });
        Block::new(self.function.blocks.len() - 1)
    }

    pub fn edge(&mut self, from: Block, to: Block) {
        self.function.blocks[from.index()].succs.push(to);
        self.function.blocks[to.index()].preds.push(from);
    }

    pub fn inst(&mut self, kind: InstKind, defs: &[VReg], uses: &[VReg]) -> Inst {
        let operands =
            defs.iter().map(|&v| Operand::def(v)).chain(uses.iter().map(|&v| Operand::use_of(v))).collect();
        self.inst_with(InstData { kind, flags: InstFlags::empty(), opcode: 0, operands })
    }

    pub fn inst_with(&mut self, data: InstData) -> Inst {
        self.function.insts.push(data);
        self.function.blocks.last_mut().expect("a block before instructions").num_insts += 1;
        Inst::new(self.function.insts.len() - 1)
    }

    pub fn copy(&mut self, dst: VReg, src: VReg) -> Inst {
        self.inst(InstKind::Copy, &[dst], &[src])
    }

    pub fn finish(self) -> Function {
        self.function
    }
}

//! Random programs for the semantic tests and the fuzz target: valid
//! functions, in the shape NVPTX machine code has after PHI elimination, that
//! never read a register no def reaches and whose behaviour (see `interp`) is
//! observable through stores.
//!
//! Shape of a program:
//!
//! * An entry block that receives the parameters (`interp::OP_PARAM + i`
//!   loads) and defines every long-lived value ("variable"): by a
//!   move-immediate, a copy of a parameter or arithmetic on parameters. It also
//!   defines a few constants (single-def move-immediates) that later copies
//!   read, the pattern constant rematerialization looks for.
//! * Structured control flow of 2 to 12 blocks: straight-line stretches,
//!   if/else diamonds, if-then triangles and loops (nested up to three deep).
//!   Every loop is driven by its own counter (set in the preheader, decremented
//!   and tested in the latch, whose terminator takes the back edge while the
//!   counter is not zero), so programs finish well within the fuel. One
//!   program in about forty has a loop whose counter starts at 0, which with
//!   wrapping arithmetic never reaches 0 again: those runs end out of fuel.
//! * Instructions: arithmetic (1 to 3 inputs, 1 or 2 defs, now and then an
//!   `UNDEF` input), many copies (chains, copies of constants, live-range
//!   splits, copies between classes), move-immediates, `IMPLICIT_DEF`s,
//!   stores and store-like calls. Variables are redefined anywhere; values
//!   defined inside a block ("temporaries") are read only where their block
//!   dominates.
//! * At the end of branch arms, preheaders and latches: the copies PHI
//!   elimination leaves, i.e. variables set from temporaries and from one
//!   another, and parallel-copy cycles (swaps, rotations) sequentialized
//!   through a temporary.
//! * A last block that stores many variables and returns.
//!
//! Register classes: two to four of B1, B16, B32, B64. Some programs keep 20
//! to 60 values live at once.

use crate::interp::{OP_DEC, OP_IS_ZERO, OP_PARAM};
use nvregalloc::function::{
    Block, Function, FunctionBuilder, InstData, InstFlags, InstKind, Operand, OperandFlags, RegClass, VReg,
};

/// splitmix64: small, fast and good enough to draw programs from.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + self.below(u64::from(hi - lo) + 1) as u32
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// How big a program may get. Every field is clamped to its range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    /// Most blocks, 2..=12.
    pub blocks: u32,
    /// Long-lived variables, 2..=60.
    pub values: u32,
    /// Most instructions in one straight-line stretch, 1..=24.
    pub stretch: u32,
}

impl Size {
    pub const SMALL: Size = Size { blocks: 5, values: 6, stretch: 6 };
    pub const MEDIUM: Size = Size { blocks: 9, values: 16, stretch: 10 };
    pub const LARGE: Size = Size { blocks: 12, values: 60, stretch: 16 };

    pub fn clamped(self) -> Size {
        Size {
            blocks: self.blocks.clamp(2, 12),
            values: self.values.clamp(2, 60),
            stretch: self.stretch.clamp(1, 24),
        }
    }

    /// A size drawn from a seed (for the seed corpus): mostly small and
    /// medium, one in six with high register pressure.
    pub fn for_seed(seed: u64) -> Size {
        let mut rng = Rng::new(seed ^ 0x5A5A_5A5A_5A5A_5A5A);
        let values = if rng.chance(1, 6) { rng.range(20, 60) } else { rng.range(2, 16) };
        Size { blocks: rng.range(2, 12), values, stretch: rng.range(2, 12) }
    }

    /// A size from arbitrary bytes (for the fuzz target); missing bytes count
    /// as zero.
    pub fn from_bytes(bytes: &[u8]) -> Size {
        let byte = |n: usize| u32::from(bytes.get(n).copied().unwrap_or(0));
        Size { blocks: 2 + byte(0) % 11, values: 2 + byte(1) % 59, stretch: 1 + byte(2) % 24 }
    }
}

/// How the fuzz target and the seed corpus read an input: the first eight
/// bytes (little-endian, zero-padded) are the seed; the size comes from the
/// next three bytes if there are any, else from the seed (`Size::for_seed`).
/// So a corpus seed `s` replays as the input `s.to_le_bytes()`.
pub fn fuzz_input(data: &[u8]) -> (u64, Size) {
    let mut seed = [0u8; 8];
    let n = data.len().min(8);
    seed[..n].copy_from_slice(&data[..n]);
    let seed = u64::from_le_bytes(seed);
    let size = if data.len() > 8 { Size::from_bytes(&data[8..]) } else { Size::for_seed(seed) };
    (seed, size)
}

/// A function and the parameters to run it with.
#[derive(Clone, Debug)]
pub struct Program {
    pub function: Function,
    pub params: Vec<u64>,
}

/// The program for `seed` at `size`. Deterministic.
pub fn random_function(seed: u64, size: Size) -> (Function, Vec<u64>) {
    let program = random_program(seed, size);
    (program.function, program.params)
}

pub fn random_program(seed: u64, size: Size) -> Program {
    Gen::new(seed, size.clamped()).generate()
}

/// The program for `seed` at `size` in SSA form (see [`to_ssa`]): the shape
/// the CSSA pass sees before PHI elimination.
pub fn random_ssa_function(seed: u64, size: Size) -> (Function, Vec<u64>) {
    let (f, params) = random_function(seed, size);
    (to_ssa(&f), params)
}

/// `f` in (maximal) SSA form, behaving the same: every def writes a fresh
/// vreg, and every block but the entry starts with one PHI per register live
/// into it, whose operand from each predecessor is that register's name at
/// the predecessor's end. Uses no def reaches keep the original vreg (which
/// then has no def at all). Then most copies are propagated: a use of a
/// copy's destination reads its source instead, as SSA optimizations leave
/// it. That is what makes PHI operands interfere with each other and with the
/// result (the lost-copy and swap patterns); without it, giving every name of
/// one original register one register again would always be right. Every
/// third copy stays read, so that copies of one value are live at once.
pub fn to_ssa(f: &Function) -> Function {
    let mut ssa = maximal_ssa(f);
    // In SSA form a copy's source is defined before, and dominates, every
    // use of its destination, so any use may read the source instead.
    let origin = ssa.copy_origins(|d| d.0 % 3 != 0);
    for data in &mut ssa.insts {
        for o in data.operands.iter_mut().filter(|o| !o.is_def()) {
            o.vreg = origin[o.vreg.index()];
        }
    }
    ssa
}

fn maximal_ssa(f: &Function) -> Function {
    let liveness = nvregalloc::liveness::Liveness::compute(f);
    let mut out = Function { insts: Vec::new(), ..f.clone() };
    let fresh = |out: &mut Function, original: VReg| {
        out.vreg_class.push(f.class_of(original));
        VReg::new(out.vreg_class.len() - 1)
    };
    // Names at each block's entry (PHI results) and end.
    let mut entry_names: Vec<Vec<(VReg, VReg)>> = Vec::new();
    let mut exit_names: Vec<rustc_hash::FxHashMap<VReg, VReg>> = Vec::new();
    let mut bodies: Vec<Vec<InstData>> = Vec::new();
    for b in f.block_ids() {
        let live_in = if b.index() == 0 { &[][..] } else { &liveness.live_in[b.index()][..] };
        let phis: Vec<(VReg, VReg)> = live_in.iter().map(|&v| (v, fresh(&mut out, v))).collect();
        let mut current: rustc_hash::FxHashMap<VReg, VReg> = phis.iter().copied().collect();
        let mut body = Vec::new();
        for i in f.block_insts(b) {
            let mut data = f.inst(i).clone();
            for o in data.operands.iter_mut().filter(|o| !o.is_def()) {
                o.vreg = current.get(&o.vreg).copied().unwrap_or(o.vreg);
            }
            for o in data.operands.iter_mut().filter(|o| o.is_def()) {
                let name = fresh(&mut out, o.vreg);
                current.insert(o.vreg, name);
                o.vreg = name;
            }
            body.push(data);
        }
        entry_names.push(phis);
        exit_names.push(current);
        bodies.push(body);
    }
    for (b, body) in bodies.into_iter().enumerate() {
        let first = out.insts.len() as u32;
        for &(original, result) in &entry_names[b] {
            let mut operands = vec![Operand::def(result)];
            for &p in &f.blocks[b].preds {
                let name = exit_names[p.index()].get(&original).copied().unwrap_or(original);
                operands.push(Operand::phi_use(name, p));
            }
            out.insts.push(InstData { kind: InstKind::Phi, flags: InstFlags::empty(), opcode: 0, operands });
        }
        out.insts.extend(body);
        out.blocks[b].first_inst = first;
        out.blocks[b].num_insts = out.insts.len() as u32 - first;
    }
    out
}

const CLASS_NAMES: [&str; 4] = ["B1", "B16", "B32", "B64"];
/// Opcodes of arithmetic, stores and calls; few enough that some repeat.
const ARITH_OPCODES: u32 = 40;
const ARITH_BASE: u32 = 1000;
const STORE_BASE: u32 = 2000;
const CALL_BASE: u32 = 3000;
const BRANCH_OPCODE: u32 = 90;
const RETURN_OPCODE: u32 = 91;
const JUMP_OPCODE: u32 = 92;

const STORE_OPCODES: u32 = 8;
const CALL_OPCODES: u32 = 4;
/// Loops nest at most this deep.
const MAX_LOOP_DEPTH: u32 = 3;
/// Branches and loops nest at most this deep.
const MAX_NESTING: u32 = 4;

struct Gen {
    rng: Rng,
    size: Size,
    b: FunctionBuilder,
    /// Names of the classes this program uses; `RegClass(n)` is `names[n]`.
    names: Vec<&'static str>,
    /// Class of every vreg made so far.
    class_of: Vec<RegClass>,
    /// Long-lived variables, defined in the entry block, redefined anywhere.
    vars: Vec<VReg>,
    /// Single-def constants defined in the entry block.
    constants: Vec<VReg>,
    /// Single-def constants 1, 2 and 3, for loop counters.
    small: Vec<VReg>,
    /// Values defined in blocks that dominate the current point (the
    /// parameters among them), each defined once.
    temps: Vec<VReg>,
    blocks_made: u32,
    /// Blocks the constructs under way will still make.
    reserved: u32,
    loop_depth: u32,
    /// One loop of this program never ends (its counter starts at 0).
    endless: bool,
}

impl Gen {
    fn new(seed: u64, size: Size) -> Self {
        let mut rng = Rng::new(seed);
        let count = rng.range(2, 4) as usize;
        // A random subset of `count` classes, kept in B1..B64 order.
        let mut names: Vec<&'static str> = CLASS_NAMES.to_vec();
        while names.len() > count {
            let at = rng.below(names.len() as u64) as usize;
            names.remove(at);
        }
        let endless = rng.chance(1, 40);
        Self {
            rng,
            size,
            b: FunctionBuilder::new(&format!("random_{seed:016x}"), &names),
            names,
            class_of: Vec::new(),
            vars: Vec::new(),
            constants: Vec::new(),
            small: Vec::new(),
            temps: Vec::new(),
            blocks_made: 0,
            reserved: 0,
            loop_depth: 0,
            endless,
        }
    }

    fn generate(mut self) -> Program {
        let params: Vec<u64> = (0..self.rng.range(1, 4)).map(|_| self.rng.next_u64()).collect();
        let entry = self.new_block();
        self.entry(params.len());
        let first = self.new_block();
        self.b.edge(entry, first);
        self.top_level();
        self.finale();
        let mut function = self.b.finish();
        for block in &mut function.blocks {
            block.frequency = 8f64.powi(block.loop_depth as i32);
        }
        Program { function, params }
    }

    // --- helpers ---------------------------------------------------------------

    fn new_block(&mut self) -> Block {
        self.blocks_made += 1;
        self.b.block(self.loop_depth)
    }

    /// A block a construct reserved when it began.
    fn reserved_block(&mut self) -> Block {
        self.reserved -= 1;
        self.new_block()
    }

    /// Blocks that may still be made (the open block is already counted).
    fn blocks_left(&self) -> u32 {
        self.size.blocks.saturating_sub(self.blocks_made + self.reserved)
    }

    fn fresh(&mut self, class: RegClass) -> VReg {
        self.class_of.push(class);
        self.b.vreg(class)
    }

    fn class(&mut self) -> RegClass {
        RegClass::new(self.rng.below(self.names.len() as u64) as usize)
    }

    fn class_of(&self, v: VReg) -> RegClass {
        self.class_of[v.index()]
    }

    /// The predicate class if the program has one, else any.
    fn predicate_class(&mut self) -> RegClass {
        if self.names[0] == "B1" {
            RegClass(0)
        } else {
            self.class()
        }
    }

    fn emit(&mut self, kind: InstKind, flags: InstFlags, opcode: u32, defs: &[VReg], uses: &[VReg]) {
        let operands =
            defs.iter().map(|&v| Operand::def(v)).chain(uses.iter().map(|&v| Operand::use_of(v))).collect();
        self.b.inst_with(InstData { kind, flags, opcode, operands });
    }

    fn imm(&mut self, d: VReg, value: u32) {
        self.emit(InstKind::MoveImm, InstFlags::REMATERIALIZABLE | InstFlags::CHEAP, value, &[d], &[]);
    }

    fn copy(&mut self, d: VReg, s: VReg) {
        self.emit(InstKind::Copy, InstFlags::empty(), 0, &[d], &[s]);
    }

    /// Every value that may be read here.
    fn readable(&self) -> impl Iterator<Item = VReg> + '_ {
        self.vars.iter().chain(&self.constants).chain(&self.temps).copied()
    }

    fn any_readable(&mut self) -> VReg {
        let n = self.vars.len() + self.constants.len() + self.temps.len();
        let at = self.rng.below(n as u64) as usize;
        self.readable().nth(at).expect("in range")
    }

    /// A readable value of `class`, if there is one.
    fn readable_of(&mut self, class: RegClass) -> Option<VReg> {
        let candidates: Vec<VReg> = self.readable().filter(|&v| self.class_of(v) == class).collect();
        (!candidates.is_empty()).then(|| self.rng.pick(&candidates))
    }

    fn var_of(&mut self, class: RegClass) -> Option<VReg> {
        let candidates: Vec<VReg> =
            self.vars.iter().copied().filter(|&v| self.class_of(v) == class).collect();
        (!candidates.is_empty()).then(|| self.rng.pick(&candidates))
    }

    /// Where a def of `class` goes: a variable (redefined) or a fresh
    /// temporary. Temporaries become readable once `defined` is called.
    fn target(&mut self, class: RegClass, avoid: &[VReg]) -> VReg {
        if self.rng.chance(11, 20) {
            if let Some(v) = self.var_of(class).filter(|v| !avoid.contains(v)) {
                return v;
            }
        }
        self.fresh(class)
    }

    /// `defs` now hold values: fresh ones become readable temporaries.
    fn defined(&mut self, defs: &[VReg]) {
        for &d in defs {
            if !self.vars.contains(&d) && !self.temps.contains(&d) {
                self.temps.push(d);
            }
        }
    }

    fn arith_opcode(&mut self) -> u32 {
        ARITH_BASE + self.rng.below(u64::from(ARITH_OPCODES)) as u32
    }

    // --- the entry block ---------------------------------------------------------

    fn entry(&mut self, params: usize) {
        for i in 0..params {
            let class = self.class();
            let p = self.fresh(class);
            self.emit(InstKind::Other, InstFlags::MAY_LOAD, OP_PARAM + i as u32, &[p], &[]);
            self.temps.push(p);
        }
        for _ in 0..self.rng.range(2, 5) {
            let class = self.class();
            let k = self.fresh(class);
            let value = self.rng.next_u64() as u32;
            self.imm(k, value);
            self.constants.push(k);
        }
        for count in 1..=3 {
            let class = self.class();
            let k = self.fresh(class);
            self.imm(k, count);
            self.small.push(k);
            self.constants.push(k);
        }
        for _ in 0..self.size.values {
            let class = self.class();
            let v = self.fresh(class);
            match self.rng.below(10) {
                0..=3 => {
                    let value = self.rng.next_u64() as u32;
                    self.imm(v, value);
                }
                4..=6 => {
                    let src = match self.readable_of(class) {
                        Some(s) => s,
                        None => self.any_readable(),
                    };
                    self.copy(v, src);
                }
                _ => {
                    let uses: Vec<VReg> = (0..self.rng.range(1, 2)).map(|_| self.any_readable()).collect();
                    let opcode = self.arith_opcode();
                    self.emit(InstKind::Other, InstFlags::empty(), opcode, &[v], &uses);
                }
            }
            self.vars.push(v);
        }
    }

    // --- straight-line code ------------------------------------------------------

    fn stretch(&mut self) {
        for _ in 0..self.rng.range(1, self.size.stretch) {
            self.instruction();
        }
    }

    fn instruction(&mut self) {
        match self.rng.below(100) {
            0..=29 => self.arith(),
            30..=51 => {
                let src = self.any_readable();
                let class = self.class_of(src);
                let avoid = if self.rng.chance(1, 30) { vec![] } else { vec![src] };
                let dst = self.target(class, &avoid);
                self.copy(dst, src);
                self.defined(&[dst]);
            }
            52..=58 => {
                // A copy chain.
                let mut src = self.any_readable();
                let class = self.class_of(src);
                for _ in 0..self.rng.range(2, 4) {
                    let dst =
                        if self.rng.chance(1, 3) { self.target(class, &[src]) } else { self.fresh(class) };
                    self.copy(dst, src);
                    self.defined(&[dst]);
                    src = dst;
                }
            }
            59..=66 => {
                // A copy of a constant: a rematerialization candidate when the
                // constant is still read afterwards.
                let k = self.rng.pick(&self.constants.clone());
                let class = self.class_of(k);
                let dst = self.target(class, &[]);
                self.copy(dst, k);
                self.defined(&[dst]);
            }
            67..=71 => {
                // A live-range split: x goes through a temporary and back.
                let Some(x) = (!self.vars.is_empty()).then(|| self.rng.pick(&self.vars.clone())) else {
                    return;
                };
                let t = self.fresh(self.class_of(x));
                self.copy(t, x);
                self.defined(&[t]);
                if self.rng.chance(1, 2) {
                    self.arith();
                }
                self.copy(x, t);
            }
            72..=76 => {
                let class = self.class();
                let dst = self.target(class, &[]);
                let value = self.rng.next_u64() as u32;
                self.imm(dst, value);
                self.defined(&[dst]);
            }
            77..=87 => self.store(),
            88..=90 => {
                // A call that stores and returns a value.
                let uses: Vec<VReg> = (0..self.rng.range(1, 2)).map(|_| self.any_readable()).collect();
                let class = self.class();
                let dst = self.target(class, &[]);
                let opcode = CALL_BASE + self.rng.below(u64::from(CALL_OPCODES)) as u32;
                self.emit(
                    InstKind::Call,
                    InstFlags::MAY_STORE | InstFlags::SIDE_EFFECTS,
                    opcode,
                    &[dst],
                    &uses,
                );
                self.defined(&[dst]);
            }
            91..=93 => {
                let class = self.class();
                let t = self.fresh(class);
                self.emit(InstKind::ImplicitDef, InstFlags::empty(), 0, &[t], &[]);
                self.defined(&[t]);
            }
            _ => {
                // A copy between classes: never coalescable.
                let src = self.any_readable();
                let from = self.class_of(src);
                let class = self.class();
                if class == from {
                    return;
                }
                let dst = self.target(class, &[]);
                self.copy(dst, src);
                self.defined(&[dst]);
            }
        }
    }

    fn arith(&mut self) {
        let uses: Vec<VReg> = (0..self.rng.range(1, 3)).map(|_| self.any_readable()).collect();
        let mut defs = Vec::new();
        for _ in 0..if self.rng.chance(1, 5) { 2 } else { 1 } {
            let class = self.class();
            let d = self.target(class, &defs);
            defs.push(d);
        }
        // Now and then an early-clobber output, as inline assembly's `=&r`
        // (never one that is also an input: LLVM does not make those), where
        // inputs and outputs together fit the smallest budget tested (4).
        let early = self.rng.chance(1, 6) && uses.len() + defs.len() <= 3;
        let def = |v: VReg| {
            let mut o = Operand::def(v);
            if early && !uses.contains(&v) {
                o.flags |= OperandFlags::EARLY_CLOBBER;
            }
            o
        };
        let mut operands: Vec<Operand> =
            defs.iter().map(|&v| def(v)).chain(uses.iter().map(|&v| Operand::use_of(v))).collect();
        if self.rng.chance(1, 12) {
            // An input that reads nothing.
            let v = VReg::new(self.rng.below(self.class_of.len() as u64) as usize);
            operands.push(Operand { flags: OperandFlags::UNDEF, ..Operand::use_of(v) });
        }
        let opcode = self.arith_opcode();
        // Half the plain one-result instructions count as cheap ALU work,
        // which the pressure pass may recompute next to its uses.
        let plain = defs.len() == 1 && !early && operands.iter().all(|o| o.flags.is_empty() || o.is_def());
        let flags = if plain && self.rng.chance(1, 2) { InstFlags::CHEAP } else { InstFlags::empty() };
        self.b.inst_with(InstData { kind: InstKind::Other, flags, opcode, operands });
        self.defined(&defs);
    }

    fn store(&mut self) {
        let uses: Vec<VReg> = (0..self.rng.range(1, 2)).map(|_| self.any_readable()).collect();
        let opcode = STORE_BASE + self.rng.below(u64::from(STORE_OPCODES)) as u32;
        self.emit(InstKind::Other, InstFlags::MAY_STORE, opcode, &[], &uses);
    }

    /// The copies PHI elimination leaves at the end of a predecessor.
    fn phi_copies(&mut self) {
        for _ in 0..self.rng.range(0, 3) {
            if self.rng.chance(1, 3) {
                // A parallel copy cycle (swap or rotation) through a temporary.
                let class = self.class();
                let mut cycle: Vec<VReg> =
                    self.vars.iter().copied().filter(|&v| self.class_of(v) == class).collect();
                if cycle.len() < 2 {
                    continue;
                }
                let len = self.rng.range(2, 3.min(cycle.len() as u32)) as usize;
                for n in 0..len {
                    let j = n + self.rng.below((cycle.len() - n) as u64) as usize;
                    cycle.swap(n, j);
                }
                cycle.truncate(len);
                let t = self.fresh(class);
                self.copy(t, cycle[0]);
                for n in 1..len {
                    self.copy(cycle[n - 1], cycle[n]);
                }
                self.copy(cycle[len - 1], t);
                self.defined(&[t]);
            } else {
                // A variable takes a value computed on this path.
                let src = self.any_readable();
                let Some(dst) = self.var_of(self.class_of(src)) else { continue };
                if dst != src {
                    self.copy(dst, src);
                }
            }
        }
    }

    /// An unconditional branch, or none (falling through).
    fn maybe_jump(&mut self) {
        if self.rng.chance(1, 2) {
            self.emit(InstKind::Terminator, InstFlags::empty(), JUMP_OPCODE, &[], &[]);
        }
    }

    /// Ends the open block with a two-way branch on a random value.
    fn branch(&mut self) {
        let cond = if self.rng.chance(1, 2) {
            self.any_readable()
        } else {
            let class = self.predicate_class();
            let c = self.fresh(class);
            let uses: Vec<VReg> = (0..self.rng.range(1, 2)).map(|_| self.any_readable()).collect();
            let opcode = self.arith_opcode();
            self.emit(InstKind::Other, InstFlags::empty(), opcode, &[c], &uses);
            self.defined(&[c]);
            c
        };
        let mut uses = vec![cond];
        if self.rng.chance(1, 4) {
            uses.push(self.any_readable());
        }
        self.emit(InstKind::Terminator, InstFlags::empty(), BRANCH_OPCODE, &[], &uses);
    }

    // --- control flow ----------------------------------------------------------

    fn top_level(&mut self) {
        for _ in 0..8 {
            self.stretch();
            if self.blocks_left() < 2 {
                break;
            }
            self.construct(0);
        }
        if self.rng.chance(1, 2) {
            self.stretch();
        }
    }

    fn body(&mut self, nesting: u32) {
        for _ in 0..self.rng.range(1, 2) {
            self.stretch();
            if nesting < MAX_NESTING && self.rng.chance(3, 5) {
                self.construct(nesting);
            }
        }
    }

    /// A branch or a loop, if the block budget allows one.
    fn construct(&mut self, nesting: u32) {
        let left = self.blocks_left();
        let can_loop = self.loop_depth < MAX_LOOP_DEPTH && left >= 2;
        match self.rng.below(3) {
            0 if left >= 3 => self.if_else(nesting),
            1 if can_loop => self.do_loop(nesting),
            _ if left >= 2 => self.if_then(nesting),
            _ => {}
        }
    }

    fn if_else(&mut self, nesting: u32) {
        self.reserved += 3;
        self.branch();
        let head = Block::new(self.blocks_made as usize - 1);
        let then_end = self.arm(head, nesting);
        let other_end = self.arm(head, nesting);
        let join = self.reserved_block();
        self.b.edge(then_end, join);
        self.b.edge(other_end, join);
    }

    fn if_then(&mut self, nesting: u32) {
        self.reserved += 2;
        self.branch();
        let head = Block::new(self.blocks_made as usize - 1);
        let then_end = self.arm(head, nesting);
        let join = self.reserved_block();
        self.b.edge(head, join);
        self.b.edge(then_end, join);
    }

    /// One arm of a conditional, entered from `head`; returns its last block.
    /// Temporaries made in the arm are not used after it.
    fn arm(&mut self, head: Block, nesting: u32) -> Block {
        let scope = self.temps.len();
        let start = self.reserved_block();
        self.b.edge(head, start);
        self.body(nesting + 1);
        self.phi_copies();
        self.maybe_jump();
        self.temps.truncate(scope);
        Block::new(self.blocks_made as usize - 1)
    }

    fn do_loop(&mut self, nesting: u32) {
        self.reserved += 2;
        // Preheader: set the counter.
        let endless = std::mem::take(&mut self.endless);
        let counter;
        if endless {
            let class = self.class();
            counter = self.fresh(class);
            self.imm(counter, 0);
        } else {
            let count = self.rng.range(1, 3);
            let k = self.small[count as usize - 1];
            if self.rng.chance(1, 2) {
                counter = self.fresh(self.class_of(k));
                self.copy(counter, k);
            } else {
                let class = self.class();
                counter = self.fresh(class);
                self.imm(counter, count);
            }
        }
        self.phi_copies();
        self.maybe_jump();
        let preheader = Block::new(self.blocks_made as usize - 1);
        self.loop_depth += 1;
        let header = self.reserved_block();
        self.b.edge(preheader, header);
        self.body(nesting + 1);
        // Latch: count down, set the loop's variables, branch back while the
        // counter is not zero.
        let class = self.class_of(counter);
        let next = self.fresh(class);
        self.emit(InstKind::Other, InstFlags::empty(), OP_DEC, &[next], &[counter]);
        let pclass = self.predicate_class();
        let done = self.fresh(pclass);
        self.emit(InstKind::Other, InstFlags::empty(), OP_IS_ZERO, &[done], &[next]);
        let early = self.rng.chance(1, 2);
        if early {
            self.copy(counter, next);
        }
        self.phi_copies();
        if !early {
            self.copy(counter, next);
        }
        self.emit(InstKind::Terminator, InstFlags::empty(), BRANCH_OPCODE, &[], &[done]);
        let latch = Block::new(self.blocks_made as usize - 1);
        self.b.edge(latch, header);
        self.loop_depth -= 1;
        let exit = self.reserved_block();
        self.b.edge(latch, exit);
        // The exit's only predecessor is the latch: whatever was readable
        // there still is (the loop's temporaries stay in scope).
    }

    // --- the last block ----------------------------------------------------------

    fn finale(&mut self) {
        let mut stored: Vec<VReg> = self.vars.clone();
        // Most programs store every variable; some only part of them.
        if self.rng.chance(1, 4) {
            stored.retain(|_| self.rng.chance(1, 2));
        }
        if stored.is_empty() {
            stored.push(self.vars[0]);
        }
        if self.rng.chance(1, 2) {
            let extra: Vec<VReg> = self.temps.iter().chain(&self.constants).copied().collect();
            stored.extend(extra.into_iter().filter(|_| self.rng.chance(1, 3)));
        }
        let mut at = 0;
        while at < stored.len() {
            let n = self.rng.range(1, 2).min((stored.len() - at) as u32) as usize;
            let opcode = STORE_BASE + self.rng.below(u64::from(STORE_OPCODES)) as u32;
            let uses = stored[at..at + n].to_vec();
            self.emit(InstKind::Other, InstFlags::MAY_STORE, opcode, &[], &uses);
            at += n;
        }
        let returned: Vec<VReg> = if self.rng.chance(1, 2) { vec![self.any_readable()] } else { vec![] };
        self.emit(InstKind::Terminator, InstFlags::empty(), RETURN_OPCODE, &[], &returned);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp;

    #[test]
    fn programs_are_deterministic_and_well_formed() {
        for seed in 0..300 {
            let size = Size::for_seed(seed);
            let (f, params) = random_function(seed, size);
            let (g, params2) = random_function(seed, size);
            assert_eq!(f, g);
            assert_eq!(params, params2);
            assert!(f.blocks.len() >= 2 && f.blocks.len() <= 12, "seed {seed}: {} blocks", f.blocks.len());
            for b in f.block_ids() {
                for &s in &f.block(b).succs {
                    assert!(f.block(s).preds.contains(&b));
                }
                for &p in &f.block(b).preds {
                    assert!(f.block(p).succs.contains(&b));
                }
                if f.block(b).succs.len() >= 2 {
                    let last = f.block_insts(b).last().expect("a branching block is not empty");
                    assert_eq!(f.inst(last).kind, InstKind::Terminator);
                }
            }
            assert!(nvregalloc::driver::unsupported_reason(&f, nvregalloc::pass::Pass::Coalesce).is_none());
            // Nothing is read before a def reaches it, on any path.
            assert!(nvregalloc::liveness::Liveness::compute(&f).live_in[0].is_empty(), "seed {seed}");
            let out = interp::run(&f, &params, interp::DEFAULT_FUEL);
            assert!(!out.trace.is_empty() || !out.finished(), "seed {seed}: nothing stored");
        }
    }

    #[test]
    fn programs_have_the_shapes_asked_for() {
        let (mut loops, mut copies, mut insts, mut finished) = (0, 0, 0, 0);
        let mut block_counts = std::collections::BTreeSet::new();
        for seed in 0..400 {
            let (f, params) = random_function(seed, Size::for_seed(seed));
            block_counts.insert(f.blocks.len());
            loops +=
                usize::from(f.block_ids().any(|b| f.block(b).succs.iter().any(|s| s.index() <= b.index())));
            copies += f.insts.iter().filter(|d| d.kind == InstKind::Copy).count();
            insts += f.insts.len();
            finished += usize::from(interp::run(&f, &params, interp::DEFAULT_FUEL).finished());
        }
        assert!(loops > 150, "{loops} of 400 programs have a loop");
        assert!(copies * 4 > insts, "{copies} copies in {insts} instructions");
        assert!(finished > 380 && finished < 400, "{finished} of 400 finish");
        assert_eq!(block_counts.iter().min(), Some(&2));
        assert!(block_counts.iter().max() >= Some(&11), "{block_counts:?}");
        // High pressure: with 40 values, 40 or more are live at some point
        // (fewer where the last block stores only part of them).
        let mut full = 0;
        for seed in 0..20 {
            let (f, _) = random_function(seed, Size { blocks: 8, values: 40, stretch: 8 });
            let liveness = nvregalloc::liveness::Liveness::compute(&f);
            let graph = nvregalloc::interference::InterferenceGraph::build(&f, &liveness);
            let live: u32 = graph.max_live.iter().sum();
            assert!(live >= 20, "seed {seed}: at most {live} live");
            full += usize::from(live >= 40);
        }
        assert!(full >= 10, "only {full} of 20 programs keep 40 values live");
    }
}

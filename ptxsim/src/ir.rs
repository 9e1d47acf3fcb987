//! The typed form the interpreter runs: every opcode is decoded once, at load
//! time, into an `Op` with its types, operands and resolved jump targets, so
//! the run loop never looks at opcode text.

/// A PTX scalar or packed type. Bits are the width in the register file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    B(u32),
    U(u32),
    S(u32),
    F(u32),
    F16x2,
    Bf16,
    Bf16x2,
    Pred,
}

impl Ty {
    pub fn parse(s: &str) -> Option<Ty> {
        Some(match s {
            "pred" => Ty::Pred,
            "f16x2" => Ty::F16x2,
            "bf16" => Ty::Bf16,
            "bf16x2" => Ty::Bf16x2,
            _ => {
                let (k, n) = s.split_at(1);
                let bits: u32 = n.parse().ok()?;
                if ![8, 16, 32, 64, 128].contains(&bits) {
                    return None;
                }
                match k {
                    "b" => Ty::B(bits),
                    "u" => Ty::U(bits),
                    "s" => Ty::S(bits),
                    "f" if (16..=64).contains(&bits) => Ty::F(bits),
                    _ => return None,
                }
            }
        })
    }

    pub fn bits(self) -> u32 {
        match self {
            Ty::B(n) | Ty::U(n) | Ty::S(n) | Ty::F(n) => n,
            Ty::F16x2 | Ty::Bf16x2 => 32,
            Ty::Bf16 => 16,
            Ty::Pred => 1,
        }
    }

    pub fn bytes(self) -> usize {
        (self.bits() as usize).div_ceil(8)
    }

    pub fn is_signed(self) -> bool {
        matches!(self, Ty::S(_))
    }

    pub fn is_float(self) -> bool {
        matches!(self, Ty::F(_) | Ty::F16x2 | Ty::Bf16 | Ty::Bf16x2)
    }

    /// The format of each half of a packed pair (`f16x2`, `bf16x2`), if it is one.
    pub fn half_of_pair(self) -> Option<Ty> {
        match self {
            Ty::F16x2 => Some(Ty::F(16)),
            Ty::Bf16x2 => Some(Ty::Bf16),
            _ => None,
        }
    }
}

/// Index of a register in its function's register table.
pub type Reg = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    Tid(u8),
    Ntid(u8),
    Ctaid(u8),
    Nctaid(u8),
    LaneId,
    WarpId,
    NWarpId,
    LanemaskEq,
    LanemaskLt,
    LanemaskLe,
    LanemaskGt,
    LanemaskGe,
}

/// Something whose address an instruction can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sym {
    /// Module `.global`/`.const` variable (index into `Module::globals`).
    Global(u32),
    /// `.shared` variable, module- or function-level (index into `Module::shared`).
    Shared(u32),
    /// Function `.local` variable: byte offset in the frame's local area.
    Local(u32),
    /// `.param` slot of the current frame (kernel/function parameter, return
    /// value, or a call sequence's argument).
    Param(u32),
    /// A function, as the operand of `mov` (its address is taken).
    Func(u32),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    Reg(Reg),
    /// Integer or float literal: its bits, sign-extended to 64.
    Imm(u64),
    Special(Special),
    Sym(Sym, i64),
    Vec(Vec<Operand>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum AddrBase {
    Reg(Reg),
    Sym(Sym),
    Abs,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Addr {
    pub base: AddrBase,
    pub offset: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Generic,
    Global,
    Shared,
    Local,
    Const,
    Param,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    MulLo,
    MulHi,
    MulWide,
    Div,
    Rem,
    Min,
    Max,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Copysign,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Abs,
    Not,
    Popc,
    Clz,
    Brev,
    Bfind { shiftamt: bool },
    Sqrt,
    Rsqrt,
    Rcp,
    Ex2,
    Lg2,
    Sin,
    Cos,
    Tanh,
}

/// `mad`/`fma` flavours: which part of the product is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MadKind {
    Lo,
    Hi,
    Wide,
    Fma,
}

/// The arithmetic of an instruction that reads or writes the carry flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CarryKind {
    Add,
    Sub,
    MadLo,
    MadHi,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Lo,
    Ls,
    Hi,
    Hs,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

/// Rounding of `cvt`: to nearest even, to zero, down, up; `int` when the
/// result is rounded to an integral value (`.rni` etc.).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rnd {
    None,
    Rn,
    Rz,
    Rm,
    Rp,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomOp {
    Add,
    Min,
    Max,
    Inc,
    Dec,
    And,
    Or,
    Xor,
    Exch,
    Cas,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}

/// Which operand of a matrix multiply-accumulate a fragment holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Frag {
    A,
    B,
    C,
}

/// Index into `Function::labels`.
pub type Label = u32;

#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// `mov`, `cvta` (addresses are the same in every window, see memory.rs),
    /// and packing/unpacking through vector operands.
    Mov {
        d: Operand,
        a: Operand,
        bits: u32,
    },
    Bin {
        op: BinOp,
        ty: Ty,
        d: Reg,
        a: Operand,
        b: Operand,
    },
    Un {
        op: UnOp,
        ty: Ty,
        d: Reg,
        a: Operand,
    },
    Mad {
        kind: MadKind,
        ty: Ty,
        d: Reg,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    /// Add/subtract/multiply-add with the carry flag (`add.cc`, `addc`, `madc.hi.cc`, ...).
    Carry {
        kind: CarryKind,
        cin: bool,
        cout: bool,
        ty: Ty,
        d: Reg,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    Setp {
        cmp: Cmp,
        ty: Ty,
        d: Reg,
        dn: Option<Reg>,
        a: Operand,
        b: Operand,
        comb: Option<(BoolOp, Operand)>,
    },
    /// `set.cmp.dtype.stype d, a, b`: the comparison as a value of `dty`
    /// (1.0 for a float type, all ones for an integer one, else 0).
    Set {
        cmp: Cmp,
        dty: Ty,
        sty: Ty,
        d: Reg,
        a: Operand,
        b: Operand,
    },
    Selp {
        ty: Ty,
        d: Reg,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    Cvt {
        dty: Ty,
        sty: Ty,
        rnd: Rnd,
        int: bool,
        sat: bool,
        d: Reg,
        a: Operand,
    },
    /// `cvt.rn.f16x2.f32 d, a, b` (or `bf16x2`): two f32 rounded to the
    /// pair's half format, `a` in the upper half.
    PackPair {
        pair: Ty,
        d: Reg,
        a: Operand,
        b: Operand,
    },
    Ld {
        space: Space,
        ty: Ty,
        d: Vec<Reg>,
        addr: Addr,
    },
    St {
        space: Space,
        ty: Ty,
        addr: Addr,
        a: Vec<Operand>,
    },
    Atom {
        space: Space,
        op: AtomOp,
        ty: Ty,
        d: Option<Reg>,
        addr: Addr,
        b: Operand,
        c: Option<Operand>,
    },
    Bra {
        target: Label,
    },
    BrxIdx {
        index: Operand,
        targets: Vec<Label>,
    },
    Call {
        rets: Vec<u32>,
        func: u32,
        args: Vec<u32>,
    },
    Ret,
    Exit,
    BarSync,
    Shfl {
        mode: ShflMode,
        d: Reg,
        p: Option<Reg>,
        a: Operand,
        b: Operand,
        c: Operand,
        mask: Operand,
    },
    Vote {
        mode: VoteMode,
        d: Reg,
        a: Operand,
        mask: Operand,
    },
    MatchAny {
        ty: Ty,
        d: Reg,
        a: Operand,
        mask: Operand,
    },
    /// `redux.sync`: `op` (add, min, max, and, or, xor) over the lanes in `mask`.
    Redux {
        op: AtomOp,
        ty: Ty,
        d: Reg,
        a: Operand,
        mask: Operand,
    },
    /// `bar.warp.sync`: the lanes in `mask` meet.
    WarpSync {
        mask: Operand,
    },
    Prmt {
        d: Reg,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    Bfe {
        ty: Ty,
        d: Reg,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    Bfi {
        ty: Ty,
        d: Reg,
        f: Operand,
        b: Operand,
        c: Operand,
        e: Operand,
    },
    Shf {
        left: bool,
        wrap: bool,
        d: Reg,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    Dp4a {
        a_signed: bool,
        b_signed: bool,
        d: Reg,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    /// `wmma.load.{a,b,c}` of an m16n16k16 tile: each lane loads its own
    /// eight elements (see exec.rs for the fragment layout).
    WmmaLoad {
        frag: Frag,
        col_major: bool,
        space: Space,
        d: Vec<Reg>,
        addr: Addr,
        stride: Option<Operand>,
    },
    /// `wmma.store.d` of an m16n16k16 f32 tile.
    WmmaStore {
        col_major: bool,
        space: Space,
        addr: Addr,
        a: Vec<Reg>,
        stride: Option<Operand>,
    },
    /// `wmma.mma` m16n16k16 with f16 inputs and f32 accumulators: a warp collective.
    WmmaMma {
        d: Vec<Reg>,
        a: Vec<Reg>,
        b: Vec<Reg>,
        c: Vec<Reg>,
    },
    /// Orders memory only; threads run one at a time here, so nothing to do.
    Fence,
    /// Parsed but not implemented: executing it makes the run unsupported.
    Unsupported(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    /// `@%p` / `@!%p`: the register and whether it is negated.
    pub guard: Option<(Reg, bool)>,
    pub op: Op,
    pub line: u32,
}

#[derive(Clone, Debug)]
pub struct ParamDecl {
    pub name: String,
    pub ty: Ty,
    /// Bytes: the type's size, or `.b8 name[N]`'s N.
    pub size: usize,
    pub is_ptr: bool,
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub is_entry: bool,
    /// Declared only (`.extern`, or a prototype without body).
    pub is_decl: bool,
    pub params: Vec<ParamDecl>,
    pub rets: Vec<ParamDecl>,
    /// Width in bits of each register.
    pub regs: Vec<u32>,
    pub reg_names: Vec<String>,
    /// Size in bytes of every param slot: params, then rets, then the
    /// call sequences' declarations.
    pub param_slots: Vec<usize>,
    /// Bytes of `.local` variables per frame, and its alignment.
    pub local_size: usize,
    pub local_align: usize,
    pub body: Vec<Inst>,
    /// Instruction index of each label.
    pub labels: Vec<usize>,
}

#[derive(Clone, Debug)]
pub struct Variable {
    pub name: String,
    pub size: usize,
    pub align: usize,
    pub init: Vec<u8>,
    /// Initializer elements that hold another symbol's address, patched
    /// when memory is laid out.
    pub relocs: Vec<Reloc>,
    /// `.extern .shared ... name[]`: dynamic shared memory, sized at launch.
    pub dynamic: bool,
}

/// `generic(sym)+addend` in an initializer: `bytes` wide at `offset`; `mask`
/// for PTX's byte-extract form `0xFF00(generic(sym))` in `.b8` arrays.
#[derive(Clone, Debug)]
pub struct Reloc {
    pub offset: usize,
    pub sym: Sym,
    pub addend: i64,
    pub bytes: usize,
    pub mask: Option<u64>,
}

#[derive(Clone, Debug, Default)]
pub struct Module {
    pub functions: Vec<Function>,
    pub globals: Vec<Variable>,
    pub shared: Vec<Variable>,
}

impl Module {
    pub fn function(&self, name: &str) -> Option<u32> {
        self.functions.iter().position(|f| f.name == name && !f.is_decl).map(|i| i as u32)
    }
}

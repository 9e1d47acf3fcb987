//! One thread's instructions: the register file, call frames, local memory,
//! and the semantics of every non-collective `Op`. Warp collectives and
//! barriers are only recognised here; `sched` runs them across threads.

use half::{bf16, f16};

use crate::ir::*;
use crate::memory::{self, flat, read_le, window, GlobalMem, Window, LOCAL_BASE, SHARED_BASE};
use crate::Error;

/// Largest local memory (stack of frames) one thread may use.
const LOCAL_LIMIT: usize = 1 << 20;

pub struct Frame {
    pub func: u32,
    pub pc: usize,
    pub regs: Vec<u64>,
    pub params: Vec<Vec<u8>>,
    pub local_base: usize,
    /// Where each parameter of a device function is mirrored in local
    /// memory: PTX gives `mov %rd, func_param_N` a `.local` address, and LLVM
    /// reads byval arguments through it with `ld.local`.
    param_local: Vec<usize>,
    /// The caller's param slots that receive this frame's return values.
    ret_slots: Vec<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Running,
    /// Stopped after `bar.sync`, waiting for the block.
    AtBarrier,
    /// Stopped before a warp collective, waiting for its warp.
    AtCollective,
    Exited,
}

pub struct Thread {
    pub tid: [u32; 3],
    pub linear: u32,
    pub frames: Vec<Frame>,
    pub local: Vec<u8>,
    pub state: State,
    carry: bool,
    register_fill: u64,
}

/// Launch-wide state shared by all threads.
pub struct Machine<'m> {
    pub module: &'m Module,
    pub global: GlobalMem,
    pub global_addrs: Vec<u64>,
    pub shared_offsets: Vec<u64>,
    pub shared_size: usize,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub ctaid: [u32; 3],
    pub steps: u64,
    pub step_limit: u64,
    /// What registers hold before they are written (`Launch::register_fill`).
    pub register_fill: u64,
}

pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

pub fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

/// Sign- or zero-extends a `ty` value to 64 bits.
fn extend(v: u64, ty: Ty) -> u64 {
    if ty.is_signed() {
        sext(v, ty.bits()) as u64
    } else {
        v & mask(ty.bits())
    }
}

/// The value of `v` in the scalar float format `ty`.
fn to_f64(v: u64, ty: Ty) -> f64 {
    match ty {
        Ty::F(16) => f16::from_bits(v as u16).to_f64(),
        Ty::Bf16 => bf16::from_bits(v as u16).to_f64(),
        Ty::F(32) => f32::from_bits(v as u32) as f64,
        _ => f64::from_bits(v),
    }
}

/// Rounds to nearest even. From f64 this is correctly rounded for the
/// results of +, -, *, / and sqrt on f32/f16 inputs (53 >= 2p + 2 bits).
fn from_f64(x: f64, ty: Ty) -> u64 {
    match ty {
        Ty::F(16) => f16::from_f64(x).to_bits() as u64,
        Ty::Bf16 => bf16::from_f64(x).to_bits() as u64,
        Ty::F(32) => (x as f32).to_bits() as u64,
        _ => x.to_bits(),
    }
}

/// Applies a float operation to a scalar float type or lane-wise to a
/// packed pair (f16x2, bf16x2).
fn float_lanes(ty: Ty, vals: &[u64], f: impl Fn(&[f64]) -> f64) -> u64 {
    let lane = |shift: u32, fmt: Ty| {
        let xs: Vec<f64> = vals.iter().map(|v| to_f64((v >> shift) & mask(fmt.bits()), fmt)).collect();
        from_f64(f(&xs), fmt)
    };
    match ty.half_of_pair() {
        Some(half) => lane(0, half) | (lane(16, half) << 16),
        None => lane(0, ty),
    }
}

fn fault<T>(msg: impl Into<String>) -> Result<T, Error> {
    Err(Error::Fault(msg.into()))
}

fn unsupported<T>(msg: impl Into<String>) -> Result<T, Error> {
    Err(Error::Unsupported(msg.into()))
}

impl Thread {
    pub fn new(m: &Machine, func: u32, tid: [u32; 3], params: Vec<Vec<u8>>) -> Result<Thread, Error> {
        let linear = tid[0] + m.block[0] * (tid[1] + m.block[1] * tid[2]);
        let mut t = Thread {
            tid,
            linear,
            frames: vec![],
            local: vec![],
            state: State::Running,
            carry: false,
            register_fill: m.register_fill,
        };
        t.push_frame(m.module, func, params, vec![])?;
        Ok(t)
    }

    fn push_frame(
        &mut self,
        module: &Module,
        func: u32,
        mut params: Vec<Vec<u8>>,
        ret_slots: Vec<u32>,
    ) -> Result<(), Error> {
        let f = &module.functions[func as usize];
        if f.is_decl {
            return unsupported(format!("call to external function {}", f.name));
        }
        for (slot, &size) in f.param_slots.iter().enumerate() {
            match params.get_mut(slot) {
                Some(p) => p.resize(size, 0),
                None => params.push(vec![0; size]),
            }
        }
        let local_base = self.local.len().next_multiple_of(f.local_align.max(8));
        let mut end = local_base + f.local_size;
        let mut param_local = vec![];
        if !f.is_entry {
            for p in &params[..f.params.len()] {
                let at = end.next_multiple_of(8);
                param_local.push(at);
                end = at + p.len();
            }
        }
        if end > LOCAL_LIMIT {
            return fault("local memory (stack) overflow");
        }
        self.local.resize(end, 0);
        for (&at, p) in param_local.iter().zip(&params) {
            self.local[at..at + p.len()].copy_from_slice(p);
        }
        let regs = f.regs.iter().map(|&bits| self.register_fill & mask(bits)).collect();
        self.frames.push(Frame { func, pc: 0, regs, params, local_base, param_local, ret_slots });
        Ok(())
    }

    pub fn frame(&self) -> &Frame {
        self.frames.last().expect("a running thread has a frame")
    }

    fn frame_mut(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("a running thread has a frame")
    }

    /// The instruction this thread is about to run.
    pub fn inst<'m>(&self, module: &'m Module) -> &'m Inst {
        let f = self.frame();
        &module.functions[f.func as usize].body[f.pc]
    }

    pub fn lane(&self) -> u32 {
        self.linear % 32
    }

    pub fn read(&self, m: &Machine, op: &Operand) -> Result<u64, Error> {
        Ok(match op {
            Operand::Reg(r) => self.frame().regs[*r as usize],
            Operand::Imm(v) => *v,
            Operand::Special(s) => self.special(m, *s) as u64,
            Operand::Sym(s, add) => self.sym_addr(m, *s)?.wrapping_add(*add as u64),
            Operand::Vec(_) => return unsupported("vector operand in scalar position"),
        })
    }

    pub fn write(&mut self, m: &Machine, r: Reg, v: u64) {
        let f = self.frame_mut();
        f.regs[r as usize] = v & mask(m.module.functions[f.func as usize].regs[r as usize]);
    }

    fn special(&self, m: &Machine, s: Special) -> u32 {
        let lane = self.lane();
        match s {
            Special::Tid(d) => self.tid[d as usize],
            Special::Ntid(d) => m.block[d as usize],
            Special::Ctaid(d) => m.ctaid[d as usize],
            Special::Nctaid(d) => m.grid[d as usize],
            Special::LaneId => lane,
            Special::WarpId => self.linear / 32,
            Special::NWarpId => m.block.iter().product::<u32>().div_ceil(32),
            Special::LanemaskEq => 1 << lane,
            Special::LanemaskLt => (1u32 << lane) - 1,
            Special::LanemaskLe => ((1u64 << (lane + 1)) - 1) as u32,
            Special::LanemaskGt => !(((1u64 << (lane + 1)) - 1) as u32),
            Special::LanemaskGe => !((1u32 << lane) - 1),
        }
    }

    fn sym_addr(&self, m: &Machine, s: Sym) -> Result<u64, Error> {
        Ok(match s {
            Sym::Global(i) => m.global_addrs[i as usize],
            Sym::Shared(i) => SHARED_BASE + m.shared_offsets[i as usize],
            Sym::Local(off) => LOCAL_BASE + (self.frame().local_base + off as usize) as u64,
            Sym::Param(slot) => match self.frame().param_local.get(slot as usize) {
                Some(&at) => LOCAL_BASE + at as u64,
                None => memory::param_slot_addr(slot as usize),
            },
            Sym::Func(_) => return unsupported("address of a function"),
        })
    }

    fn addr(&self, m: &Machine, a: &Addr) -> Result<u64, Error> {
        let base = match &a.base {
            AddrBase::Reg(r) => self.frame().regs[*r as usize],
            AddrBase::Sym(s) => self.sym_addr(m, *s)?,
            AddrBase::Abs => 0,
        };
        Ok(base.wrapping_add(a.offset as u64))
    }

    /// The bytes an access names, after checking the address is in `space`.
    fn mem<'a>(
        &'a mut self,
        m: &'a mut Machine,
        shared: &'a mut [u8],
        space: Space,
        addr: u64,
        len: usize,
    ) -> Result<&'a mut [u8], Error> {
        if addr % len as u64 != 0 {
            return fault(format!("misaligned {len}-byte access at {addr:#x}"));
        }
        let win = window(addr);
        let ok = match space {
            Space::Generic => win.is_some(),
            Space::Global | Space::Const => win == Some(Window::Global),
            Space::Shared => win == Some(Window::Shared),
            Space::Local => win == Some(Window::Local),
            Space::Param => win == Some(Window::Param),
        };
        if !ok {
            return fault(format!("address {addr:#x} is not in the {space:?} space"));
        }
        match win {
            Some(Window::Global) => m.global.bytes(addr, len),
            Some(Window::Shared) => flat(shared, addr - SHARED_BASE, len, "shared"),
            Some(Window::Param) => {
                let (slot, off) = memory::param_slot_of(addr);
                match self.frames.last_mut().and_then(|f| f.params.get_mut(slot)) {
                    Some(bytes) => flat(bytes, off as u64, len, "param"),
                    None => fault(format!("param address {addr:#x} names no slot of this frame")),
                }
            }
            _ => flat(&mut self.local, addr - LOCAL_BASE, len, "local"),
        }
    }

    /// Runs until the thread blocks at a barrier or collective, or exits.
    pub fn run(&mut self, m: &mut Machine, shared: &mut [u8]) -> Result<(), Error> {
        while self.state == State::Running {
            m.steps += 1;
            if m.steps > m.step_limit {
                return Err(Error::Timeout(m.step_limit));
            }
            let module = m.module;
            let inst = self.inst(module);
            if let Some((p, neg)) = inst.guard {
                if (self.frame().regs[p as usize] != 0) == neg {
                    self.frame_mut().pc += 1;
                    continue;
                }
            }
            self.step(m, shared, &inst.op).map_err(|e| {
                let at =
                    format!("line {} in {}", inst.line, module.functions[self.frame().func as usize].name);
                match e {
                    Error::Unsupported(s) => Error::Unsupported(format!("{at}: {s}")),
                    Error::Fault(s) => Error::Fault(format!("{at}: {s}")),
                    e => e,
                }
            })?;
        }
        Ok(())
    }

    fn step(&mut self, m: &mut Machine, shared: &mut [u8], op: &Op) -> Result<(), Error> {
        let mut next = self.frame().pc + 1;
        match op {
            Op::Mov { d, a, bits } => {
                // A vector on either side packs or unpacks registers, low part first.
                let parts: Vec<u64> = match a {
                    Operand::Vec(items) => items.iter().map(|i| self.read(m, i)).collect::<Result<_, _>>()?,
                    a => vec![self.read(m, a)?],
                };
                match d {
                    Operand::Reg(d) => {
                        let w = bits / parts.len() as u32;
                        let v = parts.iter().rev().fold(0u64, |acc, p| (acc << w) | (p & mask(w)));
                        self.write(m, *d, v & mask(*bits));
                    }
                    Operand::Vec(ds) => {
                        let w = bits / ds.len() as u32;
                        for (i, dst) in ds.iter().enumerate() {
                            if let Operand::Reg(r) = dst {
                                self.write(m, *r, (parts[0] >> (w * i as u32)) & mask(w));
                            }
                        }
                    }
                    _ => return unsupported("mov destination"),
                }
            }
            Op::Bin { op, ty, d, a, b } => {
                let (a, b) = (self.read(m, a)?, self.read(m, b)?);
                let v = binary(*op, *ty, a, b)?;
                self.write(m, *d, v);
            }
            Op::Un { op, ty, d, a } => {
                let a = self.read(m, a)?;
                let v = unary(*op, *ty, a)?;
                self.write(m, *d, v);
            }
            Op::Mad { kind, ty, d, a, b, c } => {
                let (a, b, c) = (self.read(m, a)?, self.read(m, b)?, self.read(m, c)?);
                let v = mad(*kind, *ty, a, b, c)?;
                self.write(m, *d, v);
            }
            Op::Carry { kind, cin, cout, ty, d, a, b, c } => {
                let n = ty.bits();
                let (a, b, c) =
                    (self.read(m, a)? & mask(n), self.read(m, b)? & mask(n), self.read(m, c)? & mask(n));
                let carry_in = (*cin && self.carry) as i128;
                let product = || {
                    if ty.is_signed() {
                        (sext(a, n) as i128 * sext(b, n) as i128) as u128
                    } else {
                        a as u128 * b as u128
                    }
                };
                // The carry flag of subtraction is the borrow.
                let wide: i128 = match kind {
                    CarryKind::Add => a as i128 + b as i128 + carry_in,
                    CarryKind::Sub => a as i128 - b as i128 - carry_in,
                    CarryKind::MadLo => (product() & mask(n) as u128) as i128 + c as i128 + carry_in,
                    CarryKind::MadHi => ((product() >> n) & mask(n) as u128) as i128 + c as i128 + carry_in,
                };
                if *cout {
                    self.carry = wide < 0 || wide >> n != 0;
                }
                self.write(m, *d, wide as u64);
            }
            Op::Set { cmp, dty, sty, d, a, b } => {
                let (a, b) = (self.read(m, a)?, self.read(m, b)?);
                let v = match (compare(*cmp, *sty, a, b)?, dty.is_float()) {
                    (false, _) => 0,
                    (true, true) => float_lanes(*dty, &[], |_| 1.0),
                    (true, false) => mask(dty.bits()),
                };
                self.write(m, *d, v);
            }
            Op::Setp { cmp, ty, d, dn, a, b, comb } => {
                let (a, b) = (self.read(m, a)?, self.read(m, b)?);
                let r = compare(*cmp, *ty, a, b)?;
                let (r, rn) = match comb {
                    Some((bop, c)) => {
                        let c = self.read(m, c)? != 0;
                        let f = |x: bool| match bop {
                            BoolOp::And => x && c,
                            BoolOp::Or => x || c,
                            BoolOp::Xor => x ^ c,
                        };
                        (f(r), f(!r))
                    }
                    None => (r, !r),
                };
                self.write(m, *d, r as u64);
                if let Some(dn) = dn {
                    self.write(m, *dn, rn as u64);
                }
            }
            Op::Selp { d, a, b, c, .. } => {
                let v = if self.read(m, c)? != 0 { self.read(m, a)? } else { self.read(m, b)? };
                self.write(m, *d, v);
            }
            Op::Cvt { dty, sty, rnd, int, sat, d, a } => {
                let a = self.read(m, a)?;
                let v = convert(*dty, *sty, *rnd, *int, *sat, a)?;
                self.write(m, *d, v);
            }
            Op::PackPair { pair, d, a, b } => {
                let half = pair.half_of_pair().expect("a packed pair");
                let h = |v: u64| from_f64(f32::from_bits(v as u32) as f64, half);
                let v = h(self.read(m, a)?) << 16 | h(self.read(m, b)?);
                self.write(m, *d, v);
            }
            Op::Ld { space, ty, d, addr } => {
                let n = ty.bytes();
                let vals: Vec<u64> = if let Some((slot, off)) = self.param_addr(addr, *space) {
                    let p = &self.frame().params[slot];
                    (0..d.len())
                        .map(|i| {
                            let at = off + i * n;
                            p.get(at..at + n).map(read_le).ok_or(())
                        })
                        .collect::<Result<_, ()>>()
                        .or_else(|_| fault("out of bounds: ld.param"))?
                } else {
                    let base = self.addr(m, addr)?;
                    let bytes = self.mem(m, shared, *space, base, n * d.len())?;
                    bytes.chunks(n).map(read_le).collect()
                };
                for (r, v) in d.iter().zip(vals) {
                    self.write(m, *r, extend(v, *ty));
                }
            }
            Op::St { space, ty, addr, a } => {
                let n = ty.bytes();
                let vals: Vec<u64> = a.iter().map(|x| self.read(m, x)).collect::<Result<_, _>>()?;
                let dst: &mut [u8] = if let Some((slot, off)) = self.param_addr(addr, *space) {
                    let p = &mut self.frame_mut().params[slot];
                    match p.get_mut(off..off + n * vals.len()) {
                        Some(s) => s,
                        None => return fault("out of bounds: st.param"),
                    }
                } else {
                    let base = self.addr(m, addr)?;
                    self.mem(m, shared, *space, base, n * vals.len())?
                };
                for (chunk, v) in dst.chunks_mut(n).zip(vals) {
                    memory::write_le(chunk, v);
                }
            }
            Op::Atom { space, op, ty, d, addr, b, c } => {
                let n = ty.bits();
                let b = self.read(m, b)? & mask(n);
                let c = match c {
                    Some(c) => self.read(m, c)? & mask(n),
                    None => 0,
                };
                let base = self.addr(m, addr)?;
                let bytes = self.mem(m, shared, *space, base, ty.bytes())?;
                let old = read_le(bytes);
                let new = atomic(*op, *ty, old, b, c)?;
                memory::write_le(bytes, new);
                if let Some(d) = d {
                    self.write(m, *d, extend(old, *ty));
                }
            }
            Op::Bra { target } => next = self.label(m, *target),
            Op::BrxIdx { index, targets } => {
                let i = self.read(m, index)? as u32 as usize;
                match targets.get(i) {
                    Some(&l) => next = self.label(m, l),
                    None => return fault(format!("brx.idx index {i} out of range")),
                }
            }
            Op::Call { rets, func, args } => {
                let params: Vec<Vec<u8>> =
                    args.iter().map(|&s| self.frame().params[s as usize].clone()).collect();
                self.frame_mut().pc = next;
                let f = &m.module.functions[*func as usize];
                if f.params.len() != args.len() || f.rets.len() != rets.len() {
                    return fault(format!("call to {} with the wrong number of arguments", f.name));
                }
                self.push_frame(m.module, *func, params, rets.clone())?;
                return Ok(());
            }
            Op::Ret => {
                let frame = self.frames.pop().expect("frame");
                self.local.truncate(frame.local_base);
                match self.frames.last_mut() {
                    None => {
                        self.frames.push(frame);
                        self.state = State::Exited;
                    }
                    Some(caller) => {
                        let nparams = m.module.functions[frame.func as usize].params.len();
                        for (j, &slot) in frame.ret_slots.iter().enumerate() {
                            let mut v = frame.params[nparams + j].clone();
                            v.resize(caller.params[slot as usize].len(), 0);
                            caller.params[slot as usize] = v;
                        }
                    }
                }
                return Ok(());
            }
            Op::Exit => {
                self.state = State::Exited;
                return Ok(());
            }
            Op::BarSync => self.state = State::AtBarrier,
            Op::WmmaLoad { frag, col_major, space, d, addr, stride } => {
                let base = self.addr(m, addr)?;
                let stride = match stride {
                    Some(s) => self.read(m, s)? as u32 as u64,
                    None => 16,
                };
                let esize = if *frag == Frag::C { 4 } else { 2 };
                let mut elems = [0u64; 8];
                for (slot, e) in elems.iter_mut().enumerate() {
                    let (row, col) = wmma_element(self.lane(), slot);
                    let (major, minor) = if *col_major { (col, row) } else { (row, col) };
                    let at = base.wrapping_add((major * stride + minor) * esize);
                    *e = read_le(self.mem(m, shared, *space, at, esize as usize)?);
                }
                let regs = wmma_pack(&elems, *frag != Frag::C);
                for (r, v) in d.iter().zip(regs) {
                    self.write(m, *r, v);
                }
            }
            Op::WmmaStore { col_major, space, addr, a, stride } => {
                let base = self.addr(m, addr)?;
                let stride = match stride {
                    Some(s) => self.read(m, s)? as u32 as u64,
                    None => 16,
                };
                let vals: Vec<u64> = a.iter().map(|&r| self.frame().regs[r as usize]).collect();
                for (slot, v) in vals.into_iter().enumerate() {
                    let (row, col) = wmma_element(self.lane(), slot);
                    let (major, minor) = if *col_major { (col, row) } else { (row, col) };
                    let at = base.wrapping_add((major * stride + minor) * 4);
                    memory::write_le(self.mem(m, shared, *space, at, 4)?, v);
                }
            }
            Op::Shfl { .. }
            | Op::Vote { .. }
            | Op::MatchAny { .. }
            | Op::Redux { .. }
            | Op::WarpSync { .. }
            | Op::WmmaMma { .. } => {
                self.state = State::AtCollective;
                return Ok(());
            }
            Op::Prmt { d, a, b, c } => {
                let bytes = (self.read(m, b)? & 0xffff_ffff) << 32 | (self.read(m, a)? & 0xffff_ffff);
                let sel = self.read(m, c)?;
                let mut v = 0u64;
                for i in 0..4 {
                    let s = (sel >> (4 * i)) & 0xf;
                    let mut byte = (bytes >> (8 * (s & 7))) & 0xff;
                    if s & 8 != 0 {
                        // Replicate the byte's sign bit.
                        byte = if byte & 0x80 != 0 { 0xff } else { 0 };
                    }
                    v |= byte << (8 * i);
                }
                self.write(m, *d, v);
            }
            Op::Bfe { ty, d, a, b, c } => {
                let n = ty.bits();
                let a = self.read(m, a)? & mask(n);
                let pos = (self.read(m, b)? & 0xff) as u32;
                let len = (self.read(m, c)? & 0xff) as u32;
                let sbit = if ty.is_signed() {
                    if len == 0 {
                        false
                    } else {
                        (a >> (pos + len - 1).min(n - 1)) & 1 == 1
                    }
                } else {
                    false
                };
                let mut v = 0u64;
                for i in 0..n {
                    let bit = if i < len && pos + i < n { (a >> (pos + i)) & 1 == 1 } else { sbit };
                    v |= (bit as u64) << i;
                }
                self.write(m, *d, v);
            }
            Op::Bfi { ty, d, f, b, c, e } => {
                let n = ty.bits();
                let (f, b) = (self.read(m, f)?, self.read(m, b)? & mask(n));
                let pos = (self.read(m, c)? & 0xff) as u32;
                let len = (self.read(m, e)? & 0xff) as u32;
                let mut v = b;
                for i in 0..len.min(n.saturating_sub(pos)) {
                    let bit = (f >> i) & 1;
                    v = (v & !(1 << (pos + i))) | (bit << (pos + i));
                }
                self.write(m, *d, v);
            }
            Op::Shf { left, wrap, d, a, b, c } => {
                let (a, b) = (self.read(m, a)? & 0xffff_ffff, self.read(m, b)? & 0xffff_ffff);
                let c = self.read(m, c)? as u32;
                let n = if *wrap { c & 31 } else { c.min(32) };
                let both = (b << 32) | a;
                let v = if *left { (both << n) >> 32 } else { both >> n };
                self.write(m, *d, v & 0xffff_ffff);
            }
            Op::Dp4a { a_signed, b_signed, d, a, b, c } => {
                let (a, b, c) = (self.read(m, a)?, self.read(m, b)?, self.read(m, c)?);
                let byte = |v: u64, i: u32, s: bool| {
                    let x = (v >> (8 * i)) & 0xff;
                    if s {
                        sext(x, 8)
                    } else {
                        x as i64
                    }
                };
                let sum = (0..4)
                    .fold(c as u32 as i64, |acc, i| acc + byte(a, i, *a_signed) * byte(b, i, *b_signed));
                self.write(m, *d, sum as u64);
            }
            Op::Fence => {}
            Op::Unsupported(what) => return unsupported(what.clone()),
        }
        self.frame_mut().pc = next;
        Ok(())
    }

    fn label(&self, m: &Machine, l: Label) -> usize {
        m.module.functions[self.frame().func as usize].labels[l as usize]
    }

    /// The slot and offset of an `ld`/`st.param` that names its slot; other
    /// param accesses (through a register) go through the param window.
    fn param_addr(&self, a: &Addr, space: Space) -> Option<(usize, usize)> {
        match a.base {
            AddrBase::Sym(Sym::Param(slot)) if space == Space::Param && a.offset >= 0 => {
                Some((slot as usize, a.offset as usize))
            }
            _ => None,
        }
    }
}

/// The fragment layout of an m16n16k16 tile. The hardware's layout is
/// unspecified and programs may only apply the same operation to every
/// element, so any fixed layout gives the same results: lane `l` holds
/// elements `8l .. 8l+8` of the tile in row-major order.
pub fn wmma_element(lane: u32, slot: usize) -> (u64, u64) {
    let e = lane as u64 * 8 + slot as u64;
    (e / 16, e % 16)
}

/// Eight fragment elements as registers: f32 one per register; f16 two per
/// f16x2 register in the first four, the rest zero.
pub fn wmma_pack(elems: &[u64; 8], half: bool) -> [u64; 8] {
    let mut regs = [0u64; 8];
    for (i, &e) in elems.iter().enumerate() {
        if half {
            regs[i / 2] |= (e & 0xffff) << (16 * (i % 2));
        } else {
            regs[i] = e;
        }
    }
    regs
}

fn binary(op: BinOp, ty: Ty, a: u64, b: u64) -> Result<u64, Error> {
    if ty.is_float() {
        let f = match op {
            BinOp::Add => |x: &[f64]| x[0] + x[1],
            BinOp::Sub => |x: &[f64]| x[0] - x[1],
            BinOp::MulLo => |x: &[f64]| x[0] * x[1],
            BinOp::Div => |x: &[f64]| x[0] / x[1],
            BinOp::Min => |x: &[f64]| x[0].min(x[1]),
            BinOp::Max => |x: &[f64]| x[0].max(x[1]),
            BinOp::Copysign => |x: &[f64]| x[1].copysign(x[0]),
            _ => return unsupported(format!("{op:?} on {ty:?}")),
        };
        return Ok(float_lanes(ty, &[a, b], f));
    }
    let n = ty.bits();
    let (ua, ub) = (a & mask(n), b & mask(n));
    let (sa, sb) = (sext(a, n), sext(b, n));
    let signed = ty.is_signed();
    Ok(match op {
        BinOp::Add => ua.wrapping_add(ub),
        BinOp::Sub => ua.wrapping_sub(ub),
        BinOp::MulLo => ua.wrapping_mul(ub),
        BinOp::MulHi | BinOp::MulWide => {
            let p = if signed { (sa as i128 * sb as i128) as u128 } else { ua as u128 * ub as u128 };
            if op == BinOp::MulHi {
                (p >> n) as u64
            } else {
                p as u64
            }
        }
        // Division by zero is undefined in PTX; the hardware's all-ones quotient
        // and unchanged-dividend remainder are as good a choice as any.
        BinOp::Div if ub == 0 => mask(n),
        BinOp::Rem if ub == 0 => ua,
        BinOp::Div if signed => sa.wrapping_div(sb) as u64,
        BinOp::Rem if signed => sa.wrapping_rem(sb) as u64,
        BinOp::Div => ua / ub,
        BinOp::Rem => ua % ub,
        BinOp::Min if signed => sa.min(sb) as u64,
        BinOp::Max if signed => sa.max(sb) as u64,
        BinOp::Min => ua.min(ub),
        BinOp::Max => ua.max(ub),
        BinOp::And => ua & ub,
        BinOp::Or => ua | ub,
        BinOp::Xor => ua ^ ub,
        // The shift amount is an unsigned 32-bit value, clamped to the width.
        BinOp::Shl => {
            let s = b as u32;
            if s >= n {
                0
            } else {
                ua << s
            }
        }
        BinOp::Shr => {
            let s = (b as u32).min(n - 1 + (!signed) as u32);
            if s >= n {
                0
            } else if signed {
                (sa >> s) as u64
            } else {
                ua >> s
            }
        }
        BinOp::Copysign => return unsupported("copysign on an integer type"),
    })
}

fn unary(op: UnOp, ty: Ty, a: u64) -> Result<u64, Error> {
    let n = ty.bits();
    if ty.is_float() {
        let sign = match ty.half_of_pair() {
            Some(_) => 0x8000_8000,
            None => 1u64 << (n - 1),
        };
        let f: fn(&[f64]) -> f64 = match op {
            UnOp::Neg => return Ok(a ^ sign),
            UnOp::Abs => return Ok(a & !sign),
            UnOp::Sqrt => |x| x[0].sqrt(),
            UnOp::Rsqrt => |x| 1.0 / x[0].sqrt(),
            UnOp::Rcp => |x| 1.0 / x[0],
            UnOp::Ex2 => |x| x[0].exp2(),
            UnOp::Lg2 => |x| x[0].log2(),
            UnOp::Sin => |x| x[0].sin(),
            UnOp::Cos => |x| x[0].cos(),
            UnOp::Tanh => |x| x[0].tanh(),
            _ => return unsupported(format!("{op:?} on {ty:?}")),
        };
        return Ok(float_lanes(ty, &[a], f));
    }
    let ua = a & mask(n);
    Ok(match op {
        UnOp::Neg => ua.wrapping_neg(),
        UnOp::Abs => sext(a, n).wrapping_abs() as u64,
        UnOp::Not if ty == Ty::Pred => (ua == 0) as u64,
        UnOp::Not => !ua,
        UnOp::Popc => ua.count_ones() as u64,
        UnOp::Clz => (ua.leading_zeros() - (64 - n)) as u64,
        UnOp::Brev => ua.reverse_bits() >> (64 - n),
        UnOp::Bfind { shiftamt } => {
            // Position of the most significant bit that differs from the sign.
            let x = if ty.is_signed() && sext(a, n) < 0 { !ua & mask(n) } else { ua };
            if x == 0 {
                0xffff_ffff
            } else {
                let pos = 63 - x.leading_zeros() as u64;
                if shiftamt {
                    n as u64 - 1 - pos
                } else {
                    pos
                }
            }
        }
        _ => return unsupported(format!("{op:?} on {ty:?}")),
    })
}

fn mad(kind: MadKind, ty: Ty, a: u64, b: u64, c: u64) -> Result<u64, Error> {
    Ok(match kind {
        MadKind::Fma => match ty {
            Ty::F(32) => f32::from_bits(a as u32)
                .mul_add(f32::from_bits(b as u32), f32::from_bits(c as u32))
                .to_bits() as u64,
            Ty::F(64) => f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c)).to_bits(),
            // f16: the product is exact in f64; the sum is rounded twice, which
            // both builds do alike.
            Ty::F(16) | Ty::F16x2 | Ty::Bf16 | Ty::Bf16x2 => {
                float_lanes(ty, &[a, b, c], |x| x[0] * x[1] + x[2])
            }
            _ => return unsupported(format!("fma on {ty:?}")),
        },
        MadKind::Lo => binary(BinOp::MulLo, ty, a, b)?.wrapping_add(c),
        MadKind::Hi => binary(BinOp::MulHi, ty, a, b)?.wrapping_add(c),
        MadKind::Wide => binary(BinOp::MulWide, ty, a, b)?.wrapping_add(c),
    })
}

fn compare(cmp: Cmp, ty: Ty, a: u64, b: u64) -> Result<bool, Error> {
    use std::cmp::Ordering::*;
    if ty.is_float() {
        if ty.half_of_pair().is_some() {
            return unsupported(format!("setp on {ty:?}"));
        }
        let (x, y) = (to_f64(a, ty), to_f64(b, ty));
        let unordered = x.is_nan() || y.is_nan();
        let ord = x.partial_cmp(&y);
        return Ok(match cmp {
            Cmp::Eq => ord == Some(Equal),
            Cmp::Ne => !unordered && ord != Some(Equal),
            Cmp::Lt => ord == Some(Less),
            Cmp::Le => matches!(ord, Some(Less | Equal)),
            Cmp::Gt => ord == Some(Greater),
            Cmp::Ge => matches!(ord, Some(Greater | Equal)),
            Cmp::Equ => unordered || ord == Some(Equal),
            Cmp::Neu => unordered || ord != Some(Equal),
            Cmp::Ltu => unordered || ord == Some(Less),
            Cmp::Leu => unordered || matches!(ord, Some(Less | Equal)),
            Cmp::Gtu => unordered || ord == Some(Greater),
            Cmp::Geu => unordered || matches!(ord, Some(Greater | Equal)),
            Cmp::Num => !unordered,
            Cmp::Nan => unordered,
            _ => return unsupported(format!("setp.{cmp:?} on a float")),
        });
    }
    let n = ty.bits();
    let ord = if ty.is_signed() { sext(a, n).cmp(&sext(b, n)) } else { (a & mask(n)).cmp(&(b & mask(n))) };
    let uord = (a & mask(n)).cmp(&(b & mask(n)));
    Ok(match cmp {
        Cmp::Eq => uord == Equal,
        Cmp::Ne => uord != Equal,
        Cmp::Lt => ord == Less,
        Cmp::Le => ord != Greater,
        Cmp::Gt => ord == Greater,
        Cmp::Ge => ord != Less,
        Cmp::Lo => uord == Less,
        Cmp::Ls => uord != Greater,
        Cmp::Hi => uord == Greater,
        Cmp::Hs => uord != Less,
        _ => return unsupported(format!("setp.{cmp:?} on an integer")),
    })
}

fn round(x: f64, rnd: Rnd) -> f64 {
    match rnd {
        Rnd::Rz => x.trunc(),
        Rnd::Rm => x.floor(),
        Rnd::Rp => x.ceil(),
        Rnd::Rn | Rnd::None => x.round_ties_even(),
    }
}

/// An integer `v` converted to a float with the rounding `rnd`, from the
/// nearest float (`bits`, whose value is the integer `got`): a directed
/// rounding that went the wrong way moves one step (one unit in the last
/// place, which for a float's bit pattern is the next or previous integer).
fn directed(bits: u64, got: i128, v: i128, rnd: Rnd) -> u64 {
    let up = match rnd {
        Rnd::Rm if got > v => false,
        Rnd::Rp if got < v => true,
        Rnd::Rz if got.abs() > v.abs() => v < 0,
        _ => return bits,
    };
    // Neither 0 nor a sign change can need a step: `v` is an integer that
    // `got` already brackets from the other side.
    if (got > 0) == up {
        bits + 1
    } else {
        bits - 1
    }
}

fn convert(dty: Ty, sty: Ty, rnd: Rnd, int: bool, sat: bool, a: u64) -> Result<u64, Error> {
    let (dn, sn) = (dty.bits(), sty.bits());
    let clamp_int = |x: i128| -> u64 {
        let (lo, hi) = if dty.is_signed() {
            (-(1i128 << (dn - 1)), (1i128 << (dn - 1)) - 1)
        } else {
            (0, (1i128 << dn) - 1)
        };
        extend(x.clamp(lo, hi) as u64, dty)
    };
    match (dty.is_float(), sty.is_float()) {
        (false, false) => {
            let x = if sty.is_signed() { sext(a, sn) as i128 } else { (a & mask(sn)) as i128 };
            Ok(if sat { clamp_int(x) } else { extend(x as u64, dty) })
        }
        (false, true) => {
            // Float to integer saturates, NaN gives 0.
            let x = to_f64(a, sty);
            if x.is_nan() {
                return Ok(0);
            }
            Ok(clamp_int(round(x, rnd).clamp(-1e40, 1e40) as i128))
        }
        (true, false) => {
            // i64 -> f32 through f64 would round twice; go direct where it matters.
            let v = if sty.is_signed() { sext(a, sn) as i128 } else { (a & mask(sn)) as i128 };
            match (dty, rnd) {
                (Ty::F(32), _) => {
                    let f = v as f32;
                    Ok(directed(f.to_bits() as u64, f as i128, v, rnd) as u32 as u64)
                }
                (Ty::F(64), _) => {
                    let f = v as f64;
                    Ok(directed(f.to_bits(), f as i128, v, rnd))
                }
                (_, Rnd::Rn | Rnd::None) => Ok(from_f64(v as f32 as f64, dty)),
                _ => unsupported(format!("cvt {rnd:?} to {dty:?}")),
            }
        }
        (true, true) => {
            if dty.half_of_pair().is_some() || sty.half_of_pair().is_some() {
                return unsupported("cvt of a packed pair");
            }
            let x = to_f64(a, sty);
            if int {
                return Ok(from_f64(round(x, rnd), dty));
            }
            if dn < sn && !matches!(rnd, Rnd::Rn | Rnd::None) {
                return unsupported(format!("cvt {rnd:?} narrowing"));
            }
            let v = if dty == Ty::F(16) && sty == Ty::F(32) {
                f16::from_f32(f32::from_bits(a as u32)).to_bits() as u64
            } else {
                from_f64(x, dty)
            };
            Ok(if sat { from_f64(to_f64(v, dty).clamp(0.0, 1.0), dty) } else { v })
        }
    }
}

pub fn atomic(op: AtomOp, ty: Ty, old: u64, b: u64, c: u64) -> Result<u64, Error> {
    let n = ty.bits();
    if ty.is_float() {
        return match op {
            AtomOp::Add => Ok(float_lanes(ty, &[old, b], |x| x[0] + x[1])),
            AtomOp::Exch => Ok(b),
            AtomOp::Cas => Ok(if old == b { c } else { old }),
            _ => unsupported(format!("atom.{op:?} on {ty:?}")),
        };
    }
    Ok(match op {
        AtomOp::Add => old.wrapping_add(b),
        AtomOp::Min => binary(BinOp::Min, ty, old, b)?,
        AtomOp::Max => binary(BinOp::Max, ty, old, b)?,
        AtomOp::Inc => {
            if old >= b {
                0
            } else {
                old + 1
            }
        }
        AtomOp::Dec => {
            if old == 0 || old > b {
                b
            } else {
                old - 1
            }
        }
        AtomOp::And => old & b,
        AtomOp::Or => old | b,
        AtomOp::Xor => old ^ b,
        AtomOp::Exch => b,
        AtomOp::Cas => {
            if old == b {
                c
            } else {
                old
            }
        }
    } & mask(n))
}

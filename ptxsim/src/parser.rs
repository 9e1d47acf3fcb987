//! PTX text to `ir::Module`. Covers what LLVM 22's NVPTX backend prints:
//! module variables with initializers, `.entry`/`.func` with `.param` lists,
//! register declarations, call sequences in braces, labels and
//! `.branchtargets`. An opcode it cannot decode becomes `Op::Unsupported`, so
//! a file always loads and only a run that reaches such an instruction fails.

use std::collections::HashMap;

use crate::ir::*;
use crate::lexer::{lex, Tok, Token};
use crate::Error;

pub fn parse(src: &str) -> Result<Module, Error> {
    let toks = lex(src)?;
    let mut p =
        Parser { toks, pos: 0, module: Module::default(), funcs: HashMap::new(), vars: HashMap::new() };
    p.module_items()?;
    Ok(p.module)
}

/// An operand as written, before names are resolved against the function.
#[derive(Clone, Debug)]
enum Raw {
    Reg(String),
    NotReg,
    Imm(u64),
    Name(String, i64),
    Addr(Option<String>, i64),
    Vec(Vec<Raw>),
    Paren(Vec<Raw>),
    Pipe(String, String),
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    module: Module,
    funcs: HashMap<String, u32>,
    /// Module-level variables by name.
    vars: HashMap<String, Sym>,
}

/// Per-function name tables while its body is parsed.
struct FnCtx {
    regs: HashMap<String, Reg>,
    /// Innermost last: the function's own params, then one map per `{}`.
    param_scopes: Vec<HashMap<String, u32>>,
    locals: HashMap<String, Sym>,
    labels: HashMap<String, Label>,
    branch_targets: HashMap<String, Vec<Label>>,
}

fn err<T>(line: u32, msg: impl Into<String>) -> Result<T, Error> {
    Err(Error::Parse(format!("line {line}: {}", msg.into())))
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }
    fn peek_at(&self, n: usize) -> Option<&Tok> {
        self.toks.get(self.pos + n).map(|t| &t.tok)
    }
    fn line(&self) -> u32 {
        self.toks.get(self.pos).or(self.toks.last()).map_or(0, |t| t.line)
    }
    fn next(&mut self) -> Result<Tok, Error> {
        let t = self.toks.get(self.pos).map(|t| t.tok.clone());
        self.pos += 1;
        t.ok_or_else(|| Error::Parse("unexpected end of file".into()))
    }
    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, c: char) -> Result<(), Error> {
        if self.eat(c) {
            Ok(())
        } else {
            err(self.line(), format!("expected {c:?}, found {:?}", self.peek()))
        }
    }
    fn word(&mut self) -> Result<String, Error> {
        match self.next()? {
            Tok::Word(w) => Ok(w),
            t => err(self.line(), format!("expected a name, found {t:?}")),
        }
    }
    fn int(&mut self) -> Result<u64, Error> {
        match self.next()? {
            Tok::Int(n) => Ok(n),
            t => err(self.line(), format!("expected an integer, found {t:?}")),
        }
    }
    fn signed_int(&mut self) -> Result<i64, Error> {
        let neg = self.eat('-');
        let n = self.int()? as i64;
        Ok(if neg { n.wrapping_neg() } else { n })
    }
    fn skip_line(&mut self) {
        let line = self.line();
        while self.toks.get(self.pos).is_some_and(|t| t.line == line) {
            self.pos += 1;
        }
    }
    fn skip_past(&mut self, c: char) {
        while let Some(t) = self.peek().cloned() {
            self.pos += 1;
            if t == Tok::Punct(c) {
                break;
            }
        }
    }

    fn module_items(&mut self) -> Result<(), Error> {
        let mut is_extern = false;
        while let Some(t) = self.peek().cloned() {
            match t {
                Tok::Dir(d) => match d.as_str() {
                    "version" | "target" | "address_size" | "file" | "loc" => self.skip_line(),
                    "visible" | "weak" | "common" => self.pos += 1,
                    "extern" => {
                        is_extern = true;
                        self.pos += 1;
                    }
                    "entry" | "func" => {
                        self.pos += 1;
                        self.function(d == "entry", is_extern)?;
                        is_extern = false;
                    }
                    "global" | "const" | "shared" => {
                        self.pos += 1;
                        let sym_space = if d == "shared" { Space::Shared } else { Space::Global };
                        let (name, var) = self.variable(sym_space, is_extern)?;
                        let sym = if d == "shared" {
                            self.module.shared.push(var);
                            Sym::Shared(self.module.shared.len() as u32 - 1)
                        } else {
                            self.module.globals.push(var);
                            Sym::Global(self.module.globals.len() as u32 - 1)
                        };
                        self.vars.insert(name, sym);
                        is_extern = false;
                    }
                    "section" => {
                        // DWARF sections: balanced braces, not needed to run.
                        self.skip_past('{');
                        let mut depth = 1;
                        while depth > 0 {
                            match self.next()? {
                                Tok::Punct('{') => depth += 1,
                                Tok::Punct('}') => depth -= 1,
                                _ => {}
                            }
                        }
                    }
                    _ => return err(self.line(), format!("unexpected directive .{d}")),
                },
                t => return err(self.line(), format!("unexpected {t:?} at module level")),
            }
        }
        for f in &self.module.functions {
            if f.labels.contains(&usize::MAX) {
                return err(0, format!("{}: branch to an undefined label", f.name));
            }
        }
        Ok(())
    }

    /// `.align N .type name[N][M] = init;` after the space directive.
    fn variable(&mut self, space: Space, is_extern: bool) -> Result<(String, Variable), Error> {
        let mut align = 1;
        let mut ty = Ty::B(8);
        loop {
            match self.peek().cloned() {
                Some(Tok::Dir(d)) if d == "align" => {
                    self.pos += 1;
                    align = self.int()? as usize;
                }
                Some(Tok::Dir(d)) => {
                    self.pos += 1;
                    if let Some(t) = Ty::parse(&d) {
                        ty = t;
                    }
                }
                _ => break,
            }
        }
        let name = self.word()?;
        let mut count = 1usize;
        let mut dynamic = false;
        while self.eat('[') {
            if self.eat(']') {
                dynamic = true;
                continue;
            }
            count *= self.int()? as usize;
            self.expect(']')?;
        }
        let elem = ty.bytes();
        let mut var = Variable {
            name: name.clone(),
            size: elem * count,
            align: align.max(1),
            init: vec![0; elem * count],
            relocs: vec![],
            dynamic: dynamic || (is_extern && space == Space::Shared),
        };
        if self.eat('=') {
            let braced = self.eat('{');
            let mut i = 0;
            loop {
                if braced && self.eat('}') {
                    break;
                }
                self.init_item(&mut var, i * elem, ty)?;
                i += 1;
                if !braced || !self.eat(',') {
                    if braced {
                        self.expect('}')?;
                    }
                    break;
                }
            }
        }
        self.expect(';')?;
        Ok((name, var))
    }

    fn init_item(&mut self, var: &mut Variable, offset: usize, ty: Ty) -> Result<(), Error> {
        let bytes = ty.bytes();
        let line = self.line();
        let masked = matches!(self.peek(), Some(Tok::Int(_))) && self.peek_at(1) == Some(&Tok::Punct('('));
        let value = match self.peek().cloned() {
            Some(Tok::F32(b)) => {
                self.pos += 1;
                Some(b as u64)
            }
            Some(Tok::F64(b)) => {
                self.pos += 1;
                Some(b)
            }
            Some(Tok::Punct('-') | Tok::Int(_)) if !masked => Some(self.signed_int()? as u64),
            _ => None,
        };
        if let Some(value) = value {
            if offset + bytes <= var.init.len() {
                var.init[offset..offset + bytes].copy_from_slice(&value.to_le_bytes()[..bytes]);
            }
            return Ok(());
        }
        // `generic(sym)+n`, `sym+n`, or `MASK(generic(sym)+n)`.
        let mask = if masked {
            let m = self.int()?;
            self.expect('(')?;
            Some(m)
        } else {
            None
        };
        let mut name = self.word()?;
        if name == "generic" {
            self.expect('(')?;
            name = self.word()?;
            self.expect(')')?;
        }
        let addend = if self.eat('+') { self.signed_int()? } else { 0 };
        if masked {
            self.expect(')')?;
        }
        let sym = match self.vars.get(&name).copied().or_else(|| self.funcs.get(&name).map(|&f| Sym::Func(f)))
        {
            Some(s) => s,
            None => return err(line, format!("initializer names unknown symbol {name}")),
        };
        var.relocs.push(Reloc { offset, sym, addend, bytes, mask });
        Ok(())
    }

    fn param_list(&mut self) -> Result<Vec<ParamDecl>, Error> {
        self.expect('(')?;
        let mut out = vec![];
        while !self.eat(')') {
            out.push(self.param_decl()?);
            self.eat(',');
        }
        Ok(out)
    }

    /// `.param [.align N] .type [.ptr [.space] [.align N]] name[[N]]`
    fn param_decl(&mut self) -> Result<ParamDecl, Error> {
        let mut ty = Ty::B(8);
        let mut is_ptr = false;
        while let Some(Tok::Dir(d)) = self.peek().cloned() {
            self.pos += 1;
            match d.as_str() {
                "align" => {
                    self.int()?;
                }
                "ptr" => is_ptr = true,
                _ => {
                    if let Some(t) = Ty::parse(&d) {
                        ty = t;
                    }
                }
            }
        }
        let name = self.word()?;
        let mut size = ty.bytes();
        if self.eat('[') {
            size *= self.int()? as usize;
            self.expect(']')?;
        }
        Ok(ParamDecl { name, ty, size, is_ptr })
    }

    fn func_id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.funcs.get(name) {
            return id;
        }
        let id = self.module.functions.len() as u32;
        self.module.functions.push(Function {
            name: name.to_string(),
            is_entry: false,
            is_decl: true,
            params: vec![],
            rets: vec![],
            regs: vec![],
            reg_names: vec![],
            param_slots: vec![],
            local_size: 0,
            local_align: 1,
            body: vec![],
            labels: vec![],
        });
        self.funcs.insert(name.to_string(), id);
        id
    }

    fn function(&mut self, is_entry: bool, is_extern: bool) -> Result<(), Error> {
        let rets = if self.peek() == Some(&Tok::Punct('(')) { self.param_list()? } else { vec![] };
        let name = self.word()?;
        let params = if self.peek() == Some(&Tok::Punct('(')) { self.param_list()? } else { vec![] };
        // Performance directives (.maxntid 256, 1, 1; .noreturn; ...).
        while let Some(Tok::Dir(_)) = self.peek() {
            self.pos += 1;
            while matches!(self.peek(), Some(Tok::Int(_)) | Some(Tok::Punct(','))) {
                self.pos += 1;
            }
        }
        let id = self.func_id(&name);
        let mut f = Function {
            name: name.clone(),
            is_entry,
            is_decl: true,
            param_slots: params.iter().chain(&rets).map(|p| p.size).collect(),
            params,
            rets,
            regs: vec![],
            reg_names: vec![],
            local_size: 0,
            local_align: 1,
            body: vec![],
            labels: vec![],
        };
        if self.eat(';') || is_extern {
            self.eat(';');
            if self.module.functions[id as usize].is_decl {
                self.module.functions[id as usize] = f;
            }
            return Ok(());
        }
        self.expect('{')?;
        let mut scope = HashMap::new();
        for (i, p) in f.params.iter().chain(&f.rets).enumerate() {
            scope.insert(p.name.clone(), i as u32);
        }
        let mut cx = FnCtx {
            regs: HashMap::new(),
            param_scopes: vec![scope],
            locals: HashMap::new(),
            labels: HashMap::new(),
            branch_targets: HashMap::new(),
        };
        self.body(&mut f, &mut cx)?;
        f.is_decl = false;
        self.module.functions[id as usize] = f;
        Ok(())
    }

    fn label_id(f: &mut Function, cx: &mut FnCtx, name: &str) -> Label {
        if let Some(&l) = cx.labels.get(name) {
            return l;
        }
        f.labels.push(usize::MAX);
        let l = f.labels.len() as Label - 1;
        cx.labels.insert(name.to_string(), l);
        l
    }

    fn body(&mut self, f: &mut Function, cx: &mut FnCtx) -> Result<(), Error> {
        loop {
            let line = self.line();
            match self.next()? {
                Tok::Punct('}') => {
                    if cx.param_scopes.len() == 1 {
                        return Ok(());
                    }
                    cx.param_scopes.pop();
                }
                Tok::Punct('{') => cx.param_scopes.push(HashMap::new()),
                Tok::Dir(d) => match d.as_str() {
                    "reg" => self.reg_decl(f, cx)?,
                    "local" | "shared" => {
                        let space = if d == "local" { Space::Local } else { Space::Shared };
                        let (name, var) = self.variable(space, false)?;
                        let sym = if space == Space::Local {
                            let off = f.local_size.next_multiple_of(var.align);
                            f.local_size = off + var.size;
                            f.local_align = f.local_align.max(var.align);
                            Sym::Local(off as u32)
                        } else {
                            self.module.shared.push(var);
                            Sym::Shared(self.module.shared.len() as u32 - 1)
                        };
                        cx.locals.insert(name, sym);
                    }
                    "param" => {
                        let p = self.param_decl()?;
                        self.expect(';')?;
                        f.param_slots.push(p.size);
                        let slot = f.param_slots.len() as u32 - 1;
                        cx.param_scopes.last_mut().unwrap().insert(p.name, slot);
                    }
                    "pragma" => self.skip_past(';'),
                    "loc" | "file" => self.skip_line(),
                    _ => return err(line, format!("unexpected directive .{d} in {}", f.name)),
                },
                Tok::Word(w) if self.peek() == Some(&Tok::Punct(':')) => {
                    self.pos += 1;
                    match self.peek().cloned() {
                        Some(Tok::Dir(d)) if d == "branchtargets" => {
                            self.pos += 1;
                            let mut targets = vec![];
                            loop {
                                let l = self.word()?;
                                targets.push(Self::label_id(f, cx, &l));
                                if !self.eat(',') {
                                    break;
                                }
                            }
                            self.expect(';')?;
                            cx.branch_targets.insert(w, targets);
                        }
                        Some(Tok::Dir(d)) if d == "callprototype" => self.skip_past(';'),
                        _ => {
                            let l = Self::label_id(f, cx, &w);
                            f.labels[l as usize] = f.body.len();
                        }
                    }
                }
                Tok::Punct('@') => {
                    let neg = self.eat('!');
                    let p = self.word()?;
                    let reg =
                        *cx.regs.get(&p).ok_or_else(|| Error::Parse(format!("line {line}: unknown {p}")))?;
                    let opcode = self.word()?;
                    let op = self.instruction(f, cx, &opcode)?;
                    f.body.push(Inst { guard: Some((reg, neg)), op, line });
                }
                Tok::Word(opcode) => {
                    let op = self.instruction(f, cx, &opcode)?;
                    f.body.push(Inst { guard: None, op, line });
                }
                t => return err(line, format!("unexpected {t:?} in {}", f.name)),
            }
        }
    }

    /// `.reg .b32 %r<36>;` or `.reg .b64 %SP, %SPL;`
    fn reg_decl(&mut self, f: &mut Function, cx: &mut FnCtx) -> Result<(), Error> {
        let ty = match self.next()? {
            Tok::Dir(d) => Ty::parse(&d).ok_or_else(|| Error::Parse(format!("bad register type .{d}")))?,
            t => return err(self.line(), format!("bad register declaration {t:?}")),
        };
        loop {
            let name = self.word()?;
            let names: Vec<String> = if self.eat('<') {
                let n = self.int()?;
                self.expect('>')?;
                (0..n).map(|i| format!("{name}{i}")).collect()
            } else {
                vec![name]
            };
            for n in names {
                cx.regs.insert(n.clone(), f.regs.len() as Reg);
                f.regs.push(ty.bits());
                f.reg_names.push(n);
            }
            if !self.eat(',') {
                break;
            }
        }
        self.expect(';')
    }

    fn raw_operand(&mut self) -> Result<Raw, Error> {
        let line = self.line();
        Ok(match self.next()? {
            Tok::Word(w) if w.starts_with('%') => {
                if self.eat('|') {
                    let p = self.word()?;
                    Raw::Pipe(w, p)
                } else {
                    Raw::Reg(w)
                }
            }
            Tok::Word(w) => {
                let add = if self.eat('+') { self.signed_int()? } else { 0 };
                Raw::Name(w, add)
            }
            Tok::Int(n) => Raw::Imm(n),
            Tok::F32(b) => Raw::Imm(b as u64),
            Tok::F64(b) => Raw::Imm(b),
            Tok::Punct('-') => match self.next()? {
                Tok::Int(n) => Raw::Imm((n as i64).wrapping_neg() as u64),
                t => return err(line, format!("bad operand -{t:?}")),
            },
            Tok::Punct('!') => {
                self.word()?;
                Raw::NotReg
            }
            Tok::Punct('[') => {
                let (base, mut off) = match self.next()? {
                    Tok::Word(w) => (Some(w), 0),
                    Tok::Int(n) => (None, n as i64),
                    t => return err(line, format!("bad address {t:?}")),
                };
                if self.eat('+') {
                    off = off.wrapping_add(self.signed_int()?);
                }
                self.expect(']')?;
                Raw::Addr(base, off)
            }
            Tok::Punct(open @ ('{' | '(')) => {
                let close = if open == '{' { '}' } else { ')' };
                let mut items = vec![];
                while !self.eat(close) {
                    items.push(self.raw_operand()?);
                    self.eat(',');
                }
                if open == '{' {
                    Raw::Vec(items)
                } else {
                    Raw::Paren(items)
                }
            }
            t => return err(line, format!("bad operand {t:?}")),
        })
    }

    fn instruction(&mut self, f: &mut Function, cx: &mut FnCtx, opcode: &str) -> Result<Op, Error> {
        let mut ops = vec![];
        while !self.eat(';') {
            ops.push(self.raw_operand()?);
            self.eat(',');
        }
        let parts: Vec<&str> = opcode.split('.').collect();
        Ok(match decode(f, cx, &self.vars, &self.funcs, &parts, &ops) {
            Ok(op) => op,
            Err(why) => Op::Unsupported(format!("{opcode}: {why}")),
        })
    }
}

type Dec<T> = Result<T, String>;

struct Resolver<'a> {
    f: &'a mut Function,
    cx: &'a mut FnCtx,
    vars: &'a HashMap<String, Sym>,
    funcs: &'a HashMap<String, u32>,
}

impl Resolver<'_> {
    fn reg(&mut self, name: &str) -> Dec<Reg> {
        if name == "_" {
            // The sink operand: a scratch register nobody reads.
            return Ok(*self.cx.regs.entry("_".into()).or_insert_with(|| {
                self.f.regs.push(64);
                self.f.reg_names.push("_".into());
                self.f.regs.len() as Reg - 1
            }));
        }
        self.cx.regs.get(name).copied().ok_or_else(|| format!("unknown register {name}"))
    }

    fn sym(&self, name: &str) -> Dec<Sym> {
        for scope in self.cx.param_scopes.iter().rev() {
            if let Some(&s) = scope.get(name) {
                return Ok(Sym::Param(s));
            }
        }
        if let Some(&s) = self.cx.locals.get(name).or_else(|| self.vars.get(name)) {
            return Ok(s);
        }
        if let Some(&fid) = self.funcs.get(name) {
            return Ok(Sym::Func(fid));
        }
        Err(format!("unknown symbol {name}"))
    }

    fn operand(&mut self, r: &Raw) -> Dec<Operand> {
        Ok(match r {
            Raw::Reg(n) => match special(n) {
                Some(s) => Operand::Special(s),
                None => Operand::Reg(self.reg(n)?),
            },
            Raw::Imm(v) => Operand::Imm(*v),
            // The sink `_`, and inline assembly's registers, which need no `%`.
            Raw::Name(n, 0) if n == "_" || self.cx.regs.contains_key(n) => Operand::Reg(self.reg(n)?),
            // PTX's one predefined constant.
            Raw::Name(n, 0) if n == "WARP_SZ" => Operand::Imm(32),
            Raw::Name(n, add) => Operand::Sym(self.sym(n)?, *add),
            Raw::Vec(items) => Operand::Vec(items.iter().map(|i| self.operand(i)).collect::<Dec<_>>()?),
            other => return Err(format!("unexpected operand {other:?}")),
        })
    }

    fn dst(&mut self, r: &Raw) -> Dec<Reg> {
        match r {
            Raw::Reg(n) | Raw::Name(n, 0) => self.reg(n),
            other => Err(format!("expected a register, found {other:?}")),
        }
    }

    fn addr(&mut self, r: &Raw) -> Dec<Addr> {
        match r {
            Raw::Addr(None, off) => Ok(Addr { base: AddrBase::Abs, offset: *off }),
            Raw::Addr(Some(b), off) if b.starts_with('%') => {
                Ok(Addr { base: AddrBase::Reg(self.reg(b)?), offset: *off })
            }
            Raw::Addr(Some(b), off) => Ok(Addr { base: AddrBase::Sym(self.sym(b)?), offset: *off }),
            other => Err(format!("expected an address, found {other:?}")),
        }
    }

    fn param_slot(&self, r: &Raw) -> Dec<u32> {
        match r {
            Raw::Name(n, 0) => match self.sym(n)? {
                Sym::Param(s) => Ok(s),
                _ => Err(format!("{n} is not a .param")),
            },
            other => Err(format!("expected a .param name, found {other:?}")),
        }
    }
}

fn special(name: &str) -> Option<Special> {
    let dim = |s: &str| match s {
        "x" => Some(0),
        "y" => Some(1),
        "z" => Some(2),
        _ => None,
    };
    let (base, d) = name.split_once('.').map_or((name, None), |(b, d)| (b, dim(d)));
    Some(match (base, d) {
        ("%tid", Some(d)) => Special::Tid(d),
        ("%ntid", Some(d)) => Special::Ntid(d),
        ("%ctaid", Some(d)) => Special::Ctaid(d),
        ("%nctaid", Some(d)) => Special::Nctaid(d),
        ("%laneid", None) => Special::LaneId,
        ("%warpid", None) => Special::WarpId,
        ("%nwarpid", None) => Special::NWarpId,
        ("%lanemask_eq", None) => Special::LanemaskEq,
        ("%lanemask_lt", None) => Special::LanemaskLt,
        ("%lanemask_le", None) => Special::LanemaskLe,
        ("%lanemask_gt", None) => Special::LanemaskGt,
        ("%lanemask_ge", None) => Special::LanemaskGe,
        _ => return None,
    })
}

/// The last modifier that names a type (`add.rn.f32` -> f32).
fn last_ty(parts: &[&str]) -> Dec<Ty> {
    parts.iter().rev().find_map(|p| Ty::parse(p)).ok_or_else(|| "no type".to_string())
}

/// The operation an `atom`, `red` or `redux` names.
fn atom_op(parts: &[&str]) -> Option<AtomOp> {
    parts[1..].iter().find_map(|p| {
        Some(match *p {
            "add" => AtomOp::Add,
            "min" => AtomOp::Min,
            "max" => AtomOp::Max,
            "inc" => AtomOp::Inc,
            "dec" => AtomOp::Dec,
            "and" => AtomOp::And,
            "or" => AtomOp::Or,
            "xor" => AtomOp::Xor,
            "exch" => AtomOp::Exch,
            "cas" => AtomOp::Cas,
            _ => return None,
        })
    })
}

fn has(parts: &[&str], m: &str) -> bool {
    parts[1..].contains(&m)
}

fn space_of(parts: &[&str]) -> Space {
    for p in &parts[1..] {
        match *p {
            "global" => return Space::Global,
            "shared" => return Space::Shared,
            "local" => return Space::Local,
            "const" => return Space::Const,
            "param" => return Space::Param,
            _ => {}
        }
    }
    Space::Generic
}

fn cmp_of(s: &str) -> Option<Cmp> {
    Some(match s {
        "eq" => Cmp::Eq,
        "ne" => Cmp::Ne,
        "lt" => Cmp::Lt,
        "le" => Cmp::Le,
        "gt" => Cmp::Gt,
        "ge" => Cmp::Ge,
        "lo" => Cmp::Lo,
        "ls" => Cmp::Ls,
        "hi" => Cmp::Hi,
        "hs" => Cmp::Hs,
        "equ" => Cmp::Equ,
        "neu" => Cmp::Neu,
        "ltu" => Cmp::Ltu,
        "leu" => Cmp::Leu,
        "gtu" => Cmp::Gtu,
        "geu" => Cmp::Geu,
        "num" => Cmp::Num,
        "nan" => Cmp::Nan,
        _ => return None,
    })
}

fn arity(ops: &[Raw], n: usize) -> Dec<()> {
    if ops.len() == n {
        Ok(())
    } else {
        Err(format!("expected {n} operands, found {}", ops.len()))
    }
}

fn decode(
    f: &mut Function,
    cx: &mut FnCtx,
    vars: &HashMap<String, Sym>,
    funcs: &HashMap<String, u32>,
    parts: &[&str],
    ops: &[Raw],
) -> Dec<Op> {
    let base = parts[0];
    // Modifiers whose semantics we do not model; refuse rather than guess.
    for unsupported in ["sat", "relu", "satfinite"] {
        if has(parts, unsupported) && !(base == "cvt" && unsupported == "sat") {
            return Err(format!(".{unsupported}"));
        }
    }
    let mut r = Resolver { f, cx, vars, funcs };
    Ok(match base {
        "mov" | "cvta" => {
            arity(ops, 2)?;
            let bits = last_ty(parts)?.bits();
            let d = match &ops[0] {
                Raw::Vec(_) => r.operand(&ops[0])?,
                o => Operand::Reg(r.dst(o)?),
            };
            Op::Mov { d, a: r.operand(&ops[1])?, bits }
        }
        "add" | "sub" | "mul" | "div" | "rem" | "min" | "max" | "and" | "or" | "xor" | "shl" | "shr"
        | "copysign"
            if !has(parts, "cc") =>
        {
            arity(ops, 3)?;
            let ty = last_ty(parts)?;
            let op = match base {
                "add" => BinOp::Add,
                "sub" => BinOp::Sub,
                "mul" if has(parts, "hi") => BinOp::MulHi,
                "mul" if has(parts, "wide") => BinOp::MulWide,
                "mul" => BinOp::MulLo,
                "div" => BinOp::Div,
                "rem" => BinOp::Rem,
                "min" => BinOp::Min,
                "max" => BinOp::Max,
                "and" => BinOp::And,
                "or" => BinOp::Or,
                "xor" => BinOp::Xor,
                "shl" => BinOp::Shl,
                "shr" => BinOp::Shr,
                _ => BinOp::Copysign,
            };
            if has(parts, "NaN") || has(parts, "xorsign") || has(parts, "abs") {
                return Err("min/max variant".into());
            }
            Op::Bin { op, ty, d: r.dst(&ops[0])?, a: r.operand(&ops[1])?, b: r.operand(&ops[2])? }
        }
        "add" | "sub" | "addc" | "subc" => {
            arity(ops, 3)?;
            Op::Carry {
                kind: if base.starts_with("sub") { CarryKind::Sub } else { CarryKind::Add },
                cin: base.ends_with('c'),
                cout: has(parts, "cc"),
                ty: last_ty(parts)?,
                d: r.dst(&ops[0])?,
                a: r.operand(&ops[1])?,
                b: r.operand(&ops[2])?,
                c: Operand::Imm(0),
            }
        }
        "mad" | "madc" | "fma" => {
            arity(ops, 4)?;
            let ty = last_ty(parts)?;
            let (d, a, b, c) =
                (r.dst(&ops[0])?, r.operand(&ops[1])?, r.operand(&ops[2])?, r.operand(&ops[3])?);
            if base == "madc" || has(parts, "cc") {
                if has(parts, "wide") {
                    return Err("mad.wide with carry".into());
                }
                let kind = if has(parts, "hi") { CarryKind::MadHi } else { CarryKind::MadLo };
                Op::Carry { kind, cin: base == "madc", cout: has(parts, "cc"), ty, d, a, b, c }
            } else {
                let kind = if ty.is_float() {
                    MadKind::Fma
                } else if has(parts, "hi") {
                    MadKind::Hi
                } else if has(parts, "wide") {
                    MadKind::Wide
                } else {
                    MadKind::Lo
                };
                Op::Mad { kind, ty, d, a, b, c }
            }
        }
        "neg" | "abs" | "not" | "popc" | "clz" | "brev" | "bfind" | "sqrt" | "rsqrt" | "rcp" | "ex2"
        | "lg2" | "sin" | "cos" | "tanh" => {
            arity(ops, 2)?;
            let op = match base {
                "neg" => UnOp::Neg,
                "abs" => UnOp::Abs,
                "not" => UnOp::Not,
                "popc" => UnOp::Popc,
                "clz" => UnOp::Clz,
                "brev" => UnOp::Brev,
                "bfind" => UnOp::Bfind { shiftamt: has(parts, "shiftamt") },
                "sqrt" => UnOp::Sqrt,
                "rsqrt" => UnOp::Rsqrt,
                "rcp" => UnOp::Rcp,
                "ex2" => UnOp::Ex2,
                "lg2" => UnOp::Lg2,
                "sin" => UnOp::Sin,
                "cos" => UnOp::Cos,
                _ => UnOp::Tanh,
            };
            Op::Un { op, ty: last_ty(parts)?, d: r.dst(&ops[0])?, a: r.operand(&ops[1])? }
        }
        "set" if parts.len() == 4 => {
            arity(ops, 3)?;
            let cmp = cmp_of(parts[1]).ok_or("set without comparison")?;
            let (Some(dty), Some(sty)) = (Ty::parse(parts[2]), Ty::parse(parts[3])) else {
                return Err("set needs two types".into());
            };
            Op::Set { cmp, dty, sty, d: r.dst(&ops[0])?, a: r.operand(&ops[1])?, b: r.operand(&ops[2])? }
        }
        "setp" => {
            let cmp = parts.get(1).and_then(|c| cmp_of(c)).ok_or("setp without comparison")?;
            let ty = last_ty(parts)?;
            let comb = parts.get(2).and_then(|b| match *b {
                "and" => Some(BoolOp::And),
                "or" => Some(BoolOp::Or),
                "xor" => Some(BoolOp::Xor),
                _ => None,
            });
            let (d, dn) = match &ops[0] {
                Raw::Pipe(a, b) => (r.reg(a)?, Some(r.reg(b)?)),
                o => (r.dst(o)?, None),
            };
            let comb = match comb {
                Some(op) => {
                    arity(ops, 4)?;
                    if matches!(ops[3], Raw::NotReg) {
                        return Err("negated predicate source".into());
                    }
                    Some((op, r.operand(&ops[3])?))
                }
                None => {
                    arity(ops, 3)?;
                    None
                }
            };
            Op::Setp { cmp, ty, d, dn, a: r.operand(&ops[1])?, b: r.operand(&ops[2])?, comb }
        }
        "selp" => {
            arity(ops, 4)?;
            Op::Selp {
                ty: last_ty(parts)?,
                d: r.dst(&ops[0])?,
                a: r.operand(&ops[1])?,
                b: r.operand(&ops[2])?,
                c: r.operand(&ops[3])?,
            }
        }
        "cvt" if parts.contains(&"f32") && parts.iter().any(|p| matches!(*p, "f16x2" | "bf16x2")) => {
            // cvt.rn.f16x2.f32 d, a, b: a goes to the upper half.
            arity(ops, 3)?;
            if parts.iter().any(|p| matches!(*p, "relu" | "satfinite")) {
                return Err(format!("unsupported conversion {}", parts.join(".")));
            }
            let pair = if parts.contains(&"f16x2") { Ty::F16x2 } else { Ty::Bf16x2 };
            Op::PackPair { pair, d: r.dst(&ops[0])?, a: r.operand(&ops[1])?, b: r.operand(&ops[2])? }
        }
        "cvt" => {
            arity(ops, 2)?;
            if parts.iter().any(|p| matches!(*p, "relu" | "satfinite")) {
                return Err(format!("unsupported conversion {}", parts.join(".")));
            }
            let tys: Vec<Ty> = parts[1..].iter().filter_map(|p| Ty::parse(p)).collect();
            let [dty, sty] = tys[..] else { return Err("cvt needs two types".into()) };
            let mut rnd = Rnd::None;
            let mut int = false;
            for p in &parts[1..] {
                let (m, i) = match *p {
                    "rn" => (Rnd::Rn, false),
                    "rz" => (Rnd::Rz, false),
                    "rm" => (Rnd::Rm, false),
                    "rp" => (Rnd::Rp, false),
                    "rni" => (Rnd::Rn, true),
                    "rzi" => (Rnd::Rz, true),
                    "rmi" => (Rnd::Rm, true),
                    "rpi" => (Rnd::Rp, true),
                    _ => continue,
                };
                rnd = m;
                int = i;
            }
            Op::Cvt { dty, sty, rnd, int, sat: has(parts, "sat"), d: r.dst(&ops[0])?, a: r.operand(&ops[1])? }
        }
        "ld" | "ldu" => {
            arity(ops, 2)?;
            let d = match &ops[0] {
                Raw::Vec(items) => items.iter().map(|i| r.dst(i)).collect::<Dec<_>>()?,
                o => vec![r.dst(o)?],
            };
            Op::Ld { space: space_of(parts), ty: last_ty(parts)?, d, addr: r.addr(&ops[1])? }
        }
        "st" => {
            arity(ops, 2)?;
            let a = match &ops[1] {
                Raw::Vec(items) => items.iter().map(|i| r.operand(i)).collect::<Dec<_>>()?,
                o => vec![r.operand(o)?],
            };
            Op::St { space: space_of(parts), ty: last_ty(parts)?, addr: r.addr(&ops[0])?, a }
        }
        "atom" | "red" => {
            let op = atom_op(parts).ok_or("atomic without operation")?;
            let ty = last_ty(parts)?;
            let space = space_of(parts);
            let (d, rest) = if base == "atom" { (Some(r.dst(&ops[0])?), &ops[1..]) } else { (None, ops) };
            let c = if op == AtomOp::Cas {
                Some(r.operand(rest.get(2).ok_or("cas needs 3 sources")?)?)
            } else {
                None
            };
            Op::Atom {
                space,
                op,
                ty,
                d,
                addr: r.addr(&rest[0])?,
                b: r.operand(rest.get(1).ok_or("missing source")?)?,
                c,
            }
        }
        "bra" => match ops {
            [Raw::Name(l, 0)] => Op::Bra { target: Parser::label_id(r.f, r.cx, l) },
            _ => return Err("indirect branch".into()),
        },
        "brx" => match ops {
            [index, Raw::Name(t, 0)] => {
                let targets =
                    r.cx.branch_targets.get(t).cloned().ok_or(format!("unknown target list {t}"))?;
                Op::BrxIdx { index: r.operand(index)?, targets }
            }
            _ => return Err("brx operands".into()),
        },
        "call" => {
            // call (rets), callee, (args)[, prototype]
            let (rets, rest) = match ops.first() {
                Some(Raw::Paren(rets)) => (rets.clone(), &ops[1..]),
                _ => (vec![], ops),
            };
            let callee = match rest.first() {
                Some(Raw::Name(n, 0)) if r.funcs.contains_key(n) => r.funcs[n],
                _ => return Err("indirect call".into()),
            };
            let args = match rest.get(1) {
                Some(Raw::Paren(a)) => a.clone(),
                None => vec![],
                _ => return Err("call arguments".into()),
            };
            if rest.len() > 2 {
                return Err("call with prototype".into());
            }
            Op::Call {
                rets: rets.iter().map(|x| r.param_slot(x)).collect::<Dec<_>>()?,
                func: callee,
                args: args.iter().map(|x| r.param_slot(x)).collect::<Dec<_>>()?,
            }
        }
        "ret" => Op::Ret,
        "exit" => Op::Exit,
        "bar" | "barrier" if !has(parts, "warp") && !has(parts, "arrive") && !has(parts, "red") => {
            if ops.len() > 1 || !matches!(ops.first(), None | Some(Raw::Imm(0))) {
                return Err("named barrier or thread count".into());
            }
            Op::BarSync
        }
        "membar" | "fence" => Op::Fence,
        "shfl" if has(parts, "sync") => {
            arity(ops, 5)?;
            let mode = match parts.get(2) {
                Some(&"up") => ShflMode::Up,
                Some(&"down") => ShflMode::Down,
                Some(&"bfly") => ShflMode::Bfly,
                Some(&"idx") => ShflMode::Idx,
                _ => return Err("shfl mode".into()),
            };
            let (d, p) = match &ops[0] {
                Raw::Pipe(a, b) => (r.reg(a)?, Some(r.reg(b)?)),
                o => (r.dst(o)?, None),
            };
            Op::Shfl {
                mode,
                d,
                p,
                a: r.operand(&ops[1])?,
                b: r.operand(&ops[2])?,
                c: r.operand(&ops[3])?,
                mask: r.operand(&ops[4])?,
            }
        }
        "vote" if has(parts, "sync") => {
            arity(ops, 3)?;
            let mode = match parts.get(2) {
                Some(&"all") => VoteMode::All,
                Some(&"any") => VoteMode::Any,
                Some(&"uni") => VoteMode::Uni,
                Some(&"ballot") => VoteMode::Ballot,
                _ => return Err("vote mode".into()),
            };
            if matches!(ops[1], Raw::NotReg) {
                return Err("negated predicate source".into());
            }
            Op::Vote { mode, d: r.dst(&ops[0])?, a: r.operand(&ops[1])?, mask: r.operand(&ops[2])? }
        }
        "redux" if has(parts, "sync") => {
            arity(ops, 3)?;
            let op = atom_op(parts)
                .filter(|op| {
                    matches!(
                        op,
                        AtomOp::Add | AtomOp::Min | AtomOp::Max | AtomOp::And | AtomOp::Or | AtomOp::Xor
                    )
                })
                .ok_or("redux operation")?;
            Op::Redux {
                op,
                ty: last_ty(parts)?,
                d: r.dst(&ops[0])?,
                a: r.operand(&ops[1])?,
                mask: r.operand(&ops[2])?,
            }
        }
        "bar" if has(parts, "warp") && has(parts, "sync") => {
            arity(ops, 1)?;
            Op::WarpSync { mask: r.operand(&ops[0])? }
        }
        "match" if has(parts, "any") && has(parts, "sync") => {
            arity(ops, 3)?;
            Op::MatchAny {
                ty: last_ty(parts)?,
                d: r.dst(&ops[0])?,
                a: r.operand(&ops[1])?,
                mask: r.operand(&ops[2])?,
            }
        }
        "prmt" if parts.len() == 2 => {
            arity(ops, 4)?;
            Op::Prmt {
                d: r.dst(&ops[0])?,
                a: r.operand(&ops[1])?,
                b: r.operand(&ops[2])?,
                c: r.operand(&ops[3])?,
            }
        }
        "bfe" => {
            arity(ops, 4)?;
            Op::Bfe {
                ty: last_ty(parts)?,
                d: r.dst(&ops[0])?,
                a: r.operand(&ops[1])?,
                b: r.operand(&ops[2])?,
                c: r.operand(&ops[3])?,
            }
        }
        "bfi" => {
            arity(ops, 5)?;
            Op::Bfi {
                ty: last_ty(parts)?,
                d: r.dst(&ops[0])?,
                f: r.operand(&ops[1])?,
                b: r.operand(&ops[2])?,
                c: r.operand(&ops[3])?,
                e: r.operand(&ops[4])?,
            }
        }
        "shf" => {
            arity(ops, 4)?;
            Op::Shf {
                left: has(parts, "l"),
                wrap: has(parts, "wrap"),
                d: r.dst(&ops[0])?,
                a: r.operand(&ops[1])?,
                b: r.operand(&ops[2])?,
                c: r.operand(&ops[3])?,
            }
        }
        "dp4a" => {
            arity(ops, 4)?;
            Op::Dp4a {
                a_signed: parts.get(1) == Some(&"s32"),
                b_signed: parts.get(2) == Some(&"s32"),
                d: r.dst(&ops[0])?,
                a: r.operand(&ops[1])?,
                b: r.operand(&ops[2])?,
                c: r.operand(&ops[3])?,
            }
        }
        "wmma" if has(parts, "m16n16k16") => {
            let regs = |r: &mut Resolver, o: &Raw| -> Dec<Vec<Reg>> {
                match o {
                    Raw::Vec(items) if items.len() == 8 => items.iter().map(|i| r.dst(i)).collect(),
                    _ => Err("expected 8 fragment registers".into()),
                }
            };
            let stride = |r: &mut Resolver, o: Option<&Raw>| o.map(|o| r.operand(o)).transpose();
            let col_major = has(parts, "col");
            match parts.get(1) {
                Some(&"load") => {
                    let frag = match parts.get(2) {
                        Some(&"a") => Frag::A,
                        Some(&"b") => Frag::B,
                        _ => Frag::C,
                    };
                    if (frag == Frag::C) != has(parts, "f32") {
                        return Err("fragment type".into());
                    }
                    Op::WmmaLoad {
                        frag,
                        col_major,
                        space: space_of(parts),
                        d: regs(&mut r, &ops[0])?,
                        addr: r.addr(ops.get(1).ok_or("missing address")?)?,
                        stride: stride(&mut r, ops.get(2))?,
                    }
                }
                Some(&"store") if has(parts, "f32") => Op::WmmaStore {
                    col_major,
                    space: space_of(parts),
                    addr: r.addr(&ops[0])?,
                    a: regs(&mut r, ops.get(1).ok_or("missing fragment")?)?,
                    stride: stride(&mut r, ops.get(2))?,
                },
                Some(&"mma") if parts.ends_with(&["f32", "f32"]) && !has(parts, "satfinite") => {
                    arity(ops, 4)?;
                    Op::WmmaMma {
                        d: regs(&mut r, &ops[0])?,
                        a: regs(&mut r, &ops[1])?,
                        b: regs(&mut r, &ops[2])?,
                        c: regs(&mut r, &ops[3])?,
                    }
                }
                _ => return Err("wmma variant".into()),
            }
        }
        _ => return Err("unknown opcode".into()),
    })
}

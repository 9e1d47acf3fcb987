//! Random, valid and deterministic LLVM IR kernels, built from a tape of
//! decisions (`Choices`).
//!
//! Every kernel has one shape, which ptxsim can launch without a spec:
//!
//! ```llvm
//! define ptx_kernel void @fuzz(ptr %in, ptr %out, ptr %acc, i32 %n)
//! ```
//!
//! Each thread loads its variables from its own 64 bytes of `in`, runs random
//! statements over them and stores every variable into its own 256 bytes of
//! `out`; atomics go to the 128 bytes of `acc`. Variables live in allocas
//! that the O2 pipeline promotes, so assignments inside branches and loops
//! become PHIs (swaps inside loops become PHI swap cycles), the way clang's
//! output does.
//!
//! What makes the run deterministic, so that stock and plugin builds must
//! agree byte for byte: no undefined values (every variable and array is
//! written before it is read), no poison (shift amounts masked, divisors made
//! odd, float-to-int conversions saturating, no nsw/nuw), indices masked into
//! bounds, atomics whose results are not read and whose operations commute,
//! and warp collectives (shuffles, votes, barriers) only where every thread
//! of the block is converged.
//!
//! Instructions are built through llvm-sys's untyped builder calls: inkwell's
//! typed API would need a match over the value's type for every operation of
//! a generator whose whole point is to mix types.

use std::ffi::CString;

use inkwell::context::Context;
use inkwell::module::Module;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMAtomicOrdering, LLVMAtomicRMWBinOp, LLVMIntPredicate, LLVMOpcode, LLVMRealPredicate};

use crate::choices::Choices;

pub const KERNEL: &str = "fuzz";
/// Bytes of `in` and `out` per thread, and of `acc`.
pub const IN_BYTES: usize = 64;
pub const OUT_BYTES: usize = 256;
pub const ACC_BYTES: usize = 128;
/// Elements of the `table` parameter, an `[N x i32]` passed by value.
pub const TABLE_ELEMENTS: u32 = 16;
/// Threads of the one block ptxsim launches: two warps.
pub const THREADS: u32 = 64;
/// The `%n` argument: a uniform loop bound.
pub const N: u32 = 5;

/// The types a variable can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    I1,
    I8,
    I16,
    I32,
    I64,
    I128,
    F16,
    BF16,
    F32,
    F64,
    V2I32,
    V2F16,
    V4F32,
}

/// In order of preference: a 0 decision picks `I32`.
const TYPES: [Ty; 13] = [
    Ty::I32,
    Ty::I64,
    Ty::F32,
    Ty::I1,
    Ty::I16,
    Ty::I8,
    Ty::F64,
    Ty::I128,
    Ty::F16,
    Ty::BF16,
    Ty::V2I32,
    Ty::V2F16,
    Ty::V4F32,
];

impl Ty {
    pub fn bits(self) -> u32 {
        match self {
            Ty::I1 => 1,
            Ty::I8 => 8,
            Ty::I16 | Ty::F16 | Ty::BF16 => 16,
            Ty::I32 | Ty::F32 | Ty::V2F16 => 32,
            Ty::I64 | Ty::F64 | Ty::V2I32 => 64,
            Ty::I128 | Ty::V4F32 => 128,
        }
    }

    fn is_int(self) -> bool {
        matches!(self, Ty::I1 | Ty::I8 | Ty::I16 | Ty::I32 | Ty::I64 | Ty::I128)
    }

    fn is_float(self) -> bool {
        matches!(self, Ty::F16 | Ty::BF16 | Ty::F32 | Ty::F64)
    }

    /// A float or a vector of them.
    fn holds_floats(self) -> bool {
        self.is_float() || matches!(self, Ty::V2F16 | Ty::V4F32)
    }

    /// Bytes in memory (an i1 takes one).
    fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }
}

/// What a statement may assume about the threads executing it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Convergence {
    /// Every thread of the block is here: warp collectives and barriers allowed.
    All,
    /// Control depends on per-thread data.
    Divergent,
}

struct Var {
    ty: Ty,
    slot: LLVMValueRef,
}

/// The device function kernels may call: an `i32` from an `i32`, an `i64`, a
/// `float` and a struct `{ i32, i64, float }`, passed `byval` in a quarter of
/// the kernels and by pointer to the caller's copy in the rest (LLVM 22's own
/// machine verifier rejects the `byval` parameter's MOV64_PARAM, so kernels
/// with it are built unverified; see `check`).
struct Callee {
    func: LLVMValueRef,
    ty: LLVMTypeRef,
    record: LLVMTypeRef,
    byval: bool,
}

pub struct Generator<'a> {
    ctx: LLVMContextRef,
    module: LLVMModuleRef,
    b: LLVMBuilderRef,
    choices: &'a mut Choices,
    func: LLVMValueRef,
    entry: LLVMBasicBlockRef,
    vars: Vec<Var>,
    /// A local array of 8 `i32` (allocated and zeroed on first use).
    array: Option<LLVMValueRef>,
    callee: Option<Callee>,
    /// `fill_local(ptr, i32)`, which writes a caller's local `[4 x i32]`
    /// (made on first use).
    filler: Option<(LLVMValueRef, LLVMTypeRef)>,
    /// Statements left to generate in the whole kernel.
    budget: u32,
    tid: LLVMValueRef,
    /// `in`, `out`, `acc`, `n` and `table`.
    params: [LLVMValueRef; 5],
}

const NO_NAME: *const libc::c_char = c"".as_ptr();

/// What the kernel stores for each thread in `out`: variable k's final value,
/// of type `types[k]`, at byte `k * 16` of the thread's `OUT_BYTES`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outputs {
    pub types: Vec<Ty>,
}

/// Generates one kernel module in `context`, and what it stores.
pub fn generate<'ctx>(context: &'ctx Context, choices: &mut Choices) -> (Module<'ctx>, Outputs) {
    let module = context.create_module("fuzz");
    module.set_triple(&inkwell::targets::TargetTriple::create("nvptx64-nvidia-cuda"));
    let (ctx, m) = (context.raw(), module.as_mut_ptr());
    // SAFETY: every reference below belongs to `context`, which outlives this
    // function, and the builder is disposed before returning.
    unsafe {
        let b = LLVMCreateBuilderInContext(ctx);
        let mut g = Generator {
            ctx,
            module: m,
            b,
            choices,
            func: std::ptr::null_mut(),
            entry: std::ptr::null_mut(),
            vars: Vec::new(),
            array: None,
            callee: None,
            filler: None,
            budget: 0,
            tid: std::ptr::null_mut(),
            params: [std::ptr::null_mut(); 5],
        };
        g.kernel();
        LLVMDisposeBuilder(b);
        let outputs = Outputs { types: g.vars.iter().map(|v| v.ty).collect() };
        (module, outputs)
    }
}

impl Generator<'_> {
    unsafe fn int(&self, bits: u32) -> LLVMTypeRef {
        LLVMIntTypeInContext(self.ctx, bits)
    }

    unsafe fn ptr_ty(&self) -> LLVMTypeRef {
        LLVMPointerTypeInContext(self.ctx, 0)
    }

    unsafe fn llvm_ty(&self, ty: Ty) -> LLVMTypeRef {
        match ty {
            Ty::I1 | Ty::I8 | Ty::I16 | Ty::I32 | Ty::I64 | Ty::I128 => self.int(ty.bits()),
            Ty::F16 => LLVMHalfTypeInContext(self.ctx),
            Ty::BF16 => LLVMBFloatTypeInContext(self.ctx),
            Ty::F32 => LLVMFloatTypeInContext(self.ctx),
            Ty::F64 => LLVMDoubleTypeInContext(self.ctx),
            Ty::V2I32 => LLVMVectorType(self.int(32), 2),
            Ty::V2F16 => LLVMVectorType(LLVMHalfTypeInContext(self.ctx), 2),
            Ty::V4F32 => LLVMVectorType(LLVMFloatTypeInContext(self.ctx), 4),
        }
    }

    unsafe fn i32c(&self, v: i64) -> LLVMValueRef {
        LLVMConstInt(self.int(32), v as u64, 1)
    }

    /// `v` as a constant of `ty` (integers truncated to their width,
    /// vectors splatted).
    unsafe fn const_of(&self, ty: Ty, v: i64) -> LLVMValueRef {
        let t = self.llvm_ty(ty);
        match ty {
            Ty::V2I32 | Ty::V2F16 | Ty::V4F32 => {
                let (lanes, elem) = match ty {
                    Ty::V2I32 => (2, Ty::I32),
                    Ty::V2F16 => (2, Ty::F16),
                    _ => (4, Ty::F32),
                };
                let mut splat: Vec<LLVMValueRef> = (0..lanes).map(|_| self.const_of(elem, v)).collect();
                LLVMConstVector(splat.as_mut_ptr(), lanes)
            }
            _ if ty.is_float() => LLVMConstReal(t, v as f64),
            _ if ty.bits() >= 64 => LLVMConstInt(t, v as u64, 1),
            _ => LLVMConstInt(t, (v as u64) & ((1u64 << ty.bits()) - 1), 0),
        }
    }

    unsafe fn block(&self, name: &str) -> LLVMBasicBlockRef {
        let name = CString::new(name).expect("no NUL");
        LLVMAppendBasicBlockInContext(self.ctx, self.func, name.as_ptr())
    }

    unsafe fn bin(&self, op: LLVMOpcode, a: LLVMValueRef, c: LLVMValueRef) -> LLVMValueRef {
        LLVMBuildBinOp(self.b, op, a, c, NO_NAME)
    }

    unsafe fn cast(&self, op: LLVMOpcode, v: LLVMValueRef, to: LLVMTypeRef) -> LLVMValueRef {
        LLVMBuildCast(self.b, op, v, to, NO_NAME)
    }

    unsafe fn load(&self, ty: LLVMTypeRef, p: LLVMValueRef) -> LLVMValueRef {
        LLVMBuildLoad2(self.b, ty, p, NO_NAME)
    }

    unsafe fn store(&self, v: LLVMValueRef, p: LLVMValueRef) {
        LLVMBuildStore(self.b, v, p);
    }

    /// `base + offset` bytes.
    unsafe fn byte_gep(&self, base: LLVMValueRef, offset: LLVMValueRef) -> LLVMValueRef {
        let mut idx = [offset];
        LLVMBuildGEP2(self.b, self.int(8), base, idx.as_mut_ptr(), 1, NO_NAME)
    }

    unsafe fn call(&self, name: &str, overloads: &[LLVMTypeRef], args: &mut [LLVMValueRef]) -> LLVMValueRef {
        let id = LLVMLookupIntrinsicID(name.as_ptr().cast(), name.len());
        assert!(id != 0, "unknown intrinsic {name}");
        let mut tys = overloads.to_vec();
        let decl = LLVMGetIntrinsicDeclaration(self.module, id, tys.as_mut_ptr(), tys.len());
        let fty = LLVMIntrinsicGetType(self.ctx, id, tys.as_mut_ptr(), tys.len());
        LLVMBuildCall2(self.b, fty, decl, args.as_mut_ptr(), args.len() as u32, NO_NAME)
    }

    unsafe fn pick_type(&mut self) -> Ty {
        // Mostly the common types, the rest now and then.
        if self.choices.chance(3) {
            TYPES[self.choices.below(TYPES.len() as u32) as usize]
        } else {
            TYPES[self.choices.below(3) as usize]
        }
    }

    unsafe fn kernel(&mut self) {
        let ptr = self.ptr_ty();
        let mut params = [ptr, ptr, ptr, self.int(32), ptr];
        let fty = LLVMFunctionType(LLVMVoidTypeInContext(self.ctx), params.as_mut_ptr(), 5, 0);
        let name = CString::new(KERNEL).expect("no NUL");
        self.func = LLVMAddFunction(self.module, name.as_ptr(), fty);
        LLVMSetFunctionCallConv(self.func, llvm_sys::LLVMCallConv::LLVMPTXKernelCallConv as u32);
        // `table`: a by-value [16 x i32], in the parameter space.
        let kind = |name: &str| LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len());
        let table = LLVMArrayType2(self.int(32), u64::from(TABLE_ELEMENTS));
        LLVMAddAttributeAtIndex(self.func, 5, LLVMCreateTypeAttribute(self.ctx, kind("byval"), table));
        LLVMAddAttributeAtIndex(self.func, 5, LLVMCreateEnumAttribute(self.ctx, kind("align"), 4));
        for i in 0..5 {
            self.params[i] = LLVMGetParam(self.func, i as u32);
        }
        self.entry = self.block("entry");
        LLVMPositionBuilderAtEnd(self.b, self.entry);
        self.tid = self.call("llvm.nvvm.read.ptx.sreg.tid.x", &[], &mut []);
        let count = 2 + self.choices.below(9);
        let in_base = self.bin(LLVMOpcode::LLVMMul, self.tid, self.i32c(IN_BYTES as i64));
        for k in 0..count {
            let ty = self.pick_type();
            let slot = LLVMBuildAlloca(self.b, self.llvm_ty(ty), NO_NAME);
            // Four 16-byte fields per thread: every type fits, aligned.
            let offset = self.bin(LLVMOpcode::LLVMAdd, in_base, self.i32c(i64::from(k % 4) * 16));
            let offset = self.cast(LLVMOpcode::LLVMZExt, offset, self.int(64));
            let p = self.byte_gep(self.params[0], offset);
            let loaded = if ty == Ty::I1 {
                let byte = self.load(self.int(8), p);
                self.cast(LLVMOpcode::LLVMTrunc, byte, self.int(1))
            } else {
                let v = self.load(self.llvm_ty(ty), p);
                LLVMSetAlignment(v, ty.bytes().min(16));
                v
            };
            self.store(loaded, slot);
            self.vars.push(Var { ty, slot });
        }
        self.budget = 4 + self.choices.below(40);
        let stmts = 1 + self.choices.below(8);
        self.stmts(stmts, 0, Convergence::All);
        let out_base = self.bin(LLVMOpcode::LLVMMul, self.tid, self.i32c(OUT_BYTES as i64));
        for k in 0..self.vars.len() {
            let ty = self.vars[k].ty;
            let v = self.load(self.llvm_ty(ty), self.vars[k].slot);
            let offset = self.bin(LLVMOpcode::LLVMAdd, out_base, self.i32c(k as i64 * 16));
            let offset = self.cast(LLVMOpcode::LLVMZExt, offset, self.int(64));
            let p = self.byte_gep(self.params[1], offset);
            let v = if ty == Ty::I1 { self.cast(LLVMOpcode::LLVMZExt, v, self.int(8)) } else { v };
            let st = LLVMBuildStore(self.b, v, p);
            LLVMSetAlignment(st, ty.bytes().min(16));
        }
        LLVMBuildRetVoid(self.b);
    }

    unsafe fn stmts(&mut self, count: u32, depth: u32, conv: Convergence) {
        for _ in 0..count {
            if self.budget == 0 {
                return;
            }
            self.budget -= 1;
            self.stmt(depth, conv);
        }
    }

    unsafe fn var_of(&mut self, ty: Ty) -> Option<usize> {
        let same: Vec<usize> = (0..self.vars.len()).filter(|&k| self.vars[k].ty == ty).collect();
        (!same.is_empty()).then(|| same[self.choices.below(same.len() as u32) as usize])
    }

    unsafe fn any_var(&mut self) -> usize {
        self.choices.below(self.vars.len() as u32) as usize
    }

    unsafe fn read(&self, k: usize) -> LLVMValueRef {
        self.load(self.llvm_ty(self.vars[k].ty), self.vars[k].slot)
    }

    unsafe fn assign(&mut self, k: usize, depth: u32) {
        let v = self.expr(self.vars[k].ty, depth);
        self.store(v, self.vars[k].slot);
    }

    unsafe fn stmt(&mut self, depth: u32, conv: Convergence) {
        let nested = depth < 3;
        match self.choices.below(19) {
            1 if nested => self.if_else(depth),
            2 if nested => self.counted_loop(depth, conv),
            3 if nested => self.switch(depth),
            4 => self.swap(),
            5 => self.local_array(depth),
            6 => self.call_device_function(depth),
            7 => self.atomic(depth),
            8 if conv == Convergence::All => self.warp_collective(depth),
            9 | 10 => self.inline_asm(depth),
            11 if nested => self.irreducible(depth),
            12 if conv == Convergence::All => {
                self.call("llvm.nvvm.barrier.cta.sync.aligned.all", &[], &mut [self.i32c(0)]);
            }
            13 if nested => self.array_loops(depth, conv),
            14 => self.call_with_local_array(depth),
            15 => self.local_fill(depth),
            16 => self.table_lookup(depth, conv),
            17 if nested => self.array_nest(depth, conv),
            18 if nested => self.accumulators(depth, conv),
            _ => {
                let k = self.any_var();
                self.assign(k, 2);
            }
        }
    }

    unsafe fn cond(&mut self) -> LLVMValueRef {
        self.expr(Ty::I1, 2)
    }

    unsafe fn if_else(&mut self, depth: u32) {
        let c = self.cond();
        let (then, other, join) = (self.block("then"), self.block("else"), self.block("join"));
        LLVMBuildCondBr(self.b, c, then, other);
        for (bb, n) in [(then, 1 + self.choices.below(3)), (other, self.choices.below(3))] {
            LLVMPositionBuilderAtEnd(self.b, bb);
            self.stmts(n, depth + 1, Convergence::Divergent);
            LLVMBuildBr(self.b, join);
        }
        LLVMPositionBuilderAtEnd(self.b, join);
    }

    /// `for (i = 0; i < bound; i++)`, the bound a constant, the uniform `%n`,
    /// or per-thread data (at most 7).
    unsafe fn counted_loop(&mut self, depth: u32, conv: Convergence) {
        let i32t = self.int(32);
        let counter = self.entry_alloca(i32t);
        self.store(self.i32c(0), counter);
        let (bound, inner) = match self.choices.below(3) {
            0 => {
                let c = 1 + self.choices.below(6);
                (self.i32c(i64::from(c)), conv)
            }
            1 => (self.params[3], conv),
            _ => {
                let v = self.expr(Ty::I32, 1);
                (self.bin(LLVMOpcode::LLVMAnd, v, self.i32c(7)), Convergence::Divergent)
            }
        };
        let (head, body, exit) = (self.block("loop"), self.block("body"), self.block("exit"));
        LLVMBuildBr(self.b, head);
        LLVMPositionBuilderAtEnd(self.b, head);
        let i = self.load(i32t, counter);
        let go = LLVMBuildICmp(self.b, LLVMIntPredicate::LLVMIntSLT, i, bound, NO_NAME);
        LLVMBuildCondBr(self.b, go, body, exit);
        LLVMPositionBuilderAtEnd(self.b, body);
        let n = 1 + self.choices.below(4);
        self.stmts(n, depth + 1, inner);
        let i = self.load(i32t, counter);
        self.store(self.bin(LLVMOpcode::LLVMAdd, i, self.i32c(1)), counter);
        LLVMBuildBr(self.b, head);
        LLVMPositionBuilderAtEnd(self.b, exit);
    }

    unsafe fn switch(&mut self, depth: u32) {
        let v = self.expr(Ty::I32, 1);
        let key = self.bin(LLVMOpcode::LLVMAnd, v, self.i32c(7));
        let (default, join) = (self.block("default"), self.block("join"));
        let cases = 2 + self.choices.below(5);
        let sw = LLVMBuildSwitch(self.b, key, default, cases);
        for c in 0..cases {
            let bb = self.block("case");
            LLVMAddCase(sw, self.i32c(i64::from(c)), bb);
            LLVMPositionBuilderAtEnd(self.b, bb);
            let n = self.choices.below(3);
            self.stmts(n, depth + 1, Convergence::Divergent);
            LLVMBuildBr(self.b, join);
        }
        LLVMPositionBuilderAtEnd(self.b, default);
        let n = self.choices.below(2);
        self.stmts(n, depth + 1, Convergence::Divergent);
        LLVMBuildBr(self.b, join);
        LLVMPositionBuilderAtEnd(self.b, join);
    }

    /// Two blocks that branch to each other, entered at either: a loop with
    /// two headers, bounded by a counter.
    unsafe fn irreducible(&mut self, depth: u32) {
        let i32t = self.int(32);
        let counter = self.entry_alloca(i32t);
        self.store(self.i32c(0), counter);
        let limit = 2 + self.choices.below(4);
        let limit = self.i32c(i64::from(limit));
        let c = self.cond();
        let (a, b, exit) = (self.block("irr.a"), self.block("irr.b"), self.block("irr.exit"));
        LLVMBuildCondBr(self.b, c, a, b);
        for (from, to) in [(a, b), (b, a)] {
            LLVMPositionBuilderAtEnd(self.b, from);
            let n = 1 + self.choices.below(2);
            self.stmts(n, depth + 1, Convergence::Divergent);
            let i = self.bin(LLVMOpcode::LLVMAdd, self.load(i32t, counter), self.i32c(1));
            self.store(i, counter);
            let more = LLVMBuildICmp(self.b, LLVMIntPredicate::LLVMIntSLT, i, limit, NO_NAME);
            LLVMBuildCondBr(self.b, more, to, exit);
        }
        LLVMPositionBuilderAtEnd(self.b, exit);
    }

    unsafe fn entry_alloca(&self, ty: LLVMTypeRef) -> LLVMValueRef {
        let here = LLVMGetInsertBlock(self.b);
        let first = LLVMGetFirstInstruction(self.entry);
        if first.is_null() {
            LLVMPositionBuilderAtEnd(self.b, self.entry);
        } else {
            LLVMPositionBuilderBefore(self.b, first);
        }
        let slot = LLVMBuildAlloca(self.b, ty, NO_NAME);
        LLVMPositionBuilderAtEnd(self.b, here);
        slot
    }

    unsafe fn swap(&mut self) {
        let k = self.any_var();
        let ty = self.vars[k].ty;
        let same: Vec<usize> = (0..self.vars.len()).filter(|&k| self.vars[k].ty == ty).collect();
        if same.len() < 2 {
            return;
        }
        let (x, y) = (same[0], same[1 + self.choices.below(same.len() as u32 - 1) as usize]);
        let (vx, vy) = (self.read(x), self.read(y));
        self.store(vy, self.vars[x].slot);
        self.store(vx, self.vars[y].slot);
    }

    /// Stores into, or loads from, a local `[8 x i32]` at a data-dependent
    /// index, at times in a loop, at times through a select of that
    /// element's address and a constant one's: what
    /// nvregalloc-promote-locals-select makes selects among scalars of.
    unsafe fn local_array(&mut self, depth: u32) {
        let arr_ty = LLVMArrayType2(self.int(32), 8);
        let array = match self.array {
            Some(a) => a,
            None => {
                let a = self.entry_alloca(arr_ty);
                // Zeroed right after the allocas, before any statement reads it.
                let here = LLVMGetInsertBlock(self.b);
                LLVMPositionBuilderBefore(self.b, LLVMGetNextInstruction(a));
                for k in 0..8 {
                    let p = self.byte_gep(a, LLVMConstInt(self.int(64), k * 4, 0));
                    self.store(self.i32c(0), p);
                }
                LLVMPositionBuilderAtEnd(self.b, here);
                self.array = Some(a);
                a
            }
        };
        if self.choices.chance(4) {
            // Per item of a run-time loop, which works on what the last
            // item set: s8n's nearest points per octant.
            let bound = self.bin(LLVMOpcode::LLVMAnd, self.params[3], self.i32c(15));
            self.loop_to(bound, |g, _| g.bucket_insert(array, depth));
        } else if self.choices.chance(2) {
            // In a loop of a run-time trip count (0 to 15), which stays a
            // loop: where promote-locals-select acts.
            let bound = self.bin(LLVMOpcode::LLVMAnd, self.params[3], self.i32c(15));
            self.loop_to(bound, |g, i| g.local_array_access(array, depth, Some(i)));
        } else {
            self.local_array_access(array, depth, None);
        }
    }

    /// `for (k = 0; k < n; k++) if (v < array[base + k]) { array[base + k]
    /// = v; break; }`, `base` 0 or 4 and `n` 1 to 4 by data: an insertion
    /// into a bucket chosen by data, by a loop whose trip count is not a
    /// constant but at most 4, which nvregalloc-promote-locals-loops unrolls
    /// by that bound for the selects.
    unsafe fn bucket_insert(&mut self, array: LLVMValueRef, depth: u32) {
        let base = self.expr(Ty::I32, 1);
        let base = self.bin(LLVMOpcode::LLVMAnd, base, self.i32c(4));
        let n = self.expr(Ty::I32, 1);
        let n = self.bin(LLVMOpcode::LLVMAnd, n, self.i32c(3));
        let n = self.bin(LLVMOpcode::LLVMAdd, n, self.i32c(1));
        let v = self.expr(Ty::I32, depth.min(2));
        self.loop_with_exit(n, |g, k, exit| {
            let p = g.element(array, g.bin(LLVMOpcode::LLVMAdd, base, k));
            let old = g.load(g.int(32), p);
            let less = LLVMBuildICmp(g.b, LLVMIntPredicate::LLVMIntSLT, v, old, NO_NAME);
            let func = LLVMGetBasicBlockParent(LLVMGetInsertBlock(g.b));
            let hit = LLVMAppendBasicBlockInContext(g.ctx, func, c"bhit".as_ptr());
            let next = LLVMAppendBasicBlockInContext(g.ctx, func, c"bnext".as_ptr());
            LLVMBuildCondBr(g.b, less, hit, next);
            LLVMPositionBuilderAtEnd(g.b, hit);
            g.store(v, p);
            LLVMBuildBr(g.b, exit);
            LLVMPositionBuilderAtEnd(g.b, next);
        });
    }

    /// One store into, or load from, `array` at a data-dependent index, or,
    /// in a loop, at times at a wrapped index computed from its counter
    /// alone (a circular buffer's, which promote-locals-loops judges).
    unsafe fn local_array_access(&mut self, array: LLVMValueRef, depth: u32, counter: Option<LLVMValueRef>) {
        let index = match counter {
            Some(i) if self.choices.chance(3) => {
                let shift = i64::from(self.choices.below(8));
                self.bin(LLVMOpcode::LLVMAdd, i, self.i32c(shift))
            }
            _ => self.expr(Ty::I32, 1),
        };
        let index = self.bin(LLVMOpcode::LLVMAnd, index, self.i32c(7));
        let offset = self.bin(LLVMOpcode::LLVMShl, index, self.i32c(2));
        let offset = self.cast(LLVMOpcode::LLVMZExt, offset, self.int(64));
        let mut p = self.byte_gep(array, offset);
        if self.choices.chance(4) {
            let at = u64::from(self.choices.below(8)) * 4;
            let other = self.byte_gep(array, LLVMConstInt(self.int(64), at, 0));
            let c = self.cond();
            p = LLVMBuildSelect(self.b, c, p, other, NO_NAME);
        }
        if self.choices.chance(2) {
            let v = self.expr(Ty::I32, depth.min(2));
            self.store(v, p);
        } else if let Some(k) = self.var_of(Ty::I32) {
            let v = self.load(self.int(32), p);
            self.store(v, self.vars[k].slot);
        }
    }

    /// `for (i = 0; i < trips; i++) body(i)`, `trips` a constant.
    unsafe fn constant_loop(&mut self, trips: u32, body: impl FnMut(&mut Self, LLVMValueRef)) {
        self.loop_to(self.i32c(i64::from(trips)), body);
    }

    /// `for (i = 0; i < bound; i++) body(i)`, `bound` an i32.
    unsafe fn loop_to(&mut self, bound: LLVMValueRef, mut body: impl FnMut(&mut Self, LLVMValueRef)) {
        self.loop_with_exit(bound, |g, i, _| body(g, i));
    }

    /// `loop_to` whose body is also given the loop's exit block, to break to.
    unsafe fn loop_with_exit(
        &mut self,
        bound: LLVMValueRef,
        mut body: impl FnMut(&mut Self, LLVMValueRef, LLVMBasicBlockRef),
    ) {
        let i32t = self.int(32);
        let before = LLVMGetInsertBlock(self.b);
        // In the function being built: the kernel, or fill_local.
        let func = LLVMGetBasicBlockParent(before);
        let block = |name: &std::ffi::CStr| LLVMAppendBasicBlockInContext(self.ctx, func, name.as_ptr());
        let (head, block, exit) = (block(c"cloop"), block(c"cbody"), block(c"cexit"));
        LLVMBuildBr(self.b, head);
        LLVMPositionBuilderAtEnd(self.b, head);
        let i = LLVMBuildPhi(self.b, i32t, NO_NAME);
        let go = LLVMBuildICmp(self.b, LLVMIntPredicate::LLVMIntSLT, i, bound, NO_NAME);
        LLVMBuildCondBr(self.b, go, block, exit);
        LLVMPositionBuilderAtEnd(self.b, block);
        body(self, i, exit);
        let next = self.bin(LLVMOpcode::LLVMAdd, i, self.i32c(1));
        let latch = LLVMGetInsertBlock(self.b);
        LLVMBuildBr(self.b, head);
        let mut values = [self.i32c(0), next];
        let mut blocks = [before, latch];
        LLVMAddIncoming(i, values.as_mut_ptr(), blocks.as_mut_ptr(), 2);
        LLVMPositionBuilderAtEnd(self.b, exit);
    }

    /// `&array[index]` of an `[N x i32]` array.
    unsafe fn element(&self, array: LLVMValueRef, index: LLVMValueRef) -> LLVMValueRef {
        let offset = self.bin(LLVMOpcode::LLVMShl, index, self.i32c(2));
        self.byte_gep(array, self.cast(LLVMOpcode::LLVMZExt, offset, self.int(64)))
    }

    /// A fresh local `[16 x i32]` filled by a loop of a constant trip count
    /// indexing it by the induction variable, then read back by another (or
    /// at a data-dependent index, which keeps it in memory): the rolled loops
    /// over local arrays that nvregalloc-promote-locals unrolls. The loops are
    /// uniform: their statements keep the convergence they are built in.
    unsafe fn array_loops(&mut self, depth: u32, conv: Convergence) {
        let trips = 2 + self.choices.below(15);
        let array = self.entry_alloca(LLVMArrayType2(self.int(32), 16));
        let d = depth.min(2);
        let more = self.choices.below(3);
        self.constant_loop(trips, |g, i| {
            // Other statements too, so that the body can be over LLVM's
            // full-unroll threshold.
            g.stmts(more, depth + 1, conv);
            let v = g.expr(Ty::I32, d);
            let v = g.bin(LLVMOpcode::LLVMXor, v, i);
            g.store(v, g.element(array, i));
        });
        let Some(k) = self.var_of(Ty::I32) else { return };
        if self.choices.chance(3) {
            // Data-dependent: masked into the part written.
            let index = self.expr(Ty::I32, 1);
            let index = LLVMBuildURem(self.b, index, self.i32c(i64::from(trips)), NO_NAME);
            let v = self.load(self.int(32), self.element(array, index));
            self.store(v, self.vars[k].slot);
            return;
        }
        let slot = self.vars[k].slot;
        self.constant_loop(trips, |g, i| {
            let back = g.bin(LLVMOpcode::LLVMSub, g.i32c(i64::from(trips) - 1), i);
            let element = g.load(g.int(32), g.element(array, back));
            let sum = g.bin(LLVMOpcode::LLVMAdd, g.load(g.int(32), slot), element);
            g.store(sum, slot);
        });
    }

    /// A read of the by-value `table` at indexes that vary, as clang makes
    /// one for a kernel that passes its by-value parameter on to a device
    /// function: a local copy of the whole parameter (a memcpy), read by a
    /// loop of a constant trip count at its counter, at times shifted by
    /// data, or once at a data-dependent index; at times the copy is written
    /// first (then it must stay a copy), at times the parameter is read in
    /// place. What nvregalloc-promote-locals-param reads from the parameter.
    /// The loop's body at times holds other statements too, so that LLVM
    /// leaves it rolled and nvregalloc-keep-rolled marks it for ptxas.
    unsafe fn table_lookup(&mut self, depth: u32, conv: Convergence) {
        let Some(k) = self.var_of(Ty::I32) else { return };
        let table = self.params[4];
        let ty = LLVMArrayType2(self.int(32), u64::from(TABLE_ELEMENTS));
        let source = if self.choices.chance(4) {
            table
        } else {
            let copy = self.entry_alloca(ty);
            let bytes = LLVMConstInt(self.int(64), u64::from(TABLE_ELEMENTS) * 4, 0);
            LLVMBuildMemCpy(self.b, copy, 4, table, 4, bytes);
            if self.choices.chance(4) {
                let at = self.expr(Ty::I32, 1);
                let at = self.wrapped(at, TABLE_ELEMENTS);
                let v = self.expr(Ty::I32, depth.min(2));
                self.store(v, self.element(copy, at));
            }
            copy
        };
        let slot = self.vars[k].slot;
        if self.choices.chance(3) {
            let at = self.expr(Ty::I32, 1);
            let at = self.wrapped(at, TABLE_ELEMENTS);
            let v = self.load(self.int(32), self.element(source, at));
            self.store(v, slot);
            return;
        }
        let trips = 2 + self.choices.below(TABLE_ELEMENTS - 1);
        let shift = if self.choices.chance(2) { Some(self.expr(Ty::I32, 1)) } else { None };
        let more = if depth < 2 { self.choices.below(4) } else { 0 };
        self.constant_loop(trips, |g, i| {
            g.stmts(more, depth + 1, conv);
            let at = match shift {
                Some(d) => g.wrapped(g.bin(LLVMOpcode::LLVMAdd, i, d), TABLE_ELEMENTS),
                None => i,
            };
            let element = g.load(g.int(32), g.element(source, at));
            let sum = g.bin(LLVMOpcode::LLVMXor, g.load(g.int(32), slot), element);
            g.store(sum, slot);
        });
    }

    /// Two accumulators in a local `[2 x i32]` (and at times a second one
    /// beside it), zeroed by one 8-byte store as InstCombine makes of
    /// clang's `= {0, 0}`, added to by a loop of two trips at its counter
    /// around other statements, and read whole after it as an `i64`: what
    /// nvregalloc-promote-locals-select makes selects of, the loop left
    /// rolled, splitting the 8-byte accesses into the elements'. The second
    /// local is at times read volatile at the counter: it stays in memory,
    /// and so must the first (a rolled loop's locals all become registers,
    /// or none).
    unsafe fn accumulators(&mut self, depth: u32, conv: Convergence) {
        let Some(k) = self.var_of(Ty::I32) else { return };
        let pair = LLVMArrayType2(self.int(32), 2);
        let locals = [self.entry_alloca(pair), self.entry_alloca(pair)];
        let volatile_second = self.choices.chance(3);
        for local in locals {
            LLVMSetAlignment(local, 8);
            let zero = LLVMBuildStore(self.b, LLVMConstInt(self.int(64), 0, 0), local);
            LLVMSetAlignment(zero, 8);
        }
        let more = self.choices.below(4);
        self.constant_loop(2, |g, i| {
            g.stmts(more, depth + 1, conv);
            for (n, &local) in locals.iter().enumerate() {
                let p = g.element(local, i);
                let v = g.expr(Ty::I32, 1);
                if n == 1 && volatile_second {
                    let store = LLVMBuildStore(g.b, v, p);
                    LLVMSetVolatile(store, 1);
                    continue;
                }
                let sum = g.bin(LLVMOpcode::LLVMAdd, g.load(g.int(32), p), v);
                g.store(sum, p);
            }
        });
        let mut total = self.i32c(0);
        for local in locals {
            let whole = LLVMBuildLoad2(self.b, self.int(64), local, NO_NAME);
            LLVMSetAlignment(whole, 8);
            let high = self.bin(LLVMOpcode::LLVMLShr, whole, LLVMConstInt(self.int(64), 32, 0));
            let mixed = self.bin(LLVMOpcode::LLVMXor, whole, high);
            total =
                self.bin(LLVMOpcode::LLVMAdd, total, self.cast(LLVMOpcode::LLVMTrunc, mixed, self.int(32)));
        }
        self.store(total, self.vars[k].slot);
    }

    /// `v` within `0 .. n`, `n` a power of two.
    unsafe fn wrapped(&self, v: LLVMValueRef, n: u32) -> LLVMValueRef {
        self.bin(LLVMOpcode::LLVMAnd, v, self.i32c(i64::from(n - 1)))
    }

    /// A loop nest over a fresh local `[8 x i32]`, filled by a loop at its
    /// counter: an outer loop of a constant trip count around an inner one
    /// over the array, its offsets stepped by the inner counter alone (the
    /// outer loop then needs no unrolling for it), at times by both, and at
    /// times an access in the outer loop at its own counter or at a
    /// data-dependent index. What nvregalloc-promote-locals-loops plans
    /// per array.
    unsafe fn array_nest(&mut self, depth: u32, conv: Convergence) {
        let Some(k) = self.var_of(Ty::I32) else { return };
        let array = self.entry_alloca(LLVMArrayType2(self.int(32), 8));
        let d = depth.min(2);
        self.constant_loop(8, |g, i| {
            let v = g.expr(Ty::I32, d);
            g.store(v, g.element(array, i));
        });
        let slot = self.vars[k].slot;
        let outer = 2 + self.choices.below(5);
        let both = self.choices.chance(3);
        let writes = self.choices.chance(2);
        let outer_access = self.choices.below(3);
        let more = self.choices.below(2);
        self.constant_loop(outer, |g, o| {
            g.stmts(more, depth + 1, conv);
            g.constant_loop(8, |g, i| {
                let at = if both { g.wrapped(g.bin(LLVMOpcode::LLVMAdd, i, o), 8) } else { i };
                let element = g.load(g.int(32), g.element(array, at));
                let sum = g.bin(LLVMOpcode::LLVMAdd, g.load(g.int(32), slot), element);
                g.store(sum, slot);
                if writes {
                    let v = g.bin(LLVMOpcode::LLVMXor, element, o);
                    g.store(v, g.element(array, i));
                }
            });
            let at = match outer_access {
                0 => return,
                1 => g.wrapped(o, 8),
                _ => {
                    let x = g.expr(Ty::I32, 1);
                    g.wrapped(x, 8)
                }
            };
            let v = g.load(g.int(32), g.element(array, at));
            let sum = g.bin(LLVMOpcode::LLVMSub, g.load(g.int(32), slot), v);
            g.store(sum, slot);
        });
    }

    /// A fresh local `[N x i32]`, N from 4 to 32 (on both sides of the 64
    /// bytes NVPTX sets or copies inline, in accesses of at most 8 bytes),
    /// set by a memset of a constant byte, written at a data-dependent
    /// index, copied whole by a memcpy into another and read back from it at
    /// one: the memsets and memcpys that nvregalloc-promote-locals-expand
    /// makes wide accesses of, at 4- or 16-byte alignment (under 64 bytes,
    /// at 16 only).
    unsafe fn local_fill(&mut self, depth: u32) {
        let n = 4 + self.choices.below(29);
        let ty = LLVMArrayType2(self.int(32), u64::from(n));
        let (from, to) = (self.entry_alloca(ty), self.entry_alloca(ty));
        let align = if self.choices.chance(2) { 16 } else { 4 };
        LLVMSetAlignment(from, align);
        LLVMSetAlignment(to, align);
        let bytes = LLVMConstInt(self.int(64), u64::from(n) * 4, 0);
        let byte = LLVMConstInt(self.int(8), u64::from(self.choices.below(256)), 0);
        LLVMBuildMemSet(self.b, from, byte, bytes, align);
        let index = |g: &mut Self| {
            let i = g.expr(Ty::I32, 1);
            LLVMBuildURem(g.b, i, g.i32c(i64::from(n)), NO_NAME)
        };
        let at = index(self);
        let v = self.expr(Ty::I32, depth.min(2));
        self.store(v, self.element(from, at));
        LLVMBuildMemCpy(self.b, to, align, from, align, bytes);
        let Some(k) = self.var_of(Ty::I32) else { return };
        let at = index(self);
        let v = self.load(self.int(32), self.element(to, at));
        self.store(v, self.vars[k].slot);
    }

    /// `fill_local(ptr %a, i32 %x)`: a loop writing `a[0..4]`. Not
    /// noinline: the call takes a local's address, which
    /// nvregalloc-promote-locals inlines.
    unsafe fn filler(&mut self) -> (LLVMValueRef, LLVMTypeRef) {
        if let Some(f) = self.filler {
            return f;
        }
        let i32t = self.int(32);
        let mut params = [self.ptr_ty(), i32t];
        let ty = LLVMFunctionType(LLVMVoidTypeInContext(self.ctx), params.as_mut_ptr(), 2, 0);
        let func = LLVMAddFunction(self.module, c"fill_local".as_ptr(), ty);
        LLVMSetLinkage(func, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        let here = LLVMGetInsertBlock(self.b);
        LLVMPositionBuilderAtEnd(self.b, LLVMAppendBasicBlockInContext(self.ctx, func, c"entry".as_ptr()));
        let (a, x) = (LLVMGetParam(func, 0), LLVMGetParam(func, 1));
        let ops = [LLVMOpcode::LLVMAdd, LLVMOpcode::LLVMMul, LLVMOpcode::LLVMXor];
        let op = ops[self.choices.below(3) as usize];
        self.constant_loop(4, |g, i| {
            let scaled = g.bin(LLVMOpcode::LLVMMul, x, g.bin(LLVMOpcode::LLVMAdd, i, g.i32c(3)));
            g.store(g.bin(op, scaled, i), g.element(a, i));
        });
        LLVMBuildRetVoid(self.b);
        LLVMPositionBuilderAtEnd(self.b, here);
        self.filler = Some((func, ty));
        (func, ty)
    }

    /// A local `[4 x i32]` whose address goes to `fill_local`, then read at
    /// a constant or data-dependent index.
    unsafe fn call_with_local_array(&mut self, depth: u32) {
        let (func, ty) = self.filler();
        let array = self.entry_alloca(LLVMArrayType2(self.int(32), 4));
        let x = self.expr(Ty::I32, depth.min(2));
        let mut args = [array, x];
        LLVMBuildCall2(self.b, ty, func, args.as_mut_ptr(), 2, NO_NAME);
        let Some(k) = self.var_of(Ty::I32) else { return };
        let index = if self.choices.chance(2) {
            let at = self.choices.below(4);
            self.i32c(i64::from(at))
        } else {
            let v = self.expr(Ty::I32, 1);
            self.bin(LLVMOpcode::LLVMAnd, v, self.i32c(3))
        };
        let v = self.load(self.int(32), self.element(array, index));
        self.store(v, self.vars[k].slot);
    }

    unsafe fn callee(&mut self) -> &Callee {
        if self.callee.is_none() {
            let (i32t, i64t, f32t) = (self.int(32), self.int(64), LLVMFloatTypeInContext(self.ctx));
            let mut fields = [i32t, i64t, f32t];
            let record = LLVMStructTypeInContext(self.ctx, fields.as_mut_ptr(), 3, 0);
            let mut params = [i32t, i64t, f32t, self.ptr_ty()];
            let ty = LLVMFunctionType(i32t, params.as_mut_ptr(), 4, 0);
            let func = LLVMAddFunction(self.module, c"device_fn".as_ptr(), ty);
            LLVMSetLinkage(func, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
            let kind = |name: &str| LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len());
            LLVMAddAttributeAtIndex(func, u32::MAX, LLVMCreateEnumAttribute(self.ctx, kind("noinline"), 0));
            let byval = self.choices.below(4) == 3;
            if byval {
                LLVMAddAttributeAtIndex(func, 4, LLVMCreateTypeAttribute(self.ctx, kind("byval"), record));
                LLVMAddAttributeAtIndex(func, 4, LLVMCreateEnumAttribute(self.ctx, kind("align"), 8));
            }
            let here = LLVMGetInsertBlock(self.b);
            let body = LLVMAppendBasicBlockInContext(self.ctx, func, c"entry".as_ptr());
            LLVMPositionBuilderAtEnd(self.b, body);
            let (a, w, x, s) =
                (LLVMGetParam(func, 0), LLVMGetParam(func, 1), LLVMGetParam(func, 2), LLVMGetParam(func, 3));
            let f0 = self.load(i32t, s);
            let f1 = self.load(i64t, self.byte_gep(s, LLVMConstInt(i64t, 8, 0)));
            let f2 = self.load(f32t, self.byte_gep(s, LLVMConstInt(i64t, 16, 0)));
            let mut acc = self.bin(LLVMOpcode::LLVMXor, a, f0);
            let wide = self.bin(LLVMOpcode::LLVMMul, w, f1);
            let ops = [LLVMOpcode::LLVMAdd, LLVMOpcode::LLVMMul, LLVMOpcode::LLVMSub, LLVMOpcode::LLVMXor];
            let narrow = self.cast(LLVMOpcode::LLVMTrunc, wide, i32t);
            let op = ops[self.choices.below(4) as usize];
            acc = self.bin(op, acc, narrow);
            let sum = self.bin(LLVMOpcode::LLVMFAdd, x, f2);
            let sat = self.call("llvm.fptosi.sat", &[i32t, f32t], &mut [sum]);
            let op = ops[self.choices.below(4) as usize];
            acc = self.bin(op, acc, sat);
            LLVMBuildRet(self.b, acc);
            LLVMPositionBuilderAtEnd(self.b, here);
            self.callee = Some(Callee { func, ty, record, byval });
        }
        self.callee.as_ref().expect("made above")
    }

    unsafe fn call_device_function(&mut self, depth: u32) {
        let (func, ty, record, byval) = {
            let c = self.callee();
            (c.func, c.ty, c.record, c.byval)
        };
        let d = depth.min(2);
        let (a, w, x) = (self.expr(Ty::I32, d), self.expr(Ty::I64, d), self.expr(Ty::F32, d));
        let s = self.entry_alloca(record);
        let (f0, f1, f2) = (self.expr(Ty::I32, 1), self.expr(Ty::I64, 1), self.expr(Ty::F32, 1));
        self.store(f0, s);
        self.store(f1, self.byte_gep(s, LLVMConstInt(self.int(64), 8, 0)));
        self.store(f2, self.byte_gep(s, LLVMConstInt(self.int(64), 16, 0)));
        let mut args = [a, w, x, s];
        let r = LLVMBuildCall2(self.b, ty, func, args.as_mut_ptr(), 4, NO_NAME);
        if byval {
            let kind = LLVMGetEnumAttributeKindForName(c"byval".as_ptr(), 5);
            LLVMAddCallSiteAttribute(r, 4, LLVMCreateTypeAttribute(self.ctx, kind, record));
        }
        if let Some(k) = self.var_of(Ty::I32) {
            self.store(r, self.vars[k].slot);
        }
    }

    /// A commutative atomic on `acc`, its old value unused: the final memory
    /// is the same in any thread order.
    unsafe fn atomic(&mut self, depth: u32) {
        let wide = self.choices.chance(3);
        let (ty, bytes, base) = if wide { (Ty::I64, 8, 64) } else { (Ty::I32, 4, 0) };
        let v = self.expr(ty, depth.min(2));
        let index = self.expr(Ty::I32, 1);
        let index = self.bin(LLVMOpcode::LLVMAnd, index, self.i32c(if wide { 7 } else { 15 }));
        let offset = self.bin(LLVMOpcode::LLVMMul, index, self.i32c(bytes));
        let offset = self.bin(LLVMOpcode::LLVMAdd, offset, self.i32c(base));
        let offset = self.cast(LLVMOpcode::LLVMZExt, offset, self.int(64));
        let p = self.byte_gep(self.params[2], offset);
        let ops = [
            LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpAdd,
            LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpOr,
            LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpUMax,
            LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpMin,
            LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpXor,
        ];
        let op = ops[self.choices.below(ops.len() as u32) as usize];
        LLVMBuildAtomicRMW(self.b, op, p, v, LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic, 0);
    }

    /// A shuffle or a vote across the warp (every thread converged).
    unsafe fn warp_collective(&mut self, depth: u32) {
        let Some(k) = self.var_of(Ty::I32) else { return };
        let full = self.i32c(-1);
        let r = match self.choices.below(3) {
            0 => {
                let v = self.expr(Ty::I32, depth.min(2));
                let lane = self.expr(Ty::I32, 1);
                let lane = self.bin(LLVMOpcode::LLVMAnd, lane, self.i32c(31));
                self.call("llvm.nvvm.shfl.sync.idx.i32", &[], &mut [full, v, lane, self.i32c(31)])
            }
            1 => {
                let v = self.expr(Ty::I32, depth.min(2));
                let mask = 1 << self.choices.below(5);
                let mask = self.i32c(i64::from(mask));
                self.call("llvm.nvvm.shfl.sync.bfly.i32", &[], &mut [full, v, mask, self.i32c(31)])
            }
            _ => {
                let c = self.cond();
                self.call("llvm.nvvm.vote.ballot.sync", &[], &mut [full, c])
            }
        };
        self.store(r, self.vars[k].slot);
    }

    /// PTX inline assembly with the operand kinds real code uses: early
    /// clobbers, an input tied to an output (with and without an early
    /// clobber), two outputs, and 64-bit, float and predicate-scratch
    /// operands.
    ///
    /// The last shape is libdevice's sinf/cosf reduction (with a large
    /// constant factor so that reading `$2` after `$0` is written shows in
    /// the result): it writes `$0` before it reads `$2` again without
    /// declaring `$0` early-clobber. The plugin keeps every asm output apart
    /// from the inputs, which LLVM's rules do not promise: stock's coalescer
    /// joins `$0` and `$2` itself when a copy connects them (the output
    /// carried around a loop into the input's phi), and the program then has
    /// no single right answer to compare. So that shape's inputs come from
    /// [`Self::opaque`], which no copy can reach; where stock keeps them
    /// apart, the plugin must too (54 of 100 programs of seed 4 differ with
    /// the plugin from before that rule).
    unsafe fn inline_asm(&mut self, depth: u32) {
        // (template, constraints, outputs, inputs)
        #[rustfmt::skip]
        const SHAPES: [(&str, &str, &[Ty], &[Ty]); 8] = [
            ("mul.lo.u32 $0, $1, $2;\n\tadd.u32 $0, $0, $1;", "=&r,r,r", &[Ty::I32], &[Ty::I32, Ty::I32]),
            ("add.u32 $0, $0, $2;", "=r,0,r", &[Ty::I32], &[Ty::I32, Ty::I32]),
            ("add.u32 $1, $2, $3;\n\tsub.u32 $0, $2, $1;", "=r,=&r,r,r", &[Ty::I32, Ty::I32], &[Ty::I32, Ty::I32]),
            ("xor.b64 $0, $1, $2;", "=l,l,l", &[Ty::I64], &[Ty::I64, Ty::I64]),
            ("mul.lo.u64 $0, $0, $2;\n\tadd.u64 $0, $0, $2;", "=&l,0,l", &[Ty::I64], &[Ty::I64, Ty::I64]),
            ("add.rn.f32 $0, $1, $2;", "=f,f,f", &[Ty::F32], &[Ty::F32, Ty::F32]),
            ("{\n\t.reg .pred p;\n\tsetp.lt.u32 p, $1, $2;\n\tselp.b32 $0, $1, $2, p;\n\t}", "=r,r,r", &[Ty::I32], &[Ty::I32, Ty::I32]),
            ("mad.lo.cc.u32 $0, $2, $3, 0;\n\tmadc.hi.u32 $1, $2, 2654435769, 0;", "=r,=r,r,r", &[Ty::I32, Ty::I32], &[Ty::I32, Ty::I32]),
        ];
        const UNDECLARED_OUTPUTS: usize = SHAPES.len() - 1;
        let shape = self.choices.below(SHAPES.len() as u32) as usize;
        let (template, constraints, outs, in_types) = SHAPES[shape];
        let mut ins: Vec<LLVMValueRef> = in_types.iter().map(|&t| self.expr(t, depth.min(2))).collect();
        if shape == UNDECLARED_OUTPUTS {
            for v in &mut ins {
                *v = self.opaque(*v);
            }
        }
        let mut out_tys: Vec<LLVMTypeRef> = outs.iter().map(|&t| self.llvm_ty(t)).collect();
        let ret = if out_tys.len() == 1 {
            out_tys[0]
        } else {
            LLVMStructTypeInContext(self.ctx, out_tys.as_mut_ptr(), out_tys.len() as u32, 0)
        };
        let r = self.asm_call(ret, &mut ins, template, constraints, true);
        for (i, &ty) in outs.iter().enumerate() {
            let v = if outs.len() == 1 { r } else { LLVMBuildExtractValue(self.b, r, i as u32, NO_NAME) };
            if let Some(k) = self.var_of(ty) {
                self.store(v, self.vars[k].slot);
            }
        }
    }

    /// `v` (an i32) through an asm `mov`: a register only that asm defines,
    /// so the coalescer, which joins copies, never merges it with another.
    unsafe fn opaque(&mut self, v: LLVMValueRef) -> LLVMValueRef {
        self.asm_call(self.int(32), &mut [v], "mov.b32 $0, $1;", "=r,r", false)
    }

    unsafe fn asm_call(
        &self,
        ret: LLVMTypeRef,
        args: &mut [LLVMValueRef],
        template: &str,
        constraints: &str,
        side_effects: bool,
    ) -> LLVMValueRef {
        let mut arg_tys: Vec<LLVMTypeRef> = args.iter().map(|&a| LLVMTypeOf(a)).collect();
        let fty = LLVMFunctionType(ret, arg_tys.as_mut_ptr(), arg_tys.len() as u32, 0);
        let asm = LLVMGetInlineAsm(
            fty,
            template.as_ptr() as *mut _,
            template.len(),
            constraints.as_ptr() as *mut _,
            constraints.len(),
            side_effects as LLVMBool,
            0,
            llvm_sys::LLVMInlineAsmDialect::LLVMInlineAsmDialectATT,
            0,
        );
        LLVMBuildCall2(self.b, fty, asm, args.as_mut_ptr(), args.len() as u32, NO_NAME)
    }

    /// A value of type `ty`, from an expression tree at most `depth` deep.
    unsafe fn expr(&mut self, ty: Ty, depth: u32) -> LLVMValueRef {
        if depth == 0 || self.choices.chance(3) {
            return self.leaf(ty);
        }
        let d = depth - 1;
        if ty == Ty::I1 {
            return self.predicate(d);
        }
        if ty.is_int() {
            self.int_op(ty, d)
        } else if ty.is_float() {
            self.float_op(ty, d)
        } else {
            self.vector_op(ty, d)
        }
    }

    unsafe fn leaf(&mut self, ty: Ty) -> LLVMValueRef {
        match self.choices.below(4) {
            0 | 1 => match self.var_of(ty) {
                Some(k) => self.read(k),
                None => {
                    let k = self.any_var();
                    let v = self.read(k);
                    self.convert(v, self.vars[k].ty, ty)
                }
            },
            2 => {
                let k = self.any_var();
                let v = self.read(k);
                self.convert(v, self.vars[k].ty, ty)
            }
            _ => {
                let c = [1i64, 0, -1, 7, 255, 65535, -2147483648, 3][self.choices.below(8) as usize];
                self.const_of(ty, c)
            }
        }
    }

    /// Reinterprets or resizes `v` of type `from` as type `to`: through an
    /// integer of `from`'s width, truncated or extended, then as `to`.
    unsafe fn convert(&mut self, v: LLVMValueRef, from: Ty, to: Ty) -> LLVMValueRef {
        if from == to {
            return v;
        }
        if from.is_float() && to.is_float() {
            let (fb, tb) = (from.bits(), to.bits());
            // half <-> bfloat goes through float; otherwise extend or truncate.
            return if fb == tb {
                let wide = self.cast(LLVMOpcode::LLVMFPExt, v, LLVMFloatTypeInContext(self.ctx));
                self.cast(LLVMOpcode::LLVMFPTrunc, wide, self.llvm_ty(to))
            } else if fb < tb {
                self.cast(LLVMOpcode::LLVMFPExt, v, self.llvm_ty(to))
            } else {
                self.cast(LLVMOpcode::LLVMFPTrunc, v, self.llvm_ty(to))
            };
        }
        // i128 <-> floating point needs compiler-rt calls NVPTX does not have.
        let libcall = from == Ty::I128 || to == Ty::I128;
        if from.is_int() && to.is_float() && !libcall && self.choices.chance(2) {
            let op = if self.choices.chance(2) { LLVMOpcode::LLVMSIToFP } else { LLVMOpcode::LLVMUIToFP };
            return self.cast(op, v, self.llvm_ty(to));
        }
        if from.is_float() && to.is_int() && to != Ty::I1 && !libcall && self.choices.chance(2) {
            let name = if self.choices.chance(2) { "llvm.fptosi.sat" } else { "llvm.fptoui.sat" };
            return self.call(name, &[self.llvm_ty(to), self.llvm_ty(from)], &mut [v]);
        }
        let (fb, tb) = (from.bits(), to.bits());
        let as_int = if from.is_int() {
            v
        } else {
            let v = if from.holds_floats() { self.one_nan(v, from) } else { v };
            self.cast(LLVMOpcode::LLVMBitCast, v, self.int(fb))
        };
        let resized = if fb == tb {
            as_int
        } else if fb > tb {
            self.cast(LLVMOpcode::LLVMTrunc, as_int, self.int(tb))
        } else {
            let op = if self.choices.chance(2) { LLVMOpcode::LLVMZExt } else { LLVMOpcode::LLVMSExt };
            self.cast(op, as_int, self.int(tb))
        };
        if to.is_int() {
            resized
        } else {
            self.cast(LLVMOpcode::LLVMBitCast, resized, self.llvm_ty(to))
        }
    }

    /// `v`, of float type `ty`, with each NaN made one NaN. LLVM promises no
    /// NaN's bits (constant folding makes its own, the GPU others), so the
    /// bits of a computed NaN read as an integer would differ between two
    /// correct builds; its bits are kept where they are a float's.
    unsafe fn one_nan(&mut self, v: LLVMValueRef, ty: Ty) -> LLVMValueRef {
        let (lanes, elem) = match ty {
            Ty::V2F16 => (2, Ty::F16),
            Ty::V4F32 => (4, Ty::F32),
            _ => (1, ty),
        };
        let mut nans: Vec<LLVMValueRef> =
            (0..lanes).map(|_| LLVMConstReal(self.llvm_ty(elem), f64::NAN)).collect();
        let nan = if lanes == 1 { nans[0] } else { LLVMConstVector(nans.as_mut_ptr(), lanes) };
        let is_nan = LLVMBuildFCmp(self.b, LLVMRealPredicate::LLVMRealUNO, v, v, NO_NAME);
        LLVMBuildSelect(self.b, is_nan, nan, v, NO_NAME)
    }

    unsafe fn predicate(&mut self, d: u32) -> LLVMValueRef {
        match self.choices.below(3) {
            0 => {
                let ty = [Ty::I32, Ty::I64, Ty::I16, Ty::I128][self.choices.below(4) as usize];
                let (a, c) = (self.expr(ty, d), self.expr(ty, d));
                let preds = [
                    LLVMIntPredicate::LLVMIntSLT,
                    LLVMIntPredicate::LLVMIntEQ,
                    LLVMIntPredicate::LLVMIntNE,
                    LLVMIntPredicate::LLVMIntULT,
                    LLVMIntPredicate::LLVMIntSGE,
                    LLVMIntPredicate::LLVMIntUGT,
                ];
                LLVMBuildICmp(self.b, preds[self.choices.below(6) as usize], a, c, NO_NAME)
            }
            1 => {
                let ty = [Ty::F32, Ty::F64, Ty::F16][self.choices.below(3) as usize];
                let (a, c) = (self.expr(ty, d), self.expr(ty, d));
                let preds = [
                    LLVMRealPredicate::LLVMRealOLT,
                    LLVMRealPredicate::LLVMRealUGE,
                    LLVMRealPredicate::LLVMRealOEQ,
                    LLVMRealPredicate::LLVMRealUNO,
                ];
                LLVMBuildFCmp(self.b, preds[self.choices.below(4) as usize], a, c, NO_NAME)
            }
            _ => {
                let (a, c) = (self.expr(Ty::I1, d), self.expr(Ty::I1, d));
                let ops = [LLVMOpcode::LLVMAnd, LLVMOpcode::LLVMOr, LLVMOpcode::LLVMXor];
                let op = ops[self.choices.below(3) as usize];
                self.bin(op, a, c)
            }
        }
    }

    unsafe fn int_op(&mut self, ty: Ty, d: u32) -> LLVMValueRef {
        let t = self.llvm_ty(ty);
        let (a, c) = (self.expr(ty, d), self.expr(ty, d));
        use LLVMOpcode::*;
        match self.choices.below(11) {
            k @ 0..=5 => self.bin([LLVMAdd, LLVMSub, LLVMMul, LLVMAnd, LLVMOr, LLVMXor][k as usize], a, c),
            6 => {
                let amount = self.bin(LLVMOpcode::LLVMAnd, c, LLVMConstInt(t, u64::from(ty.bits() - 1), 0));
                let ops = [LLVMOpcode::LLVMShl, LLVMOpcode::LLVMLShr, LLVMOpcode::LLVMAShr];
                let op = ops[self.choices.below(3) as usize];
                self.bin(op, a, amount)
            }
            // i128 division is a compiler-rt call NVPTX does not have.
            7 if ty != Ty::I128 => {
                let odd = self.bin(LLVMOpcode::LLVMOr, c, LLVMConstInt(t, 1, 0));
                let op = if self.choices.chance(2) { LLVMOpcode::LLVMUDiv } else { LLVMOpcode::LLVMURem };
                self.bin(op, a, odd)
            }
            8 => {
                let names = ["llvm.smin", "llvm.umax", "llvm.smax", "llvm.umin"];
                let name = names[self.choices.below(4) as usize];
                self.call(name, &[t], &mut [a, c])
            }
            9 => {
                let p = self.predicate(d);
                LLVMBuildSelect(self.b, p, a, c, NO_NAME)
            }
            _ => {
                // A widening multiply, as `mul.wide` comes from.
                if ty.bits() >= 16 && ty.bits() <= 64 {
                    let half = self.int(ty.bits() / 2);
                    let (x, y) = (
                        self.cast(LLVMOpcode::LLVMTrunc, a, half),
                        self.cast(LLVMOpcode::LLVMTrunc, c, half),
                    );
                    let op = if self.choices.chance(2) { LLVMOpcode::LLVMZExt } else { LLVMOpcode::LLVMSExt };
                    let (x, y) = (self.cast(op, x, t), self.cast(op, y, t));
                    self.bin(LLVMOpcode::LLVMMul, x, y)
                } else {
                    self.call("llvm.ctpop", &[t], &mut [a])
                }
            }
        }
    }

    unsafe fn float_op(&mut self, ty: Ty, d: u32) -> LLVMValueRef {
        let t = self.llvm_ty(ty);
        let (a, c) = (self.expr(ty, d), self.expr(ty, d));
        use LLVMOpcode::*;
        match self.choices.below(7) {
            k @ 0..=3 => self.bin([LLVMFAdd, LLVMFMul, LLVMFSub, LLVMFDiv][k as usize], a, c),
            4 => {
                let e = self.expr(ty, d);
                self.call("llvm.fma", &[t], &mut [a, c, e])
            }
            5 => {
                let name = if self.choices.chance(2) { "llvm.minnum" } else { "llvm.maxnum" };
                self.call(name, &[t], &mut [a, c])
            }
            _ => {
                let p = self.predicate(d);
                let n = LLVMBuildFNeg(self.b, a, NO_NAME);
                LLVMBuildSelect(self.b, p, n, c, NO_NAME)
            }
        }
    }

    unsafe fn vector_op(&mut self, ty: Ty, d: u32) -> LLVMValueRef {
        let (a, c) = (self.expr(ty, d), self.expr(ty, d));
        let (lanes, elem) = match ty {
            Ty::V2I32 => (2, Ty::I32),
            Ty::V2F16 => (2, Ty::F16),
            _ => (4, Ty::F32),
        };
        match self.choices.below(3) {
            0 => {
                let op = match (elem, self.choices.chance(2)) {
                    (Ty::I32, true) => LLVMOpcode::LLVMAdd,
                    (Ty::I32, false) => LLVMOpcode::LLVMMul,
                    (_, true) => LLVMOpcode::LLVMFAdd,
                    (_, false) => LLVMOpcode::LLVMFMul,
                };
                self.bin(op, a, c)
            }
            1 => {
                let picks: Vec<u32> = (0..lanes).map(|_| self.choices.below(2 * lanes)).collect();
                let mut mask: Vec<LLVMValueRef> = picks.iter().map(|&p| self.i32c(i64::from(p))).collect();
                let mask = LLVMConstVector(mask.as_mut_ptr(), lanes);
                LLVMBuildShuffleVector(self.b, a, c, mask, NO_NAME)
            }
            _ => {
                let e = self.expr(elem, d);
                let lane = self.choices.below(lanes);
                let lane = self.i32c(i64::from(lane));
                LLVMBuildInsertElement(self.b, a, e, lane, NO_NAME)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel_ir(choices: &mut Choices) -> String {
        let context = Context::create();
        let (module, _) = generate(&context, choices);
        module.verify().unwrap_or_else(|e| panic!("invalid IR: {e}\n{}", module.print_to_string()));
        module.print_to_string().to_string()
    }

    #[test]
    fn random_tapes_make_valid_deterministic_kernels() {
        for seed in 0..300 {
            let mut choices = Choices::random(seed);
            let ir = kernel_ir(&mut choices);
            assert_eq!(kernel_ir(&mut Choices::replay(choices.into_tape())), ir, "seed {seed} replays");
        }
    }

    #[test]
    fn the_empty_tape_is_a_small_kernel() {
        let ir = kernel_ir(&mut Choices::replay(Vec::new()));
        assert!(
            ir.contains("define ptx_kernel void @fuzz(ptr %0, ptr %1, ptr %2, i32 %3, ptr byval([16 x i32]) align 4 %4)"),
            "{ir}"
        );
        assert!(ir.lines().count() < 60, "{ir}");
    }

    #[test]
    fn bytes_from_a_fuzzer_make_valid_kernels() {
        for len in [0usize, 1, 7, 64, 300] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 % 251) as u8).collect();
            kernel_ir(&mut Choices::from_bytes(&bytes));
        }
    }
}

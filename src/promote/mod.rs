//! Local arrays into registers: the decisions of `nvregalloc-promote-locals`.
//!
//! ptxas keeps a local array in registers only when every access to it has
//! a constant offset; LLVM's SROA does the same in the middle end. Two of
//! LLVM's NVPTX choices leave offsets that vary, where nvcc leaves none:
//! - a loop with a small constant trip count that indexes the array by its
//!   induction variable stays rolled when its body is over the full
//!   unroller's threshold;
//! - a call that takes the array's address (or a scalar's, `&out`) stays a
//!   call when the inliner finds the callee too big, so the array must live
//!   in memory for the callee to address it.
//!
//! The shim reports a function's loop nest with every access to the arrays
//! a loop addresses (`nest::Nest`), and the calls taking a local's address
//! (`LocalCall`); it applies the verdicts: a loop marked for full unrolling
//! or kept rolled, a call site marked always-inline. The plans are per
//! array, on what the array becomes once every planned rewrite is applied
//! (`nest`). LLVM's AMDGPU target makes the same two trades for its private
//! memory through its TargetTransformInfo (a higher unroll threshold for
//! loops over allocas, an inlining bonus for calls taking them); NVPTX's has
//! neither. Other rewrites free what clang leaves in local memory where nvcc
//! does not: a by-value kernel parameter's copy read in place
//! (`read_param_in_place`), small locals indexed by data made selects
//! (`selects_local`), memsets and memcpys made wide (`lower_copy`), what
//! stays in memory aligned as nvcc aligns it (`local_alignment`). This module knows no LLVM: facts in, verdicts out.

pub mod nest;

/// The bounds on code growth (`-nvregalloc-promote-*` in the shim, whose
/// defaults `nvregalloc.h` states).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Full unrolling: at most this many iterations.
    pub max_trip_count: u32,
    /// Full unrolling: at most this many IR instructions once unrolled.
    pub max_unrolled_insts: u32,
    /// Full unrolling: arrays larger than this cannot become registers
    /// anyway (255 per thread), so their loops are left to LLVM.
    pub max_array_bytes: u64,
    /// IR instructions that may be inlined into one caller for its locals.
    pub inline_budget: u32,
    /// An array also indexed by data (which SROA cannot make scalars) is
    /// made scalars by selecting among its elements (`selects_local`), and
    /// its loops are unrolled for that, only when it is this small.
    pub max_dynamic_array_bytes: u32,
    /// `selects_local`: at most this many elements read or written in all
    /// (one select each) for one array's accesses at data-dependent offsets.
    pub max_selects: u32,
    /// A memset or memcpy longer than NVPTX lowers inline is
    /// expanded into wide accesses up to this many bytes (ptxas issues an
    /// expanded memcpy's loads ahead of its stores, so a long one costs
    /// registers).
    pub max_expanded_bytes: u32,
    /// A loop with a constant trip count over an array small enough for
    /// selects stays rolled, the accesses it steps made selects, when one
    /// iteration has at least this many instructions per select it would
    /// run (`rolled_with_selects`); 0: such loops are always unrolled.
    pub rolled_insts_per_select: u32,
}

/// The array bytes `promote=small` (`choices::PROMOTE`) bounds every array
/// limit to: 16 floats.
pub const SMALL_ARRAY_BYTES: u32 = 64;

impl Limits {
    /// The limits for a function at `promote=<value>` (`value`: the index
    /// among `choices::PROMOTE.values`; `off` never asks).
    pub fn at_level(self, value: usize) -> Limits {
        match crate::choices::PROMOTE.values.get(value).copied() {
            Some("small") => Limits {
                max_array_bytes: self.max_array_bytes.min(u64::from(SMALL_ARRAY_BYTES)),
                max_dynamic_array_bytes: self.max_dynamic_array_bytes.min(SMALL_ARRAY_BYTES),
                ..self
            },
            _ => self,
        }
    }
}

/// A call that takes a pointer into one of its caller's local allocas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalCall {
    pub callee_insts: u32,
    /// The callee can reach itself or its caller: inlining would not end.
    pub recursive: bool,
    /// LLVM's inliner takes the call by its own cost (as the callee is
    /// before its simplification).
    pub inlined_by_llvm: bool,
    /// The callee reaches a local it is passed at an offset that is not a
    /// constant (a loop over it), or passes it on.
    pub callee_walks: bool,
    /// A local goes as a by-value argument: the caller's copy for it.
    pub by_value: bool,
    /// The smallest of the locals it takes whose address goes nowhere else
    /// that inlining would not follow (`None`: each goes somewhere so, a
    /// store of the address, a call left out of line, and stays in memory
    /// whatever is inlined).
    pub array_bytes: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallVerdict {
    Inline,
    Recursive,
    OverBudget,
    /// Each local it takes stays in memory inlined or not: too big for
    /// registers, or its address goes elsewhere too.
    StaysInMemory,
    InlinedByLlvm,
}

/// The verdicts on one caller's calls, in their order. Within the caller's
/// budget the smallest callees go first: each inlined call can free a local
/// of its own, and many small ones free more locals than one big one. A
/// call is inlined only for a local that can then become registers. One
/// LLVM's inliner takes anyway is marked still where the callee walks the
/// local: inlined before the callee's own simplification, its loops over
/// the local meet the loop plan in the caller, where the local is an array
/// (HeCBench's kalman multiplies 512-byte local matrices in callees; left to
/// the inliner, they come inlined with their loops transformed already, and
/// spill 2,880 bytes against 440). And where the local goes by value: the
/// caller's copy for the argument then goes before the callee is
/// simplified, which on HeCBench saves registers where it acts (bonds 110
/// -> 65, radixSortBlocksKeysK 36 -> 31, updateAccelerationsB 58 -> 55).
/// One that reaches, by pointer, a local at constant offsets only is left
/// to the inliner: inlined earlier, its code is optimized in another order
/// (HeCBench's lrn_bwd_kernel: 72 -> 80 registers, an occupancy step, for a
/// lambda's captures).
pub fn choose_calls(calls: &[LocalCall], limits: &Limits) -> Vec<CallVerdict> {
    let frees_a_local = |c: &LocalCall| c.array_bytes.is_some_and(|b| b <= limits.max_array_bytes);
    let mut verdicts: Vec<CallVerdict> = calls
        .iter()
        .map(|c| {
            if c.recursive {
                CallVerdict::Recursive
            } else if c.inlined_by_llvm && !c.callee_walks && !c.by_value {
                CallVerdict::InlinedByLlvm
            } else if !frees_a_local(c) {
                CallVerdict::StaysInMemory
            } else {
                CallVerdict::OverBudget
            }
        })
        .collect();
    let mut order: Vec<usize> =
        (0..calls.len()).filter(|&i| verdicts[i] == CallVerdict::OverBudget).collect();
    order.sort_by_key(|&i| (calls[i].callee_insts, i));
    let mut spent = 0u64;
    for i in order {
        let cost = u64::from(calls[i].callee_insts);
        if spent + cost > u64::from(limits.inline_budget) {
            break;
        }
        spent += cost;
        verdicts[i] = CallVerdict::Inline;
    }
    verdicts
}

/// A function that calls for locals are inlined into, and what its module
/// does with it (`nvregalloc-promote-locals-calls` has marked its calls).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InlinedFunction {
    /// A kernel: its own body is what runs.
    pub entry: bool,
    /// Its body stays in the module with no caller there (external linkage:
    /// other modules may call it), as written (no other definition can take
    /// its place at link time), and the module only calls it directly.
    pub kept_for_others: bool,
    /// Calls in its body are marked to be inlined for locals.
    pub inlines_for_locals: bool,
    /// Its call sites in the module, and how many of them are marked.
    pub calls: u32,
    pub calls_inlined: u32,
}

/// Whether the calls marked to inline a function get a private copy of it
/// (internal, its own marks with it, gone once inlined), the function
/// itself keeping only what LLVM's inliner would do. LLVM inlines callees
/// before callers: a function inlined into every caller in its module has
/// first had its own calls for locals inlined into it, and with external
/// linkage it then stays, as large as everything it inlined, through the
/// rest of the middle end and the whole backend, for callers in other
/// modules only (separately compiled device code, `-fgpu-rdc`), and for
/// none in a whole-program compile. HeCBench's bonds has a chain of four
/// such functions, 4,500 PTX instructions each, one kernel inlining them
/// all: they took over half of the backend's time, and the file compiled in
/// 2.1x stock's time. The trade: callers in other modules get the function
/// as stock LLVM makes it, its locals left where they were; in this
/// module, nothing changes. Not for a kernel (its body runs), nor for a
/// function called out of line somewhere in the module (that body runs
/// too), nor for one whose marks cost nothing.
pub fn private_inline_copy(f: &InlinedFunction) -> bool {
    !f.entry && f.kept_for_others && f.inlines_for_locals && f.calls > 0 && f.calls_inlined == f.calls
}

/// A local the middle end left in memory (an alloca still there at its
/// end), as its alignment is judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalSlot {
    pub bytes: u64,
    /// Its alignment now, in bytes.
    pub align: u64,
    /// Its address goes to a call (printf's argument buffer, a callee left
    /// out of line): it stays in memory whatever ptxas does.
    pub address_escapes: bool,
    /// Some access's offset varies in a loop (a loop left rolled): ptxas
    /// cannot make it a register either.
    pub varies_in_loop: bool,
}

/// The largest local indexed by data that ptxas was seen to keep in
/// registers by itself (16 ints). Larger ones promote-locals-select may still
/// make registers (`Limits::max_dynamic_array_bytes`), but where it leaves
/// one, ptxas leaves it in memory too: HeCBench's mt's 76-byte state, made
/// no 16-byte accesses, took 13 LDL/STL where aligned it takes 9.
const PTXAS_DYNAMIC_ARRAY_BYTES: u32 = 64;

/// The widest load or store NVPTX makes of local or shared memory, and of
/// global memory before sm_100: 16 bytes (`ld.v4.b32`, `ld.v2.f64`).
const WIDEST_ACCESS: u64 = 16;

/// The alignment for a local: 16 bytes, as nvcc aligns its local arrays,
/// where the backend's load-store vectorizer can then make one 16-byte
/// access (`ld.local.v2.f64`, `st.local.v4.b32`) of neighbouring ones and
/// the local stays in memory; else its own. LLVM aligns an alloca only to
/// its type (8 for a `double` array), and NVPTX then accesses it 8 bytes at
/// a time: twice nvcc's local loads and stores (HeCBench's phmm: 30 against
/// 20; printf's buffer: one store per argument). Only for a local ptxas
/// cannot keep in registers, because ptxas answers a changed local it would
/// have kept in registers anyway with other registers: one whose address
/// goes to a call, or that a rolled loop walks, or larger than ptxas keeps
/// in registers when it is indexed by data (`PTXAS_DYNAMIC_ARRAY_BYTES`, or
/// `Limits::max_dynamic_array_bytes` where that is less). Aligned
/// regardless, libdevice's
/// 28-byte sine reduction table cost HeCBench's mriQ a register and an
/// occupancy step, and a 32-byte array of ssm's vllm kernels (stored at
/// constant offsets, read at a data-dependent one) a step each; neither
/// made an LDL or STL either way. The rule also leaves small arrays ptxas
/// keeps in memory unaligned where `selects_local` left them (read at a
/// data-dependent offset outside any loop): ptxas's choice depends on its
/// register pressure, which the middle end does not know.
pub fn local_alignment(slot: &LocalSlot, limits: &Limits) -> u64 {
    let ptxas_keeps = limits.max_dynamic_array_bytes.min(PTXAS_DYNAMIC_ARRAY_BYTES);
    let stays_in_memory = slot.address_escapes || slot.varies_in_loop || slot.bytes > u64::from(ptxas_keeps);
    if slot.bytes >= WIDEST_ACCESS && stays_in_memory {
        slot.align.max(WIDEST_ACCESS)
    } else {
        slot.align
    }
}

/// A local whose every access has a constant offset once its loops are
/// unrolled, except some at offsets that depend on data or that a rolled
/// loop steps: what is left after unrolling of a small array indexed by a
/// computed value (a bucket picked by comparisons, a table looked up), or
/// filled by a loop whose iterations are long (`rolled_with_selects`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DynamicLocal {
    pub bytes: u64,
    /// The elements all the accesses at offsets that are not constants may
    /// reach, summed over the accesses: what the offsets' known bits and
    /// ranges leave.
    pub selected: u64,
    /// Those accesses.
    pub accesses: u64,
    /// Data decides some access's offset.
    pub indexed_by_data: bool,
    /// Some data-dependent access is in a loop that writes nothing of the
    /// local at a constant offset: the loop works on what was set before it.
    pub reused_in_loop: bool,
    /// A loop whose trip count is not a constant steps an offset: every
    /// iteration would select, however many there are.
    pub walked_by_runtime_loop: bool,
    /// The loops with constant trip counts that step offsets.
    pub walks: Vec<LoopWalk>,
}

/// A loop with a constant trip count that steps offsets into a local: per
/// iteration, the selects of the accesses it steps (its inner loops'
/// iterations counted), and its instructions (`rolled_with_selects`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoopWalk {
    pub selects_per_iteration: u64,
    pub iteration_insts: u32,
}

/// Whether to make a local indexed by data scalars: each data-dependent
/// load becomes a select among the elements it may read, each store a
/// select into each element it may write, and SROA then splits the local.
/// ptxas does the same only while the array is small and has few such
/// accesses (a 16-int array with one data-dependent read and write in a
/// loop stays in local memory; runtime unrolling that loop by four keeps
/// an 8-int one there too), and nvcc's PTX, the same as clang's in these
/// places, fares better at it only by chance. This is nvcc's trade made
/// deliberately: registers for local loads and stores. Only where a loop
/// works on the local's contents, set before the loop, at data-dependent
/// offsets (a table looked up, buckets updated, per point): a scratch array
/// filled and read in one pass costs a few local accesses, less than
/// registers held across it (libdevice's sine and cosine reduce a huge
/// argument through a 28-byte table filled and read at a computed index,
/// on a path seldom taken; as registers in the kernel's loop it took
/// HeCBench's geodesic from 32 registers to 38, a step, for 42 LDL/STL that
/// nvcc makes too). Bounded by the array's size (its elements become live
/// registers) and by the selects.
/// Each loop that steps the offsets must be one `rolled_with_selects` keeps
/// rolled: its selects stand for unrolling it, which would make the array
/// registers too, so they need no loop reusing the contents.
pub fn selects_local(local: &DynamicLocal, limits: &Limits) -> SelectsVerdict {
    let walks_pay = !local.walked_by_runtime_loop
        && local
            .walks
            .iter()
            .all(|w| rolled_with_selects(w.selects_per_iteration, w.iteration_insts, limits));
    if local.indexed_by_data && !local.reused_in_loop {
        SelectsVerdict::NotReused
    } else if !walks_pay {
        SelectsVerdict::WalkingLoop
    } else if local.bytes > u64::from(limits.max_dynamic_array_bytes)
        || local.selected > u64::from(limits.max_selects)
        || local.selected > local.accesses.saturating_mul(MEAN_SELECTS_PER_ACCESS)
    {
        SelectsVerdict::OverLimits
    } else {
        SelectsVerdict::Selects
    }
}

/// The elements a data-dependent access may select among, on average over a
/// local's: each such access costs a select per element where it cost one
/// local load or store. 16, what any access to an array of 16 ints reaches:
/// a 30-int table read at one data-dependent place in a loop took HeCBench's
/// columnarSolver from 36 warps to 24 as registers, for 11 of its 167
/// LDL/STL; s8n's buckets, 11 accesses of 8 elements each but for one of 32,
/// became registers at nvcc's price.
pub const MEAN_SELECTS_PER_ACCESS: u64 = 16;

/// `selects_local`'s verdict: make the local scalars, or why not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelectsVerdict {
    Selects,
    /// Data indexes it, and no loop works on what was set before it.
    NotReused,
    /// A loop that steps an offset has a runtime trip count, or is short
    /// beside its selects.
    WalkingLoop,
    /// Over `Limits::max_dynamic_array_bytes` or `Limits::max_selects`, or
    /// over `MEAN_SELECTS_PER_ACCESS`.
    OverLimits,
}

/// Whether a loop with a constant trip count whose counter steps offsets
/// into a small array stays rolled, those accesses made selects among the
/// elements they may reach, rather than unrolled fully so that the offsets
/// become constants. Unrolling copies the whole iteration once per trip;
/// the selects add their count to each iteration and nothing to the code
/// beyond that. Where an iteration is long beside its selects, the copies
/// buy little: HeCBench's wlcpow fills a 3x3 array, one element per
/// iteration of two 3-iteration loops around a 139-instruction hash;
/// unrolled for the array, the kernel took 1.74x stock's SASS, where stock
/// left the loops rolled and ptxas kept the array in registers by
/// predicated moves, 9 per store, which is what the selects make. Where an
/// iteration is short (a few instructions per element), selects would
/// multiply it, and the loop is unrolled.
pub fn rolled_with_selects(selects_per_iteration: u64, iteration_insts: u32, limits: &Limits) -> bool {
    limits.rolled_insts_per_select != 0
        && selects_per_iteration.saturating_mul(u64::from(limits.rolled_insts_per_select))
            <= u64::from(iteration_insts)
}

/// The longest memset or memcpy NVPTX lowers inline, as loads and stores
/// as wide as its alignment allows up to 8 bytes (it has no vector type for
/// them). LLVM 22's NVPTXLowerAggrCopies turns a longer one into a loop of
/// single-byte accesses (its source says 128 bytes; llc 22.1.8 loops from 65
/// on: `tests/lit/promote-locals-expand.ll` shows both sides of the line).
pub const NVPTX_INLINE_COPY_BYTES: u64 = 64;

/// A memset or memcpy of a constant length, in any state space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemCopy {
    pub bytes: u64,
    /// The alignment its pointers are known to have (a memcpy's: the smaller
    /// of its two), in bytes.
    pub align: u64,
    /// Each pointer points into a local or into shared memory: none may
    /// reach global memory.
    pub on_chip: bool,
}

/// How a memset or memcpy is lowered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyLowering {
    /// As NVPTX does: inline up to 64 bytes, in accesses of up to 8 bytes, a
    /// loop of byte accesses beyond.
    Nvptx,
    /// Straight-line loads and stores of `width` bytes.
    Expanded { width: u64 },
    /// A loop of one `width`-byte access per iteration, which ptxas is told
    /// to leave rolled.
    Loop { width: u64 },
}

/// How to lower a memset or memcpy. Clang zeroes a local array
/// (`double t[17] = {0}`, or a loop the middle end makes a memset of) with
/// one memset; over 64 bytes NVPTX makes it a loop of byte stores, which
/// ptxas unrolls into as many `STL.U8` (HeCBench's romberg: 136 for one
/// 136-byte array, where nvcc makes 17 `STL.64`; kalman: five 512-byte
/// loops). Expanded, it takes one access per 16 bytes where the local is
/// aligned so (`local_alignment` sees to it for locals that stay in
/// memory), and ptxas may keep in registers what the stores reach at
/// constant offsets. Up to `Limits::max_expanded_bytes`, which bounds the
/// code; a longer one becomes a loop of accesses as wide, left rolled: a
/// 32 KB table that NVPTX zeroes byte by byte, and ptxas unrolls into 168
/// `STL.U8` a pass, then takes 2,048 16-byte stores in all, not 32,768.
/// Not under 4-byte alignment, where the accesses would be as narrow as
/// NVPTX's, only more of them.
///
/// Within NVPTX's 64 bytes, a copy at 16-byte alignment between locals and
/// shared memory takes 16-byte accesses, half as many as NVPTX's 8-byte
/// ones: clang copies a `float4` assigned through pointers (`*a = *b`) with
/// a 16-byte memcpy, which nvcc makes one `ld.v4` and one `st.v4`
/// (HeCBench's shmembench swaps `float4`s in shared memory: three `LDS` a
/// swap, not nvcc's two; 1,130 SASS instructions to 805, nvcc's). Not where
/// either end may be global memory: the copy there is no price of local
/// memory, and the wider loads changed registers both ways on HeCBench
/// (match: loading `float4`s from global into shared memory, one kernel
/// gained an occupancy step and two lost one, 64 warps to 48; three
/// global-to-global copies in aligned-types took 2 registers more each).
/// A 16-byte access needs four registers in an aligned group, which
/// ptxas's allocation weighs differently from two pairs, and loop strength
/// reduction sees the loads' addresses where it saw a call.
pub fn lower_copy(copy: &MemCopy, limits: &Limits) -> CopyLowering {
    let width = copy.align.min(WIDEST_ACCESS);
    if copy.bytes <= NVPTX_INLINE_COPY_BYTES {
        if copy.on_chip && width == WIDEST_ACCESS && copy.bytes >= width {
            CopyLowering::Expanded { width }
        } else {
            CopyLowering::Nvptx
        }
    } else if width < 4 || !width.is_power_of_two() {
        CopyLowering::Nvptx
    } else if copy.bytes <= u64::from(limits.max_expanded_bytes) {
        CopyLowering::Expanded { width }
    } else {
        CopyLowering::Loop { width }
    }
}

/// A local whose one write copies its whole size from a kernel's by-value
/// parameter: clang's copy for a by-value call, left in the kernel once
/// the callee is inlined. Nothing in LLVM forwards it (no pass knows a
/// kernel's by-value parameter is read-only), so NVPTX copies the parameter
/// into local memory byte by byte and every read at a varying index is a
/// local load; the loops over it were then unrolled to make those indexes
/// constants, for code nvcc never makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamCopy {
    /// The parameter itself is written, or its address goes where a write
    /// may come from: NVPTX gives it a local copy of its own.
    pub param_written: bool,
    /// Something besides the copy writes the local.
    pub local_written: bool,
    /// The local's address goes to a call, is stored, compared, cast to
    /// another address space or merged with another pointer.
    pub local_escapes: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamVerdict {
    /// Read the parameter where the local was read: `ld.param` at any
    /// offset, as nvcc does (ptxas makes it a constant-bank load).
    ReadInPlace,
    ParamWritten,
    LocalWritten,
    LocalEscapes,
}

/// Whether a local copy of a kernel's by-value parameter can be read from
/// the parameter instead. A kernel's parameters live in the read-only
/// parameter space for the whole launch, so where neither the parameter
/// nor the local is ever written after the copy, every read of the local
/// reads what the parameter holds. The rewrite relies on LLVM 22's
/// NVPTXLowerArgs lowering a by-value kernel parameter that is only loaded
/// from (through GEPs, or copied from by memcpy) to `ld.param` through a
/// parameter-space pointer, on every SM and PTX version; an address that
/// escapes would need `cvta.param` (sm_70 and PTX 7.7 on), and the local is
/// kept for it.
pub fn read_param_in_place(copy: &ParamCopy) -> ParamVerdict {
    if copy.param_written {
        ParamVerdict::ParamWritten
    } else if copy.local_written {
        ParamVerdict::LocalWritten
    } else if copy.local_escapes {
        ParamVerdict::LocalEscapes
    } else {
        ParamVerdict::ReadInPlace
    }
}

/// Small limits the unit tests reach: a budget of 100, 100 selects.
#[cfg(test)]
const TEST_LIMITS: Limits = Limits {
    max_trip_count: 32,
    max_unrolled_insts: 4000,
    max_array_bytes: 1024,
    inline_budget: 100,
    max_dynamic_array_bytes: 64,
    max_selects: 100,
    max_expanded_bytes: 1024,
    rolled_insts_per_select: 8,
};

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = TEST_LIMITS;

    #[test]
    fn promote_small_bounds_every_array_limit_to_64_bytes() {
        let level = |name| crate::choices::PROMOTE.values.iter().position(|&v| v == name).unwrap();
        let small = LIMITS.at_level(level("small"));
        assert_eq!((small.max_array_bytes, small.max_dynamic_array_bytes), (64, 64));
        assert_eq!(small.max_selects, LIMITS.max_selects);
        assert_eq!(LIMITS.at_level(level("on")), LIMITS);
        let tight = Limits { max_dynamic_array_bytes: 32, ..LIMITS };
        assert_eq!(tight.at_level(level("small")).max_dynamic_array_bytes, 32);
    }

    #[test]
    fn a_function_inlined_everywhere_in_its_module_lends_its_marks_to_a_private_copy() {
        let chain_link = InlinedFunction {
            entry: false,
            kept_for_others: true,
            inlines_for_locals: true,
            calls: 2,
            calls_inlined: 2,
        };
        assert!(private_inline_copy(&chain_link));
        // Its body runs: a kernel, or a function some call keeps out of line.
        assert!(!private_inline_copy(&InlinedFunction { entry: true, ..chain_link }));
        assert!(!private_inline_copy(&InlinedFunction { calls_inlined: 1, ..chain_link }));
        // Gone once inlined anyway (internal, or discardable), or no call in
        // the module: its body is for others alone, as it is.
        assert!(!private_inline_copy(&InlinedFunction { kept_for_others: false, ..chain_link }));
        assert!(!private_inline_copy(&InlinedFunction { calls: 0, calls_inlined: 0, ..chain_link }));
        // No marks of its own: a copy would change nothing.
        assert!(!private_inline_copy(&InlinedFunction { inlines_for_locals: false, ..chain_link }));
    }

    #[test]
    fn locals_that_stay_in_memory_are_aligned_for_16_byte_accesses() {
        let slot = |bytes, address_escapes, varies_in_loop| LocalSlot {
            bytes,
            align: 4,
            address_escapes,
            varies_in_loop,
        };
        assert_eq!(local_alignment(&slot(32, true, false), &LIMITS), 16);
        assert_eq!(local_alignment(&slot(48, false, true), &LIMITS), 16);
        assert_eq!(local_alignment(&slot(120, false, false), &LIMITS), 16);
        // Selects may take up to 128 bytes; ptxas by itself, 64.
        let wide = Limits { max_dynamic_array_bytes: 128, ..LIMITS };
        assert_eq!(local_alignment(&slot(76, false, false), &wide), 16);
        assert_eq!(local_alignment(&slot(64, false, false), &wide), 4);
        assert_eq!(local_alignment(&LocalSlot { align: 32, ..slot(128, false, false) }, &LIMITS), 32);
        // Small enough for ptxas to keep in registers, read at data-dependent
        // offsets only, and not escaping: left as it is.
        assert_eq!(local_alignment(&slot(64, false, false), &LIMITS), 4);
        // Nothing to join.
        assert_eq!(local_alignment(&slot(12, true, true), &LIMITS), 4);
    }

    #[test]
    fn locals_indexed_by_data_become_selects_when_small_and_few() {
        let local = |bytes, selected, accesses| {
            selects_local(
                &DynamicLocal {
                    bytes,
                    selected,
                    accesses,
                    indexed_by_data: true,
                    reused_in_loop: true,
                    walked_by_runtime_loop: false,
                    walks: vec![],
                },
                &LIMITS,
            )
        };
        assert_eq!(local(64, 100, 7), SelectsVerdict::Selects);
        assert_eq!(local(65, 1, 1), SelectsVerdict::OverLimits);
        assert_eq!(local(64, 101, 7), SelectsVerdict::OverLimits);
        // A table read at one data-dependent place that may be any of 30
        // elements: 30 selects where there was one local load. Three reads
        // of 50 in all average 16 and 2/3.
        assert_eq!(local(64, 30, 1), SelectsVerdict::OverLimits);
        assert_eq!(local(64, 32, 2), SelectsVerdict::Selects);
        assert_eq!(local(64, 50, 3), SelectsVerdict::OverLimits);
        let once = DynamicLocal {
            bytes: 28,
            selected: 21,
            accesses: 3,
            indexed_by_data: true,
            reused_in_loop: false,
            walked_by_runtime_loop: false,
            walks: vec![],
        };
        assert_eq!(selects_local(&once, &LIMITS), SelectsVerdict::NotReused);
    }

    #[test]
    fn a_loop_stays_rolled_for_selects_only_when_its_iterations_are_long_beside_them() {
        // wlcpow's inner loop: 9 elements selected per 139-instruction
        // iteration; the same array filled by a 10-instruction iteration.
        assert!(rolled_with_selects(9, 139, &LIMITS));
        assert!(!rolled_with_selects(9, 10, &LIMITS));
        assert!(rolled_with_selects(9, 72, &LIMITS));
        assert!(!rolled_with_selects(9, 71, &LIMITS));
        assert!(!rolled_with_selects(1, u32::MAX, &Limits { rolled_insts_per_select: 0, ..LIMITS }));
        // Filled by the rolled loops, read at constant offsets after them:
        // no loop need reuse it (unrolling would have made it registers).
        let filled = DynamicLocal {
            bytes: 36,
            selected: 9,
            accesses: 1,
            indexed_by_data: false,
            reused_in_loop: false,
            walked_by_runtime_loop: false,
            walks: vec![LoopWalk { selects_per_iteration: 9, iteration_insts: 139 }],
        };
        assert_eq!(selects_local(&filled, &LIMITS), SelectsVerdict::Selects);
        // Every loop must be long beside its selects.
        let short = LoopWalk { selects_per_iteration: 9, iteration_insts: 10 };
        let walks = vec![filled.walks[0], short];
        assert_eq!(
            selects_local(&DynamicLocal { walks, ..filled.clone() }, &LIMITS),
            SelectsVerdict::WalkingLoop
        );
        let runtime = DynamicLocal { walked_by_runtime_loop: true, ..filled.clone() };
        assert_eq!(selects_local(&runtime, &LIMITS), SelectsVerdict::WalkingLoop);
        // Also read once at a data-dependent index, after the loop: a
        // scratch array, left in memory as any other.
        let scratch = DynamicLocal { indexed_by_data: true, ..filled.clone() };
        assert_eq!(selects_local(&scratch, &LIMITS), SelectsVerdict::NotReused);
    }

    #[test]
    fn copies_over_the_inline_limit_expand_as_wide_as_aligned() {
        use CopyLowering::*;
        let copy = |bytes, align| lower_copy(&MemCopy { bytes, align, on_chip: true }, &LIMITS);
        assert_eq!(copy(136, 16), Expanded { width: 16 });
        assert_eq!(copy(512, 8), Expanded { width: 8 });
        assert_eq!(copy(180, 4), Expanded { width: 4 });
        assert_eq!(copy(256, 32), Expanded { width: 16 });
        // Within NVPTX's inline 64 bytes, 16-byte accesses where NVPTX's are
        // 8 bytes at most; nothing to gain under 16-byte alignment or 16
        // bytes.
        assert_eq!(copy(64, 16), Expanded { width: 16 });
        assert_eq!(copy(16, 32), Expanded { width: 16 });
        assert_eq!(copy(24, 16), Expanded { width: 16 });
        assert_eq!(copy(64, 8), Nvptx);
        assert_eq!(copy(12, 16), Nvptx);
        // ... and not where an end may be global memory; over 64 bytes, in
        // any state space.
        let global = |bytes, align| lower_copy(&MemCopy { bytes, align, on_chip: false }, &LIMITS);
        assert_eq!(global(16, 16), Nvptx);
        assert_eq!(global(136, 16), Expanded { width: 16 });
        // Byte or halfword accesses: no fewer than the loop makes.
        assert_eq!(copy(136, 2), Nvptx);
        assert_eq!(copy(1024, 16), Expanded { width: 16 });
        // Longer: a loop, as NVPTX's but wide.
        assert_eq!(copy(1025, 16), Loop { width: 16 });
        assert_eq!(copy(32768, 2), Nvptx);
    }

    #[test]
    fn smallest_callees_first_within_the_budget() {
        let call = |n, recursive| LocalCall {
            callee_insts: n,
            recursive,
            inlined_by_llvm: false,
            callee_walks: false,
            by_value: false,
            array_bytes: Some(64),
        };
        let calls = [call(60, false), call(30, false), call(5, true), call(50, false), call(20, false)];
        use CallVerdict::*;
        // 20 + 30 + 50 = 100 fits; 60 would not.
        assert_eq!(choose_calls(&calls, &LIMITS), [OverBudget, Inline, Recursive, Inline, Inline]);
    }

    #[test]
    fn a_callee_over_the_whole_budget_stays_a_call() {
        let calls = [LocalCall {
            callee_insts: 101,
            recursive: false,
            inlined_by_llvm: false,
            callee_walks: false,
            by_value: false,
            array_bytes: Some(64),
        }];
        assert_eq!(choose_calls(&calls, &LIMITS), [CallVerdict::OverBudget]);
    }

    #[test]
    fn calls_the_inliner_takes_anyway_are_marked_only_for_walks_and_copies() {
        let anyway = LocalCall {
            callee_insts: 1000,
            recursive: false,
            inlined_by_llvm: true,
            callee_walks: false,
            by_value: false,
            array_bytes: Some(64),
        };
        // Left to the inliner, and not charged to the budget.
        let fits = LocalCall { inlined_by_llvm: false, callee_insts: 10, ..anyway };
        let walks = LocalCall { callee_walks: true, callee_insts: 40, ..anyway };
        let by_value = LocalCall { by_value: true, callee_insts: 40, ..anyway };
        use CallVerdict::*;
        assert_eq!(
            choose_calls(&[anyway, fits, walks, by_value], &LIMITS),
            [InlinedByLlvm, Inline, Inline, Inline]
        );
    }

    #[test]
    fn no_call_is_inlined_for_locals_that_stay_in_memory() {
        let call = |array_bytes| LocalCall {
            callee_insts: 10,
            recursive: false,
            inlined_by_llvm: false,
            callee_walks: false,
            by_value: false,
            array_bytes,
        };
        let calls = [call(Some(1025)), call(None), call(Some(1024))];
        use CallVerdict::*;
        assert_eq!(choose_calls(&calls, &LIMITS), [StaysInMemory, StaysInMemory, Inline]);
    }

    #[test]
    fn parameter_copies_are_read_in_place_only_when_nothing_writes_either() {
        let copy = ParamCopy { param_written: false, local_written: false, local_escapes: false };
        assert_eq!(read_param_in_place(&copy), ParamVerdict::ReadInPlace);
        assert_eq!(
            read_param_in_place(&ParamCopy { param_written: true, ..copy }),
            ParamVerdict::ParamWritten
        );
        assert_eq!(
            read_param_in_place(&ParamCopy { local_written: true, ..copy }),
            ParamVerdict::LocalWritten
        );
        assert_eq!(
            read_param_in_place(&ParamCopy { local_escapes: true, ..copy }),
            ParamVerdict::LocalEscapes
        );
    }
}

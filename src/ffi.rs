//! The C ABI entry points the shim calls. Nothing here decides anything: it
//! copies the shim's arrays into a `Function`, runs the driver, and hands the
//! verdict back in C layout. A panic anywhere below is caught here and becomes
//! `NVRA_STATUS_PANIC`, so it never unwinds into LLVM.

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{self, AssertUnwindSafe};
use std::slice;
use std::sync::Once;

use rustc_hash::FxHashMap;

use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use crate::abi::*;
use crate::asm;
use crate::choices;
use crate::driver::{self, Verdict};
use crate::forms_judge;
use crate::function::{
    Block, BlockData, Function, InstData, InstFlags, InstKind, Operand, OperandFlags, RegClass, VReg,
};
use crate::keep_rolled;
use crate::options::{CoalesceMode, ColorMode, Fault, Options, Outputs, PressureMode};
use crate::pass::Pass;
use crate::pressure;
use crate::promote::{self, nest};
use crate::report;
use crate::rewrite::{Insert, PassOutcome, Place, SpillOp};

/// A result and everything it points to. `raw` comes first so that the
/// pointer handed to C can be turned back into the whole allocation.
#[repr(C)]
struct OwnedResult {
    raw: NvraResult,
    message: CString,
    rename: Vec<u32>,
    deleted: Vec<u32>,
    remats: Vec<NvraRemat>,
    stats: Vec<NvraStat>,
    kept: Vec<NvraKeptCopy>,
    new_classes: Vec<CString>,
    new_class_names: Vec<*const c_char>,
    new_vreg_classes: Vec<u32>,
    slot_classes: Vec<u32>,
    spill_ops: Vec<NvraSpillOp>,
    substitutions: Vec<NvraUseSubstitution>,
}

impl OwnedResult {
    fn new(status: NvraStatus, message: String, outcome: Option<PassOutcome>) -> Box<Self> {
        let message = CString::new(message.replace('\0', " ")).expect("no NUL left");
        let mut owned = Box::new(Self {
            raw: NvraResult::default(),
            message,
            rename: Vec::new(),
            deleted: Vec::new(),
            remats: Vec::new(),
            stats: Vec::new(),
            kept: Vec::new(),
            new_classes: Vec::new(),
            new_class_names: Vec::new(),
            new_vreg_classes: Vec::new(),
            slot_classes: Vec::new(),
            spill_ops: Vec::new(),
            substitutions: Vec::new(),
        });
        if let Some(outcome) = outcome {
            owned.rename = outcome.rewrite.rename.iter().map(|v| v.0).collect();
            owned.deleted = outcome.rewrite.deleted.iter().map(|i| i.0).collect();
            owned.remats = outcome
                .rewrite
                .remats
                .iter()
                .map(|r| NvraRemat { copy_inst: r.copy.0, source_inst: r.source.0 })
                .collect();
            owned.stats =
                outcome.stats.iter().map(|s| NvraStat { name: s.name.as_ptr(), value: s.value }).collect();
            owned.kept = outcome
                .kept_copies
                .iter()
                .map(|k| NvraKeptCopy { inst: k.inst.0, reserved: 0, reason: k.reason.as_ptr() })
                .collect();
            let rewrite = &outcome.rewrite;
            owned.new_classes = rewrite
                .new_classes
                .iter()
                .map(|n| CString::new(n.as_str()).expect("no NUL in a class name"))
                .collect();
            owned.new_class_names = owned.new_classes.iter().map(|n| n.as_ptr()).collect();
            owned.new_vreg_classes = rewrite.new_vregs.iter().map(|c| c.0).collect();
            owned.slot_classes = rewrite.slots.iter().map(|c| c.0).collect();
            owned.spill_ops = rewrite.inserts.iter().map(spill_op_to_abi).collect();
            owned.substitutions = rewrite
                .substitutions
                .iter()
                .map(|s| NvraUseSubstitution {
                    inst: s.inst.0,
                    operand: s.operand,
                    vreg: s.vreg.0,
                    reserved: 0,
                })
                .collect();
        }
        owned.raw = NvraResult {
            abi_version: NVRA_ABI_VERSION,
            status,
            message: owned.message.as_ptr(),
            rename: owned.rename.as_ptr(),
            num_rename: owned.rename.len() as u32,
            deleted_insts: owned.deleted.as_ptr(),
            num_deleted: owned.deleted.len() as u32,
            remats: owned.remats.as_ptr(),
            num_remats: owned.remats.len() as u32,
            stats: owned.stats.as_ptr(),
            num_stats: owned.stats.len() as u32,
            kept_copies: owned.kept.as_ptr(),
            num_kept_copies: owned.kept.len() as u32,
            new_class_names: owned.new_class_names.as_ptr(),
            num_new_classes: owned.new_class_names.len() as u32,
            new_vreg_classes: owned.new_vreg_classes.as_ptr(),
            num_new_vregs: owned.new_vreg_classes.len() as u32,
            slot_classes: owned.slot_classes.as_ptr(),
            num_slots: owned.slot_classes.len() as u32,
            spill_ops: owned.spill_ops.as_ptr(),
            num_spill_ops: owned.spill_ops.len() as u32,
            substitutions: owned.substitutions.as_ptr(),
            num_substitutions: owned.substitutions.len() as u32,
        };
        owned
    }
}

fn spill_op_to_abi(insert: &Insert) -> NvraSpillOp {
    let (inst, after) = match insert.place {
        Place::Before(i) => (i.0, 0),
        Place::After(i) => (i.0, 1),
    };
    let none = NVRA_NONE;
    let (kind, reg, slot, source_inst, src) = match insert.op {
        SpillOp::Store { slot, src } => (NVRA_SPILL_STORE, src.0, slot, none, none),
        SpillOp::Reload { slot, dst } => (NVRA_SPILL_RELOAD, dst.0, slot, none, none),
        SpillOp::Remat { source, dst } => (NVRA_SPILL_REMAT, dst.0, none, source.0, none),
        SpillOp::Convert { dst, src } => (NVRA_SPILL_CONVERT, dst.0, none, none, src.0),
    };
    NvraSpillOp { kind, inst, after, reg, slot, source_inst, src }
}

/// # Safety
/// `fn_` and `options` must point to valid structures laid out as in
/// nvregalloc.h, whose arrays hold the counts they state.
#[no_mangle]
pub unsafe extern "C" fn nvra_run_pass(
    fn_: *const NvraFunction,
    options: *const NvraOptions,
    pass: u32,
) -> *mut NvraResult {
    init_logging();
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| run(fn_, options, pass)));
    let owned = match outcome {
        Ok(owned) => owned,
        Err(payload) => {
            let what = LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_else(|| panic_text(&payload));
            OwnedResult::new(NVRA_STATUS_PANIC, format!("internal error in the Rust core: {what}"), None)
        }
    };
    Box::into_raw(owned).cast()
}

/// # Safety
/// `result` must come from `nvra_run_pass` and not have been freed.
#[no_mangle]
pub unsafe extern "C" fn nvra_result_free(result: *mut NvraResult) {
    if !result.is_null() {
        drop(Box::from_raw(result.cast::<OwnedResult>()));
    }
}

const _: () = assert!(choices::KEYS.len() <= NVRA_MAX_CHOICE_KEYS as usize);

/// Where `key=value` sits in `NvraFunctionChoices` (see nvregalloc.h).
///
/// # Safety
/// `key` must be a NUL-terminated string, `value` one or null, and the two
/// out pointers writable.
#[no_mangle]
pub unsafe extern "C" fn nvra_choice_index(
    key: *const c_char,
    value: *const c_char,
    key_index: *mut u32,
    value_index: *mut i32,
) -> u32 {
    let key = c_string(key);
    let Some(k) = choices::KEYS.iter().position(|k| k.name == key) else { return 0 };
    let v = if value.is_null() {
        -1
    } else {
        let value = c_string(value);
        match choices::KEYS[k].values.iter().position(|v| *v == value) {
            Some(v) => v as i32,
            None => return 0,
        }
    };
    *key_index = k as u32;
    *value_index = v;
    1
}

/// `choices::unroll_keeps_rolled` for the unroll gate: 1 keeps the loop
/// rolled; 0 leaves it to LLVM's unrollers (also on a panic: LLVM's own
/// behaviour). `trip_count` 0: not a constant.
#[no_mangle]
pub extern "C" fn nvra_unroll_keeps_rolled(value_index: i32, trip_count: u32, insts: u32) -> u32 {
    let Ok(value) = usize::try_from(value_index) else { return 0 };
    let facts = choices::UnrollLoop { trip_count: (trip_count != 0).then_some(trip_count), insts };
    panic::catch_unwind(|| choices::unroll_keeps_rolled(value, &facts)).map_or(0, u32::from)
}

/// The choices the function-options file makes for one IR function: the
/// levers in LLVM's own pipeline read them. Anything that goes wrong
/// answers 1 with nothing set (LLVM's own behaviour).
///
/// # Safety
/// `options` must point to an `NvraOptions` laid out as in nvregalloc.h,
/// `name` and `gpu` to `name_len` and `gpu_len` readable bytes, `out` to a
/// writable `NvraFunctionChoices`.
#[no_mangle]
pub unsafe extern "C" fn nvra_function_choices(
    options: *const NvraOptions,
    name: *const c_char,
    name_len: usize,
    gpu: *const c_char,
    gpu_len: usize,
    out: *mut NvraFunctionChoices,
) -> u32 {
    init_logging();
    let out = &mut *out;
    out.value = [-1; NVRA_MAX_CHOICE_KEYS as usize];
    let made = panic::catch_unwind(AssertUnwindSafe(|| {
        let raw = &*options;
        if raw.abi_version != NVRA_ABI_VERSION || raw.sizeof_options as usize != size_of::<NvraOptions>() {
            return None;
        }
        let name = String::from_utf8_lossy(array(name.cast::<u8>(), name_len as u32));
        let gpu = String::from_utf8_lossy(array(gpu.cast::<u8>(), gpu_len as u32));
        options_from_abi(raw).choices_for(&name, &gpu).ok()
    }));
    let Ok(Some(made)) = made else { return 1 };
    for (slot, value) in out.value.iter_mut().zip(made.raw_values()) {
        *slot = value.map_or(-1, |v| v as i32);
    }
    0
}

/// See nvregalloc.h.
#[no_mangle]
pub extern "C" fn nvra_function_options_syntax() -> *const c_char {
    static SYNTAX: std::sync::OnceLock<CString> = std::sync::OnceLock::new();
    SYNTAX.get_or_init(|| CString::new(choices::syntax()).expect("no NUL in the keys")).as_ptr()
}

/// See nvregalloc.h.
#[no_mangle]
pub extern "C" fn nvra_choice_value_name(key_index: u32, value_index: i32) -> *const c_char {
    static NAMES: std::sync::OnceLock<Vec<Vec<CString>>> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        let name = |v: &&str| CString::new(*v).expect("no NUL in the values");
        choices::KEYS.iter().map(|k| k.values.iter().map(name).collect()).collect()
    });
    let value = usize::try_from(value_index).ok();
    value.and_then(|v| names.get(key_index as usize)?.get(v)).map_or(std::ptr::null(), |n| n.as_ptr())
}

fn limits_to_abi(limits: &promote::Limits) -> NvraPromoteLimits {
    NvraPromoteLimits {
        max_trip_count: limits.max_trip_count,
        max_unrolled_insts: limits.max_unrolled_insts,
        max_array_bytes: limits.max_array_bytes,
        inline_budget: limits.inline_budget,
        max_dynamic_array_bytes: limits.max_dynamic_array_bytes,
        max_selects: limits.max_selects,
        max_expanded_bytes: limits.max_expanded_bytes,
        rolled_insts_per_select: limits.rolled_insts_per_select,
    }
}

/// `promote::Limits::at_level` for the shim: `limits` as a function's
/// `promote` level (`value_index`) bounds them, in place; left as they are
/// on a panic.
///
/// # Safety
/// `limits` must point to a writable `NvraPromoteLimits`.
#[no_mangle]
pub unsafe extern "C" fn nvra_promote_limits_at_level(value_index: i32, limits: *mut NvraPromoteLimits) {
    let Ok(value) = usize::try_from(value_index) else { return };
    let current = limits_from_abi(&*limits);
    if let Ok(at) = panic::catch_unwind(|| current.at_level(value)) {
        *limits = limits_to_abi(&at);
    }
}

fn limits_from_abi(raw: &NvraPromoteLimits) -> promote::Limits {
    promote::Limits {
        max_trip_count: raw.max_trip_count,
        max_unrolled_insts: raw.max_unrolled_insts,
        max_array_bytes: raw.max_array_bytes,
        inline_budget: raw.inline_budget,
        max_dynamic_array_bytes: raw.max_dynamic_array_bytes,
        max_selects: raw.max_selects,
        max_expanded_bytes: raw.max_expanded_bytes,
        rolled_insts_per_select: raw.rolled_insts_per_select,
    }
}

/// What a loop's metadata decides of its unrolling (an `NvraSourceUnroll`).
fn source_from_abi(raw: u32) -> nest::SourceUnroll {
    match raw {
        NVRA_SOURCE_UNSPECIFIED => nest::SourceUnroll::Unspecified,
        NVRA_SOURCE_FULL => nest::SourceUnroll::Full,
        _ => nest::SourceUnroll::Other,
    }
}

/// The loop nest the shim describes, or `None` where an index is out of
/// range or a loop's parent does not come before it.
unsafe fn nest_from_abi(raw: &NvraNest) -> Option<nest::Nest> {
    use nest::{Access, ArrayId, Base, LoopId, NestArray, NestLoop};
    let some = |i: u32, n: u32| (i != NVRA_NONE).then_some(i).map(|i| (i < n).then_some(i));
    let loops = array(raw.loops, raw.n_loops)
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let parent = match some(l.parent, i as u32) {
                None => None,
                Some(p) => Some(LoopId(p?)),
            };
            Some(NestLoop {
                parent,
                trip_count: (l.trip_count != 0).then_some(l.trip_count),
                max_trip_count: (l.trip_count == 0 && l.max_trip_count != 0).then_some(l.max_trip_count),
                iteration_insts: l.iteration_insts,
                source: source_from_abi(l.source),
                llvm_iteration_cost: l.llvm_iteration_cost,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    let arrays = array(raw.arrays, raw.n_arrays)
        .iter()
        .map(|a| NestArray { bytes: a.bytes, escapes: a.escapes != 0 })
        .collect();
    let pool = array(raw.step_loops, raw.n_step_loops);
    let loop_id = |i: u32| match some(i, raw.n_loops) {
        None => Some(None),
        Some(i) => Some(Some(LoopId(i?))),
    };
    let accesses = array(raw.accesses, raw.n_accesses)
        .iter()
        .map(|a| {
            let end = a.first_step.checked_add(a.n_steps)?;
            let steps = pool.get(a.first_step as usize..end as usize)?;
            let base = match a.base {
                NVRA_OFFSET_CONSTANT => Base::Constant,
                NVRA_OFFSET_DATA => Base::Data,
                _ => Base::Rolled,
            };
            (a.array < raw.n_arrays).then_some(())?;
            Some(Access {
                array: ArrayId(a.array),
                innermost: loop_id(a.innermost)?,
                deepest_varying: loop_id(a.deepest_varying)?,
                writes: a.writes != 0,
                steps: steps
                    .iter()
                    .map(|&l| (l < raw.n_loops).then_some(LoopId(l)))
                    .collect::<Option<_>>()?,
                base,
                elements: a.elements,
                copy_elements: a.copy_elements,
                from_iterations: a.from_iterations != 0,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(nest::Nest { loops, arrays, accesses })
}

/// `promote::nest::plan_loop` for the shim: an `NvraLoopPlan`, or
/// `NVRA_LOOP_NOTHING` (LLVM's own behaviour) on a mismatched ABI, facts
/// out of range or a panic.
///
/// # Safety
/// `limits` and `raw_nest` must point to the structs laid out as in
/// nvregalloc.h, each of the nest's arrays to as many elements as it says.
#[no_mangle]
pub unsafe extern "C" fn nvra_plan_local_loop(
    abi_version: u32,
    limits: *const NvraPromoteLimits,
    raw_nest: *const NvraNest,
    l: u32,
) -> NvraLoopPlan {
    use nest::{LoopVerdict, StaysInMemory};
    init_logging();
    let nothing = NvraLoopPlan { verdict: NVRA_LOOP_NOTHING, array: NVRA_NONE, unrolled_insts: 0 };
    if abi_version != NVRA_ABI_VERSION {
        return nothing;
    }
    let plan = panic::catch_unwind(AssertUnwindSafe(|| {
        let facts = nest_from_abi(&*raw_nest)?;
        if l as usize >= facts.loops.len() {
            return None;
        }
        let plan =
            |verdict, array: nest::ArrayId| NvraLoopPlan { verdict, array: array.0, unrolled_insts: 0 };
        let current = nest::LoopId(l);
        Some(match nest::plan_loop(&facts, current, &limits_from_abi(&*limits)) {
            LoopVerdict::FullUnroll { array, unrolled_insts, late } => NvraLoopPlan {
                unrolled_insts,
                ..plan(if late { NVRA_LOOP_FULL_UNROLL_LATE } else { NVRA_LOOP_FULL_UNROLL }, array)
            },
            LoopVerdict::KeepRolled { array } => plan(NVRA_LOOP_KEEP_ROLLED, array),
            LoopVerdict::BecomesRegisters { array } => plan(NVRA_LOOP_BECOMES_REGISTERS, array),
            LoopVerdict::NotNeeded { array } => plan(NVRA_LOOP_NOT_NEEDED, array),
            LoopVerdict::RolledForSelects { array } => plan(NVRA_LOOP_ROLLED_FOR_SELECTS, array),
            LoopVerdict::Memory { array, why } => plan(
                match why {
                    StaysInMemory::TooManyTrips(at) if at == current => NVRA_LOOP_TOO_MANY_TRIPS,
                    StaysInMemory::UnrolledTooBig(at) if at == current => NVRA_LOOP_UNROLLED_TOO_BIG,
                    StaysInMemory::TooBig => NVRA_LOOP_ARRAY_TOO_BIG,
                    StaysInMemory::IndexedByData => NVRA_LOOP_INDEXED_BY_DATA,
                    _ => NVRA_LOOP_STAYS_IN_MEMORY,
                },
                array,
            ),
            LoopVerdict::Nothing => nothing,
        })
    }));
    plan.ok().flatten().unwrap_or(nothing)
}

/// `promote::choose_calls` for the shim: one `NvraCallVerdict` per call in
/// `verdicts`, all `NVRA_CALL_OVER_BUDGET` (LLVM's own behaviour) on a
/// mismatched ABI or a panic.
///
/// # Safety
/// `limits` must point to an `NvraPromoteLimits`, `calls` to `n` calls and
/// `verdicts` to `n` writable verdicts.
#[no_mangle]
pub unsafe extern "C" fn nvra_choose_local_calls(
    abi_version: u32,
    limits: *const NvraPromoteLimits,
    calls: *const NvraLocalCall,
    n: u32,
    verdicts: *mut u32,
) {
    init_logging();
    let out = slice::from_raw_parts_mut(verdicts, n as usize);
    out.fill(NVRA_CALL_OVER_BUDGET);
    if abi_version != NVRA_ABI_VERSION {
        return;
    }
    let chosen = panic::catch_unwind(AssertUnwindSafe(|| {
        let facts: Vec<promote::LocalCall> = array(calls, n)
            .iter()
            .map(|c| promote::LocalCall {
                callee_insts: c.callee_insts,
                recursive: c.recursive != 0,
                inlined_by_llvm: c.inlined_by_llvm != 0,
                callee_walks: c.callee_walks != 0,
                by_value: c.by_value != 0,
                array_bytes: (c.array_bytes != u64::MAX).then_some(c.array_bytes),
            })
            .collect();
        promote::choose_calls(&facts, &limits_from_abi(&*limits))
    }));
    if let Ok(chosen) = chosen {
        for (slot, verdict) in out.iter_mut().zip(chosen) {
            *slot = match verdict {
                promote::CallVerdict::Inline => NVRA_CALL_INLINE,
                promote::CallVerdict::Recursive => NVRA_CALL_RECURSIVE,
                promote::CallVerdict::OverBudget => NVRA_CALL_OVER_BUDGET,
                promote::CallVerdict::StaysInMemory => NVRA_CALL_STAYS_IN_MEMORY,
                promote::CallVerdict::InlinedByLlvm => NVRA_CALL_INLINED_BY_LLVM,
            };
        }
    }
}

/// `promote::private_inline_copy` for the shim: no copy (marks stay where
/// they are) on a mismatched ABI or a panic.
///
/// # Safety
/// `function` must point to an `NvraInlinedFunction`.
#[no_mangle]
pub unsafe extern "C" fn nvra_private_inline_copy(
    abi_version: u32,
    function: *const NvraInlinedFunction,
) -> u32 {
    init_logging();
    if abi_version != NVRA_ABI_VERSION {
        return 0;
    }
    let raw = &*function;
    let facts = promote::InlinedFunction {
        entry: raw.entry != 0,
        kept_for_others: raw.kept_for_others != 0,
        inlines_for_locals: raw.inlines_for_locals != 0,
        calls: raw.calls,
        calls_inlined: raw.calls_inlined,
    };
    panic::catch_unwind(|| promote::private_inline_copy(&facts)).map_or(0, u32::from)
}

/// `promote::local_alignment` for the shim: the slot's own alignment (LLVM's
/// behaviour) on a mismatched ABI or a panic.
///
/// # Safety
/// `limits` and `slot` must point to the structs laid out as in nvregalloc.h.
#[no_mangle]
pub unsafe extern "C" fn nvra_local_alignment(
    abi_version: u32,
    limits: *const NvraPromoteLimits,
    slot: *const NvraLocalSlot,
) -> u64 {
    init_logging();
    let raw = &*slot;
    if abi_version != NVRA_ABI_VERSION {
        return raw.align;
    }
    let facts = promote::LocalSlot {
        bytes: raw.bytes,
        align: raw.align,
        address_escapes: raw.address_escapes != 0,
        varies_in_loop: raw.varies_in_loop != 0,
    };
    panic::catch_unwind(AssertUnwindSafe(|| promote::local_alignment(&facts, &limits_from_abi(&*limits))))
        .unwrap_or(raw.align)
}

/// `promote::selects_local` for the shim: an `NvraSelectsVerdict`;
/// `NVRA_SELECTS_LEAVE` (leave it in memory, LLVM's behaviour) on a
/// mismatched ABI or a panic.
///
/// # Safety
/// `limits` and `local` must point to the structs laid out as in nvregalloc.h,
/// `local`'s walks to as many as it says.
#[no_mangle]
pub unsafe extern "C" fn nvra_selects_local(
    abi_version: u32,
    limits: *const NvraPromoteLimits,
    local: *const NvraDynamicLocal,
) -> u32 {
    init_logging();
    if abi_version != NVRA_ABI_VERSION {
        return NVRA_SELECTS_LEAVE;
    }
    let raw = &*local;
    let walks = array(raw.walks, raw.n_walks)
        .iter()
        .map(|w| promote::LoopWalk {
            selects_per_iteration: w.selects_per_iteration,
            iteration_insts: w.iteration_insts,
        })
        .collect();
    let facts = promote::DynamicLocal {
        bytes: raw.bytes,
        selected: raw.selected,
        accesses: raw.accesses,
        indexed_by_data: raw.indexed_by_data != 0,
        reused_in_loop: raw.reused_in_loop != 0,
        walked_by_runtime_loop: raw.walked_by_runtime_loop != 0,
        walks,
    };
    use promote::SelectsVerdict;
    panic::catch_unwind(AssertUnwindSafe(|| promote::selects_local(&facts, &limits_from_abi(&*limits))))
        .map_or(NVRA_SELECTS_LEAVE, |verdict| match verdict {
            SelectsVerdict::Selects => NVRA_SELECTS_MAKE,
            SelectsVerdict::NotReused => NVRA_SELECTS_NOT_REUSED,
            SelectsVerdict::WalkingLoop => NVRA_SELECTS_WALKING_LOOP,
            SelectsVerdict::OverLimits => NVRA_SELECTS_OVER_LIMITS,
        })
}

/// `promote::lower_copy` for the shim: width 0 (leave the copy to
/// NVPTX, LLVM's behaviour) also on a mismatched ABI or a panic.
///
/// # Safety
/// `limits` and `copy` must point to the structs laid out as in nvregalloc.h.
#[no_mangle]
pub unsafe extern "C" fn nvra_lower_copy(
    abi_version: u32,
    limits: *const NvraPromoteLimits,
    copy: *const NvraMemCopy,
) -> NvraCopyLowering {
    init_logging();
    let nvptx = NvraCopyLowering { width: 0, loop_: 0, reserved: 0 };
    if abi_version != NVRA_ABI_VERSION {
        return nvptx;
    }
    let facts =
        promote::MemCopy { bytes: (*copy).bytes, align: (*copy).align, on_chip: (*copy).on_chip != 0 };
    let lowering =
        panic::catch_unwind(AssertUnwindSafe(|| promote::lower_copy(&facts, &limits_from_abi(&*limits))));
    match lowering {
        Ok(promote::CopyLowering::Expanded { width }) => NvraCopyLowering { width, ..nvptx },
        Ok(promote::CopyLowering::Loop { width }) => NvraCopyLowering { width, loop_: 1, ..nvptx },
        Ok(promote::CopyLowering::Nvptx) | Err(_) => nvptx,
    }
}

/// `promote::read_param_in_place` for the shim: an `NvraParamVerdict`, or
/// `NVRA_PARAM_LOCAL_ESCAPES` (the local kept, LLVM's behaviour) on a
/// mismatched ABI or a panic.
///
/// # Safety
/// `copy` must point to an `NvraParamCopy`.
#[no_mangle]
pub unsafe extern "C" fn nvra_read_param_in_place(abi_version: u32, copy: *const NvraParamCopy) -> u32 {
    init_logging();
    if abi_version != NVRA_ABI_VERSION {
        return NVRA_PARAM_LOCAL_ESCAPES;
    }
    let raw = &*copy;
    let facts = promote::ParamCopy {
        param_written: raw.param_written != 0,
        local_written: raw.local_written != 0,
        local_escapes: raw.local_escapes != 0,
    };
    let verdict = panic::catch_unwind(AssertUnwindSafe(|| promote::read_param_in_place(&facts)));
    match verdict {
        Ok(promote::ParamVerdict::ReadInPlace) => NVRA_PARAM_READ_IN_PLACE,
        Ok(promote::ParamVerdict::ParamWritten) => NVRA_PARAM_WRITTEN,
        Ok(promote::ParamVerdict::LocalWritten) => NVRA_PARAM_LOCAL_WRITTEN,
        Ok(promote::ParamVerdict::LocalEscapes) | Err(_) => NVRA_PARAM_LOCAL_ESCAPES,
    }
}

/// `keep_rolled::keep_rolled` for the shim; `NVRA_ROLLED_SOURCE_DECIDES`
/// (the loop left as it is, LLVM's behaviour) on a mismatched ABI or a
/// panic.
///
/// # Safety
/// `raw` must point to an `NvraRolledLoop`.
#[no_mangle]
pub unsafe extern "C" fn nvra_keep_rolled(abi_version: u32, raw: *const NvraRolledLoop) -> NvraRolledPlan {
    use keep_rolled::RolledVerdict;
    init_logging();
    let plan = |verdict| NvraRolledPlan { verdict, reserved: 0, unrolled_insts: 0 };
    if abi_version != NVRA_ABI_VERSION {
        return plan(NVRA_ROLLED_SOURCE_DECIDES);
    }
    let raw = &*raw;
    let facts = keep_rolled::RolledLoop {
        trip_count: (raw.trip_count != 0).then_some(raw.trip_count),
        iteration_insts: raw.iteration_insts,
        source: source_from_abi(raw.source),
        walks_local: raw.walks_local != 0,
    };
    match panic::catch_unwind(|| keep_rolled::keep_rolled(&facts)) {
        Ok(RolledVerdict::KeepRolled { unrolled_insts }) => {
            NvraRolledPlan { unrolled_insts, ..plan(NVRA_ROLLED_KEEP) }
        }
        Ok(RolledVerdict::RuntimeTrips) => plan(NVRA_ROLLED_RUNTIME_TRIPS),
        Ok(RolledVerdict::Small) => plan(NVRA_ROLLED_SMALL),
        Ok(RolledVerdict::WalksLocal) => plan(NVRA_ROLLED_WALKS_LOCAL),
        Ok(RolledVerdict::SourceDecides) | Err(_) => plan(NVRA_ROLLED_SOURCE_DECIDES),
    }
}

/// `forms_judge::judge` for the shim; the rich form (LLVM's) stays on a
/// panic, a mismatched ABI or ranges out of bounds.
///
/// # Safety
/// `gpu` must be null or a C string; `lean` and `rich` must point to
/// `NvraIrFunction`s whose arrays hold the counts they state.
#[no_mangle]
pub unsafe extern "C" fn nvra_judge_forms(
    abi_version: u32,
    gpu: *const c_char,
    slack: u32,
    min_growth: u32,
    lean: *const NvraIrFunction,
    rich: *const NvraIrFunction,
) -> NvraFormsPlan {
    init_logging();
    let unmeasured =
        NvraFormsPlan { verdict: NVRA_FORMS_UNMEASURED, peak_lean: 0, peak_rich: 0, reserved: 0 };
    if abi_version != NVRA_ABI_VERSION {
        return unmeasured;
    }
    let (Some(lean), Some(rich)) = (ir_function_from_abi(&*lean), ir_function_from_abi(&*rich)) else {
        return unmeasured;
    };
    let gpu = crate::occupancy::gpu_or_sm90(&c_string(gpu));
    match panic::catch_unwind(|| forms_judge::judge(&lean, &rich, gpu, slack, min_growth)) {
        Ok(Some((form, peak_lean, peak_rich))) => NvraFormsPlan {
            verdict: match form {
                forms_judge::Form::Lean => NVRA_FORMS_LEAN,
                forms_judge::Form::Rich => NVRA_FORMS_RICH,
            },
            peak_lean,
            peak_rich,
            reserved: 0,
        },
        Ok(None) | Err(_) => unmeasured,
    }
}

/// The judge's IR function, or `None` where a range runs past its array.
unsafe fn ir_function_from_abi(raw: &NvraIrFunction) -> Option<forms_judge::IrFunction> {
    let values = array(raw.values, raw.num_values);
    let blocks = array(raw.blocks, raw.num_blocks);
    let insts = array(raw.insts, raw.num_insts);
    let uses = array(raw.uses, raw.num_uses);
    let succs = array(raw.succs, raw.num_succs);
    let range = |first: u32, n: u32| (first as usize).checked_add(n as usize).map(|end| first as usize..end);
    let values = values
        .iter()
        .map(|v| forms_judge::IrValue {
            bits: v.bits,
            predicate: v.predicate != 0,
            argument: v.argument != 0,
        })
        .collect();
    let mut out = Vec::with_capacity(blocks.len());
    for b in blocks {
        let mut block_insts = Vec::with_capacity(b.num_insts as usize);
        for i in insts.get(range(b.first_inst, b.num_insts)?)? {
            block_insts.push(forms_judge::IrInst {
                def: (i.def != NVRA_IR_NO_VALUE).then_some(i.def),
                uses: uses.get(range(i.first_use, i.num_uses)?)?.to_vec(),
            });
        }
        out.push(forms_judge::IrBlock {
            insts: block_insts,
            succs: succs.get(range(b.first_succ, b.num_succs)?)?.to_vec(),
            exit_uses: uses.get(range(b.first_exit_use, b.num_exit_uses)?)?.to_vec(),
        });
    }
    Some(forms_judge::IrFunction { is_kernel: raw.is_kernel != 0, values, blocks: out })
}

unsafe fn run(fn_: *const NvraFunction, options: *const NvraOptions, pass: u32) -> Box<OwnedResult> {
    let (raw, raw_options) = (&*fn_, &*options);
    if let Err(why) = check_abi(raw, raw_options) {
        return OwnedResult::new(NVRA_STATUS_ABI_MISMATCH, why, None);
    }
    let f = function_from_abi(raw);
    let options = match options_from_abi(raw_options).for_function(&f.name) {
        Ok(options) => options,
        Err(why) => return OwnedResult::new(NVRA_STATUS_UNSUPPORTED, why, None),
    };
    if pass == NVRA_PASS_COALESCE_ADMISSION {
        return match driver::coalesce_refusal(&f, &options) {
            None => OwnedResult::new(NVRA_STATUS_OK, String::new(), None),
            Some(why) => OwnedResult::new(NVRA_STATUS_UNSUPPORTED, why, None),
        };
    }
    let pass = match pass {
        NVRA_PASS_COLOR => Pass::Color,
        NVRA_PASS_CSSA => Pass::Cssa,
        NVRA_PASS_PRESSURE => Pass::Pressure,
        _ => Pass::Coalesce,
    };
    let _span = tracing::debug_span!("nvregalloc", function = %f.name, ?pass).entered();
    match driver::run(&f, &options, pass) {
        Verdict::Apply(mut outcome) => {
            write_outputs(&f, &options, pass, &outcome);
            let note = outcome.note.take().unwrap_or_default();
            OwnedResult::new(NVRA_STATUS_OK, note, Some(*outcome))
        }
        Verdict::Unsupported(why) => OwnedResult::new(NVRA_STATUS_UNSUPPORTED, why, None),
        Verdict::Rejected(why) => OwnedResult::new(NVRA_STATUS_REJECTED, why, None),
    }
}

/// The files the options ask for (`-nvregalloc-report`, `-nvregalloc-dot`):
/// the only place the core writes any. A file that cannot be written costs a
/// warning, never the compile.
fn write_outputs(f: &Function, options: &Options, pass: Pass, outcome: &PassOutcome) {
    let outputs = &options.outputs;
    if let Some(path) = &outputs.report_path {
        let document = report::record(path, &options.target_cpu, &f.name, pass, outcome);
        if let Err(e) = std::fs::write(path, document) {
            eprintln!("warning: nvregalloc: cannot write the report {}: {e}", path.display());
        }
    }
    if let (Some(dir), Some(graph)) = (&outputs.dot_dir, &outcome.dot) {
        let name: String =
            f.name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
        if let Err(e) =
            std::fs::create_dir_all(dir).and_then(|()| std::fs::write(dir.join(format!("{name}.dot")), graph))
        {
            eprintln!("warning: nvregalloc: cannot write the graph of {} to {}: {e}", f.name, dir.display());
        }
    }
}

fn check_abi(f: &NvraFunction, o: &NvraOptions) -> Result<(), String> {
    let expected = [
        ("NvraFunction", f.sizeof_function as usize, size_of::<NvraFunction>()),
        ("NvraBlock", f.sizeof_block as usize, size_of::<NvraBlock>()),
        ("NvraInst", f.sizeof_inst as usize, size_of::<NvraInst>()),
        ("NvraOperand", f.sizeof_operand as usize, size_of::<NvraOperand>()),
        ("NvraOptions", o.sizeof_options as usize, size_of::<NvraOptions>()),
    ];
    if f.abi_version != NVRA_ABI_VERSION || o.abi_version != NVRA_ABI_VERSION {
        return Err(format!(
            "ABI version mismatch: the shim speaks {} (options {}), the Rust core {}; rebuild the plugin",
            f.abi_version, o.abi_version, NVRA_ABI_VERSION
        ));
    }
    for (name, theirs, ours) in expected {
        if theirs != ours {
            return Err(format!(
                "ABI mismatch: {name} is {theirs} bytes in the shim, {ours} in the Rust core"
            ));
        }
    }
    Ok(())
}

/// # Safety
/// As `nvra_run_pass`.
unsafe fn array<'a, T>(ptr: *const T, len: u32) -> &'a [T] {
    if len == 0 {
        &[]
    } else {
        slice::from_raw_parts(ptr, len as usize)
    }
}

unsafe fn c_string(ptr: *const c_char) -> String {
    if ptr.is_null() {
        String::new()
    } else {
        CStr::from_ptr(ptr).to_string_lossy().into_owned()
    }
}

unsafe fn function_from_abi(raw: &NvraFunction) -> Function {
    let succs = array(raw.succs, total(array(raw.blocks, raw.num_blocks), |b| b.first_succ + b.num_succs));
    let preds = array(raw.preds, total(array(raw.blocks, raw.num_blocks), |b| b.first_pred + b.num_preds));
    let operands = array(raw.operands, raw.num_operands);
    let blocks = array(raw.blocks, raw.num_blocks)
        .iter()
        .map(|b| {
            let edges = |list: &[u32], first: u32, n: u32| {
                list[first as usize..(first + n) as usize].iter().map(|&x| Block(x)).collect()
            };
            BlockData {
                first_inst: b.first_inst,
                num_insts: b.num_insts,
                succs: edges(succs, b.first_succ, b.num_succs),
                preds: edges(preds, b.first_pred, b.num_preds),
                loop_depth: b.loop_depth,
                frequency: b.frequency,
            }
        })
        .collect();
    // Per opcode, whether it is cheap: each name is read once.
    let mut cheap_opcodes: FxHashMap<u32, InstFlags> = FxHashMap::default();
    let mut cheap = |i: &NvraInst| {
        *cheap_opcodes.entry(i.opcode).or_insert_with(|| {
            let cheap = !i.opcode_name.is_null() && pressure::is_cheap_alu_opcode(&c_string(i.opcode_name));
            if cheap {
                InstFlags::CHEAP
            } else {
                InstFlags::empty()
            }
        })
    };
    let insts = array(raw.insts, raw.num_insts)
        .iter()
        .map(|i| InstData {
            kind: match i.kind {
                NVRA_INST_COPY => InstKind::Copy,
                NVRA_INST_MOVE_IMM => InstKind::MoveImm,
                NVRA_INST_CALL => InstKind::Call,
                NVRA_INST_TERMINATOR => InstKind::Terminator,
                NVRA_INST_PHI => InstKind::Phi,
                NVRA_INST_IMPLICIT_DEF => InstKind::ImplicitDef,
                _ => InstKind::Other,
            },
            flags: InstFlags::from_bits_truncate(i.flags) | cheap(i),
            opcode: i.opcode,
            operands: {
                let raw = &operands[i.first_operand as usize..(i.first_operand + i.num_operands) as usize];
                let mut ops: Vec<Operand> = raw
                    .iter()
                    .map(|o| Operand {
                        vreg: VReg(o.vreg),
                        flags: OperandFlags::from_bits_truncate(o.flags),
                        tied_to: (o.tied_to != NVRA_NONE).then_some(o.tied_to),
                        incoming: (o.incoming_block != NVRA_NONE).then_some(Block(o.incoming_block)),
                    })
                    .collect();
                let asm_text = (!i.asm_text.is_null()).then(|| c_string(i.asm_text));
                mark_defs_written_early(asm_text.as_deref(), raw, &mut ops);
                ops
            },
        })
        .collect();
    let class_names = array(raw.class_names, raw.num_classes).iter().map(|&p| c_string(p)).collect();
    let vreg_class = array(raw.vreg_class, raw.num_vregs)
        .iter()
        .map(|&c| (c != NVRA_NONE).then_some(RegClass(c)))
        .collect();
    Function { name: c_string(raw.name), blocks, insts, vreg_class, class_names }
}

/// The defs of one instruction that it may write before it has read all its
/// uses, so that they must not share a register with any of them: the one
/// place this rule lives. From the shim's facts:
/// - a def LLVM marks early-clobber (inline asm's `=&r`), unless tied;
/// - an inline asm's other outputs, unless tied or also read: from the asm
///   text (`asm::output_written_after_inputs`), early where it cannot tell;
/// - any other instruction's defs, when it defines several registers, unless
///   tied or also read by it. ptxas, not LLVM, decides when such an
///   instruction writes them: it may expand it into several SASS
///   instructions, the first writing part of the result before the last
///   reads its inputs (wmma.mma m16n16k16 becomes two HMMAs that both read
///   the A fragment: with the result colored onto A's registers, HeCBench
///   wmma computed wrong products on an H200). A def whose register the
///   instruction also reads (an accumulator RegisterCoalescer already
///   merged, C and D of an mma) is an update in place that stock LLVM made
///   and ptxas handles; it is live across the instruction anyway.
fn mark_defs_written_early(asm_text: Option<&str>, raw: &[NvraOperand], ops: &mut [Operand]) {
    for o in ops.iter_mut().filter(|o| o.tied_to.is_some()) {
        o.flags.remove(OperandFlags::EARLY_CLOBBER);
    }
    if let Some(text) = asm_text {
        mark_asm_outputs_written_early(text, raw, ops);
        return;
    }
    if ops.iter().filter(|o| o.is_def()).count() < 2 {
        return;
    }
    // Any use, undef ones too, as LLVM's MachineInstr::readsRegister counts.
    let used: Vec<VReg> = ops.iter().filter(|o| !o.is_def()).map(|o| o.vreg).collect();
    for o in ops.iter_mut() {
        if o.is_def() && o.tied_to.is_none() && !used.contains(&o.vreg) {
            o.flags |= OperandFlags::EARLY_CLOBBER;
        }
    }
}

/// Inline asm: each output not tied, not already early-clobber and not read
/// by the asm itself is early-clobber unless the asm text shows it written
/// after every input (`asm::output_written_after_inputs`).
fn mark_asm_outputs_written_early(text: &str, raw: &[NvraOperand], ops: &mut [Operand]) {
    let numbered = |keep: fn(&Operand) -> bool| -> Vec<u32> {
        raw.iter()
            .zip(ops.iter())
            .filter(|(r, o)| keep(o) && r.asm_operand != NVRA_NONE)
            .map(|(r, _)| r.asm_operand)
            .collect()
    };
    let inputs = numbered(|o| o.reads());
    let outputs = numbered(|o| o.is_def());
    let read: Vec<VReg> = ops.iter().filter(|o| o.reads()).map(|o| o.vreg).collect();
    for (r, o) in raw.iter().zip(ops.iter_mut()) {
        if !o.is_def() || o.tied_to.is_some() || o.is_early_clobber() || read.contains(&o.vreg) {
            continue;
        }
        let judged = r.asm_operand != NVRA_NONE;
        if !judged || !asm::output_written_after_inputs(text, r.asm_operand, &inputs, &outputs) {
            o.flags |= OperandFlags::EARLY_CLOBBER;
        }
    }
}

fn total(blocks: &[NvraBlock], end: impl Fn(&NvraBlock) -> u32) -> u32 {
    blocks.iter().map(end).max().unwrap_or(0)
}

/// `Options::default()` for the shim, whose command-line options take their
/// defaults from here, so that each is stated once, in the core.
///
/// # Safety
/// `out` must point to a writable `NvraOptions`.
#[no_mangle]
pub unsafe extern "C" fn nvra_default_options(out: *mut NvraOptions) {
    *out = options_to_abi(&Options::default());
}

/// The ABI form of `o`'s knobs (no paths: null).
fn options_to_abi(o: &Options) -> NvraOptions {
    NvraOptions {
        abi_version: NVRA_ABI_VERSION,
        sizeof_options: size_of::<NvraOptions>() as u32,
        k: o.k,
        coalesce_mode: match o.coalesce_mode {
            CoalesceMode::AfterStock => NVRA_COALESCE_AFTER_STOCK,
            CoalesceMode::ReplaceStock => NVRA_COALESCE_REPLACE_STOCK,
            CoalesceMode::Analyze => NVRA_COALESCE_ANALYZE,
            CoalesceMode::Off => NVRA_COALESCE_OFF,
        },
        color_mode: match o.color_mode {
            ColorMode::Rename => NVRA_COLOR_RENAME,
            ColorMode::Analyze => NVRA_COLOR_ANALYZE,
            ColorMode::Off => NVRA_COLOR_OFF,
        },
        block_freq_bias: o.block_freq_bias.into(),
        verify: o.verify.into(),
        fault: match o.fault {
            Fault::None => NVRA_FAULT_NONE,
            Fault::Panic => NVRA_FAULT_PANIC,
            Fault::MergeInterfering => NVRA_FAULT_MERGE_INTERFERING,
        },
        copy_limit: o.copy_limit.unwrap_or(0),
        coalesce_limit: o.coalesce_limit.unwrap_or(0),
        coalesce_factor: o.coalesce_factor,
        report_path: std::ptr::null(),
        dot_dir: std::ptr::null(),
        target_cpu: std::ptr::null(),
        cssa_verbosity: o.outputs.cssa_verbosity,
        max_regs: o.max_regs.unwrap_or(0),
        remat: o.remat.into(),
        spill_latency: o.spill_latency.unwrap_or(0.0),
        loop_base: o.loop_base,
        graph_limit: o.graph_limit,
        reuse_within_block: o.reuse_within_block.into(),
        undefined_apart: o.undefined_apart.into(),
        pressure_mode: match o.pressure_mode {
            PressureMode::Off => NVRA_PRESSURE_OFF,
            PressureMode::Analyze => NVRA_PRESSURE_ANALYZE,
            PressureMode::Relieve => NVRA_PRESSURE_RELIEVE,
        },
        pressure_slack: o.pressure_slack,
        pressure_target: o.pressure_target.unwrap_or(0),
        function_options: std::ptr::null(),
        lsr_slack: o.lsr_slack,
        lsr_min_growth: o.lsr_min_growth,
        invariant_min_growth: o.invariant_min_growth,
        invariant_tree_limit: o.invariant_tree_limit,
    }
}

unsafe fn options_from_abi(raw: &NvraOptions) -> Options {
    let limit = |n: u64| (n != 0).then_some(n);
    Options {
        k: raw.k,
        coalesce_factor: raw.coalesce_factor,
        coalesce_mode: match raw.coalesce_mode {
            NVRA_COALESCE_OFF => CoalesceMode::Off,
            NVRA_COALESCE_REPLACE_STOCK => CoalesceMode::ReplaceStock,
            NVRA_COALESCE_ANALYZE => CoalesceMode::Analyze,
            _ => CoalesceMode::AfterStock,
        },
        color_mode: match raw.color_mode {
            NVRA_COLOR_OFF => ColorMode::Off,
            NVRA_COLOR_ANALYZE => ColorMode::Analyze,
            _ => ColorMode::Rename,
        },
        block_freq_bias: raw.block_freq_bias != 0,
        verify: raw.verify != 0,
        fault: match raw.fault {
            NVRA_FAULT_PANIC => Fault::Panic,
            NVRA_FAULT_MERGE_INTERFERING => Fault::MergeInterfering,
            _ => Fault::None,
        },
        copy_limit: limit(raw.copy_limit),
        coalesce_limit: limit(raw.coalesce_limit),
        target_cpu: c_string(raw.target_cpu),
        max_regs: (raw.max_regs != 0).then_some(raw.max_regs),
        spill_latency: (raw.spill_latency > 0.0).then_some(raw.spill_latency),
        loop_base: raw.loop_base,
        remat: raw.remat != 0,
        graph_limit: raw.graph_limit,
        reuse_within_block: raw.reuse_within_block != 0,
        undefined_apart: raw.undefined_apart != 0,
        pressure_mode: match raw.pressure_mode {
            NVRA_PRESSURE_OFF => PressureMode::Off,
            NVRA_PRESSURE_ANALYZE => PressureMode::Analyze,
            _ => PressureMode::Relieve,
        },
        pressure_slack: raw.pressure_slack,
        pressure_target: (raw.pressure_target != 0).then_some(raw.pressure_target),
        lsr_slack: raw.lsr_slack,
        lsr_min_growth: raw.lsr_min_growth,
        invariant_min_growth: raw.invariant_min_growth,
        invariant_tree_limit: raw.invariant_tree_limit,
        function_options: (!raw.function_options.is_null()).then(|| c_string(raw.function_options).into()),
        outputs: Outputs {
            report_path: (!raw.report_path.is_null()).then(|| c_string(raw.report_path).into()),
            dot_dir: (!raw.dot_dir.is_null()).then(|| c_string(raw.dot_dir).into()),
            cssa_verbosity: raw.cssa_verbosity,
        },
    }
}

thread_local! {
    /// The message of the last panic on this thread, for the warning.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn panic_text(payload: &Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned())
}

/// Installs, once: the `tracing` subscriber (`NVREGALLOC_LOG=debug` turns on
/// everything; without it only the CSSA decision trace, which
/// `-nvregalloc-cssa-verbosity` asks for, gets through), and a panic hook that
/// records the message for the one warning the shim prints instead of Rust's
/// own report.
fn init_logging() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        match std::env::var("NVREGALLOC_LOG") {
            Ok(filter) => {
                let _ = tracing_subscriber::fmt()
                    .with_writer(std::io::stderr)
                    .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
                    .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
                    .try_init();
            }
            // A `Targets` filter, not an `EnvFilter`: parsing the latter's
            // directives compiles regexes, milliseconds in every llc run.
            Err(_) => {
                let _ = tracing_subscriber::registry()
                    .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr).without_time())
                    .with(Targets::new().with_target("nvregalloc::cssa", tracing::Level::INFO))
                    .try_init();
            }
        }
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let location =
                info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
            let message = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{message}{location}")));
            if std::env::var_os("NVREGALLOC_LOG").is_some() {
                previous(info);
            }
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty_function(name: &CStr) -> NvraFunction {
        NvraFunction {
            abi_version: NVRA_ABI_VERSION,
            sizeof_function: size_of::<NvraFunction>() as u32,
            sizeof_block: size_of::<NvraBlock>() as u32,
            sizeof_inst: size_of::<NvraInst>() as u32,
            sizeof_operand: size_of::<NvraOperand>() as u32,
            name: name.as_ptr(),
            ..Default::default()
        }
    }

    fn options() -> NvraOptions {
        NvraOptions { color_mode: NVRA_COLOR_RENAME, ..options_to_abi(&Options::default()) }
    }

    #[test]
    fn the_defaults_go_through_the_abi_unchanged() {
        let mut raw = NvraOptions::default();
        unsafe { nvra_default_options(&mut raw) };
        let back = unsafe { options_from_abi(&raw) };
        assert_eq!(
            format!("{:?}", back),
            format!("{:?}", Options { target_cpu: String::new(), ..Options::default() })
        );
    }

    /// Runs one call and returns (status, message).
    fn call(f: &NvraFunction, o: &NvraOptions) -> (NvraStatus, String) {
        unsafe {
            let result = nvra_run_pass(f, o, NVRA_PASS_COALESCE);
            let answer = ((*result).status, CStr::from_ptr((*result).message).to_string_lossy().into_owned());
            nvra_result_free(result);
            answer
        }
    }

    #[test]
    fn an_empty_function_is_fine() {
        assert_eq!(call(&empty_function(c"f"), &options()).0, NVRA_STATUS_OK);
    }

    #[test]
    fn an_abi_version_mismatch_is_a_clear_error() {
        let mut f = empty_function(c"f");
        f.abi_version = NVRA_ABI_VERSION + 1;
        let (status, message) = call(&f, &options());
        assert_eq!(status, NVRA_STATUS_ABI_MISMATCH);
        assert!(message.contains("ABI version mismatch"), "{message}");
        let mut o = options();
        o.sizeof_options += 8;
        let (status, message) = call(&empty_function(c"f"), &o);
        assert_eq!(status, NVRA_STATUS_ABI_MISMATCH);
        assert!(message.contains("NvraOptions"), "{message}");
    }

    #[test]
    fn a_panic_becomes_a_status_not_an_unwind() {
        let mut o = options();
        o.fault = NVRA_FAULT_PANIC;
        let (status, message) = call(&empty_function(c"boom"), &o);
        assert_eq!(status, NVRA_STATUS_PANIC);
        assert!(message.contains("injected fault") && message.contains("boom"), "{message}");
    }
}

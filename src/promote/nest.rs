//! Loop nests over local arrays: which loops to unroll fully so that an
//! array becomes registers, and which runtime loops to keep rolled.
//!
//! The shim describes a function's loops and, for the arrays a loop
//! addresses, every access to each: which loops' counters step its offset,
//! whether data decides it, which loops it varies in. The plan is made per
//! array, on what the array will be once every planned rewrite is applied:
//! - it becomes registers when each loop whose counter steps one of its
//!   offsets is unrolled fully (SROA then splits it), or when
//!   promote-locals-select will take what data still indexes, and what the
//!   loops left rolled for selects step (`super::rolled_with_selects`);
//! - otherwise it stays in local memory, and unrolling any loop for it buys
//!   only code (a ray tracer's 28-byte array, also read at data-dependent
//!   indexes, had its 8-iteration loop unrolled for 3x the SASS and not one
//!   local access fewer).
//!
//! Only the loops that step an offset are unrolled: an outer loop whose body
//! reaches the array through an inner loop's counter, or at an index from
//! data, stays rolled.

use super::Limits;

/// A loop's place in `Nest::loops`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LoopId(pub u32);

/// An array's place in `Nest::arrays`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ArrayId(pub u32);

/// What the source asks of a loop's unrolling (pragmas, LLVM's loop
/// metadata); the plan never overrides it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceUnroll {
    Unspecified,
    /// `#pragma unroll` with no count: unrolled fully whatever its size.
    Full,
    /// Anything else the source decided (a count, `nounroll`).
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NestLoop {
    pub parent: Option<LoopId>,
    /// `None`: the trip count is not a constant.
    pub trip_count: Option<u32>,
    /// Where the trip count is not a constant, a constant it never
    /// exceeds (an early exit, or a bound from an outer loop's counter).
    pub max_trip_count: Option<u32>,
    /// IR instructions of one iteration, inner loops with a constant trip
    /// count counted that many times.
    pub iteration_insts: u32,
    pub source: SourceUnroll,
    /// One iteration as LLVM's unrollers cost it (TargetTransformInfo's
    /// code size: casts and address arithmetic free), for `unrolls_late`.
    pub llvm_iteration_cost: u32,
}

/// The most iterations LLVM unrolls a loop by when only a bound on its trip
/// count is known: its `-unroll-max-upperbound` (8), up to which the
/// `llvm.loop.unroll.enable` the shim marks such a loop with unrolls it.
pub const MAX_BOUNDED_TRIPS: u32 = 8;

impl NestLoop {
    /// The copies unrolling it fully makes: its trip count, or the bound
    /// LLVM unrolls it by.
    fn unrolled_trips(&self) -> Option<u32> {
        self.trip_count.or(self.max_trip_count.filter(|&bound| bound <= MAX_BOUNDED_TRIPS))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NestArray {
    pub bytes: u64,
    /// Its address goes where no unrolling follows it: a call, a store of
    /// the address, a volatile access.
    pub escapes: bool,
}

/// What an access's offset is once the loops that step it are unrolled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    Constant,
    /// Decided by data (a value loaded, a computed index): no unrolling
    /// makes it a constant.
    Data,
    /// Stepped by a loop by an amount that is not a constant: no unrolling
    /// makes it a constant.
    Rolled,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    pub array: ArrayId,
    /// The innermost loop holding the access.
    pub innermost: Option<LoopId>,
    /// The innermost loop its offset varies in; it varies in every loop
    /// around that one too, and in no other.
    pub deepest_varying: Option<LoopId>,
    pub writes: bool,
    /// The loops whose counters step the offset, each by a constant.
    pub steps: Vec<LoopId>,
    /// The offset once they are unrolled.
    pub base: Base,
    /// How many of the array's elements it may reach: the selects it takes
    /// where its offset is not a constant.
    pub elements: u64,
    /// How many it may reach once the loops that step it are unrolled, in
    /// each copy: what the offset's known bits leave with their counters at
    /// their first values (a bucket's base chosen by data, plus a constant;
    /// stepped by no loop, the offset's own).
    pub copy_elements: u64,
    /// Its offset is computed in its innermost loop from values the loop
    /// does not change and the previous iteration's alone, never from
    /// memory: a stride, or a circular buffer's wrapped index. (Only a
    /// runtime loop's verdict reads it, of the accesses in its own body.)
    pub from_iterations: bool,
}

impl Access {
    /// Whether promote-locals-select must take it for the array to become
    /// registers: data decides its offset, or a loop left rolled steps it.
    fn selected(&self, rolled: &[LoopId]) -> bool {
        self.base == Base::Data || self.steps.iter().any(|l| rolled.contains(l))
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Nest {
    pub loops: Vec<NestLoop>,
    pub arrays: Vec<NestArray>,
    pub accesses: Vec<Access>,
}

impl Nest {
    fn lp(&self, id: LoopId) -> &NestLoop {
        &self.loops[id.0 as usize]
    }

    fn array(&self, id: ArrayId) -> &NestArray {
        &self.arrays[id.0 as usize]
    }

    /// `inner`, its parent, its parent's parent, ...
    fn loops_around(&self, inner: Option<LoopId>) -> impl Iterator<Item = LoopId> + '_ {
        std::iter::successors(inner, |&l| self.lp(l).parent)
    }

    fn encloses(&self, outer: LoopId, inner: Option<LoopId>) -> bool {
        self.loops_around(inner).any(|l| l == outer)
    }

    fn accesses_of(&self, array: ArrayId) -> impl Iterator<Item = &Access> + '_ {
        self.accesses.iter().filter(move |a| a.array == array)
    }
}

/// Why an array stays in local memory whatever is unrolled for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StaysInMemory {
    AddressEscapes,
    /// Over `Limits::max_array_bytes`: more than registers can hold.
    TooBig,
    /// Some offset is stepped by an amount that is not a constant.
    RolledOffset,
    /// A loop that steps an offset cannot be unrolled fully.
    TooManyTrips(LoopId),
    UnrolledTooBig(LoopId),
    RuntimeTrips(LoopId),
    SourceDecides(LoopId),
    /// Data indexes it, and promote-locals-select will not make it scalars
    /// (too big, too many selects, or no loop reuses what was set before
    /// it: `super::selects_local`'s rule).
    IndexedByData,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArrayPlan {
    /// Registers once the loops in `unroll` are unrolled fully, and with
    /// `selects` once promote-locals-select has made selects of the accesses
    /// data indexes and of those the loops in `rolled` step (loops whose
    /// counters step offsets, left rolled for selects).
    Registers {
        unroll: Vec<LoopId>,
        rolled: Vec<LoopId>,
        selects: bool,
    },
    Memory(StaysInMemory),
}

/// What the array will be once the loops that step its offsets are
/// unrolled.
pub fn plan_array(nest: &Nest, array: ArrayId, limits: &Limits) -> ArrayPlan {
    let facts = nest.array(array);
    if facts.escapes {
        return ArrayPlan::Memory(StaysInMemory::AddressEscapes);
    }
    if facts.bytes > limits.max_array_bytes {
        return ArrayPlan::Memory(StaysInMemory::TooBig);
    }
    // The loops that step offsets that then become constants. Stepping a
    // data-dependent offset gains nothing, except where the loop has no
    // constant trip count but a small bound: rolled, it would select every
    // iteration, which promote-locals-select does not take; unrolled by
    // the bound, each copy selects among the elements its base may reach
    // (HeCBench's s8n inserts into a sorted bucket of an `int[32]` chosen
    // by data, in a loop of at most 4 trips that breaks where it inserts).
    // Only where every such loop has one: one that does not would select
    // every iteration all the same.
    let mut stepping: Vec<LoopId> = Vec::new();
    let mut data_steps: Vec<LoopId> = Vec::new();
    for access in nest.accesses_of(array) {
        match access.base {
            Base::Rolled => return ArrayPlan::Memory(StaysInMemory::RolledOffset),
            Base::Constant => stepping.extend(&access.steps),
            Base::Data => {
                data_steps.extend(access.steps.iter().filter(|&&l| nest.lp(l).trip_count.is_none()))
            }
        }
    }
    if data_steps.iter().all(|&l| nest.lp(l).unrolled_trips().is_some()) {
        stepping.extend(data_steps);
    }
    stepping.sort_unstable();
    stepping.dedup();
    // The loops whose iterations are long beside the selects stay rolled,
    // if promote-locals-select will take the array so (small enough, few
    // enough selects); the others are unrolled.
    let (rolled, unroll): (Vec<LoopId>, Vec<LoopId>) =
        stepping.iter().partition(|&&l| stays_rolled_for_selects(nest, array, l, limits));
    if !rolled.is_empty() {
        if let plan @ ArrayPlan::Registers { .. } = plan_with(nest, array, unroll, rolled, limits) {
            return plan;
        }
    }
    plan_with(nest, array, stepping, Vec::new(), limits)
}

/// The array's plan when the loops in `unroll` are unrolled fully and those
/// in `rolled` left rolled for selects.
fn plan_with(
    nest: &Nest,
    array: ArrayId,
    unroll: Vec<LoopId>,
    rolled: Vec<LoopId>,
    limits: &Limits,
) -> ArrayPlan {
    for &l in &unroll {
        if let Some(why) = cannot_unroll(nest.lp(l), l, limits) {
            return ArrayPlan::Memory(why);
        }
    }
    let selects = nest.accesses_of(array).any(|a| a.selected(&rolled));
    if selects && !selects_after_unrolling(nest, array, &unroll, &rolled, limits) {
        return ArrayPlan::Memory(StaysInMemory::IndexedByData);
    }
    ArrayPlan::Registers { unroll, rolled, selects }
}

/// Whether `l`, whose counter steps offsets into `array`, stays rolled for
/// selects (`super::rolled_with_selects`): the source leaves it to the
/// compiler, its trip count is a constant, and its iterations are long
/// beside the selects they would run. Each access it steps selects among
/// the elements it may reach, once per iteration of the loops between it
/// and `l`.
fn stays_rolled_for_selects(nest: &Nest, array: ArrayId, l: LoopId, limits: &Limits) -> bool {
    let this = nest.lp(l);
    this.source == SourceUnroll::Unspecified
        && this.trip_count.is_some()
        && super::rolled_with_selects(selects_per_iteration(nest, array, l), this.iteration_insts, limits)
}

/// The selects one iteration of `l` runs once the accesses to `array` that
/// its counter steps are selects.
fn selects_per_iteration(nest: &Nest, array: ArrayId, l: LoopId) -> u64 {
    nest.accesses_of(array)
        .filter(|a| a.steps.contains(&l))
        .map(|a| {
            let inner_trips: u64 = nest
                .loops_around(a.innermost)
                .take_while(|&m| m != l)
                .map(|m| u64::from(nest.lp(m).trip_count.unwrap_or(1)))
                .product();
            a.elements.saturating_mul(inner_trips)
        })
        .fold(0, u64::saturating_add)
}

/// Why `l` cannot be unrolled fully, if it cannot.
fn cannot_unroll(l: &NestLoop, id: LoopId, limits: &Limits) -> Option<StaysInMemory> {
    match l.source {
        SourceUnroll::Full => return None,
        SourceUnroll::Other => return Some(StaysInMemory::SourceDecides(id)),
        SourceUnroll::Unspecified => {}
    }
    let Some(trips) = l.unrolled_trips() else {
        return Some(StaysInMemory::RuntimeTrips(id));
    };
    if trips > limits.max_trip_count {
        Some(StaysInMemory::TooManyTrips(id))
    } else if u64::from(trips) * u64::from(l.iteration_insts) > u64::from(limits.max_unrolled_insts) {
        Some(StaysInMemory::UnrolledTooBig(id))
    } else {
        None
    }
}

/// Whether promote-locals-select, which runs after the unrollers, will make
/// the array scalars once `unroll` is unrolled and `rolled` left rolled:
/// `super::selects_local`'s rule on the facts as they will be. Each
/// selected access inside an unrolled loop is copied once per iteration; a
/// loop not unrolled reuses what was set before it when it writes nothing
/// of the array at an offset that is then a constant.
fn selects_after_unrolling(
    nest: &Nest,
    array: ArrayId,
    unroll: &[LoopId],
    rolled: &[LoopId],
    limits: &Limits,
) -> bool {
    let selected_accesses = || nest.accesses_of(array).filter(|a| a.selected(rolled));
    let (mut selected, mut accesses) = (0u64, 0u64);
    for access in selected_accesses() {
        let copies = nest
            .loops_around(access.innermost)
            .filter(|l| unroll.contains(l))
            .map(|l| u64::from(nest.lp(l).unrolled_trips().unwrap_or(1)))
            .product::<u64>();
        // Each copy of an access whose stepping loops all unroll (or that no
        // loop steps) reaches only what its base reaches; one a loop left
        // rolled steps, what the whole loop reaches.
        let unrolled = access.steps.iter().all(|l| unroll.contains(l));
        let elements = if unrolled { access.copy_elements } else { access.elements };
        selected = selected.saturating_add(elements.saturating_mul(copies));
        accesses = accesses.saturating_add(copies);
    }
    let writes_constant_offset = |l: LoopId| {
        nest.accesses_of(array).any(|a| a.writes && !a.selected(rolled) && nest.encloses(l, a.innermost))
    };
    let data = || nest.accesses_of(array).filter(|a| a.base == Base::Data);
    let reused_in_loop = data().any(|access| {
        nest.loops_around(access.innermost).any(|l| !unroll.contains(&l) && !writes_constant_offset(l))
    });
    let walks = rolled
        .iter()
        .map(|&l| super::LoopWalk {
            selects_per_iteration: selects_per_iteration(nest, array, l),
            iteration_insts: nest.lp(l).iteration_insts,
        })
        .collect();
    let facts = super::DynamicLocal {
        bytes: nest.array(array).bytes,
        selected,
        accesses,
        indexed_by_data: data().next().is_some(),
        reused_in_loop,
        walked_by_runtime_loop: false,
        walks,
    };
    super::selects_local(&facts, limits) == super::SelectsVerdict::Selects
}

/// What to do with one loop over local arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopVerdict {
    /// Unroll it fully (a loop with only a bound on its trip count: by the
    /// bound): with the other loops planned for `array`, every offset into
    /// it becomes a constant (or a select's). `late`: by LLVM's loop
    /// unroller after the function's simplification, not by the full
    /// unroller that follows the plan (`unrolls_late`).
    FullUnroll { array: ArrayId, unrolled_insts: u64, late: bool },
    /// A runtime trip count over an array that stays in memory: keep one
    /// access per iteration, as the source has it, rather than the copies
    /// runtime unrolling and vectorizing make (nvcc makes several times
    /// fewer local accesses on such loops); ptxas too is told to leave the
    /// loop rolled, or it unrolls it the more.
    KeepRolled { array: ArrayId },
    /// A runtime loop over an array that becomes registers all the same
    /// (promote-locals-select makes selects of what data indexes, a
    /// circular buffer's wrapped index too): a loop kept rolled would buy
    /// nothing, and its selects would run every iteration.
    BecomesRegisters { array: ArrayId },
    /// The array becomes registers without unrolling this loop: no offset
    /// into it varies with this loop's counter, only with inner loops' or
    /// with data.
    NotNeeded { array: ArrayId },
    /// The loop's counter steps offsets into the array, but its iterations
    /// are long beside the selects that make it registers with the loop
    /// rolled (`super::rolled_with_selects`).
    RolledForSelects { array: ArrayId },
    /// Left to LLVM: the array stays in memory, this loop being the cause
    /// (or another, or the array itself).
    Memory { array: ArrayId, why: StaysInMemory },
    /// The loop addresses no array at an offset that varies in it.
    Nothing,
}

/// The most iterations LLVM's full unrollers simulate to see what the
/// unrolled code simplifies to (`-unroll-max-iteration-count-to-analyze`),
/// and how far past their threshold that lets them go
/// (`-unroll-max-percent-threshold-boost`, 400%, of 300 IR instructions).
pub const LLVM_ANALYZED_TRIPS: u32 = 10;
pub const LLVM_BOOSTED_UNROLL_INSTS: u64 = 4 * crate::choices::LLVM_FULL_UNROLL_INSTS;

/// Whether a loop the plan unrolls fully is left to LLVM's loop unroller
/// late in the pipeline (after the function's simplification and the
/// vectorizer, with an SROA after it) rather than unrolled by the full
/// unroller right after the plan. Where the loop is within what LLVM's
/// unrollers unroll by themselves once the body has simplified (by their
/// own cost model), stock LLVM
/// often does unroll it, there, and the array becomes registers in stock
/// too; unrolled early instead, the same code goes through GVN, LICM and
/// instruction combining as sixteen copies and comes out longer (CUTLASS's
/// reference GEMM, a 4x4 accumulator tile over 4 iterations of 242
/// instructions: 593 SASS instructions unrolled early, 315 as stock and
/// late). A longer loop LLVM never unrolls by itself, and it is unrolled
/// where the plan is made, so that the copies are simplified before the
/// loops around them are judged. The plan's loops for one array are
/// unrolled late only all together: an outer loop unrolled at once would
/// copy inner loops still rolled, to be unrolled late one copy at a time
/// (CUTLASS's quaternion reference GEMM, a 384-byte tile: 12 warps so, 16
/// with the whole nest unrolled at once).
fn unrolls_late(l: &NestLoop) -> bool {
    l.trip_count.is_some_and(|trips| {
        trips <= LLVM_ANALYZED_TRIPS
            && u64::from(trips) * u64::from(l.llvm_iteration_cost) <= LLVM_BOOSTED_UNROLL_INSTS
    })
}

/// The verdict on `l`, from the plans of the arrays whose offsets vary in
/// it.
pub fn plan_loop(nest: &Nest, l: LoopId, limits: &Limits) -> LoopVerdict {
    let this = nest.lp(l);
    if this.unrolled_trips().is_none() {
        return plan_runtime_loop(nest, l, limits);
    }
    let mut arrays: Vec<ArrayId> =
        nest.accesses.iter().filter(|a| nest.encloses(l, a.deepest_varying)).map(|a| a.array).collect();
    arrays.sort_unstable();
    arrays.dedup();
    // The largest array first: the one a remark names when no plan needs
    // this loop.
    arrays.sort_by_key(|&a| std::cmp::Reverse(nest.array(a).bytes));
    let plans: Vec<(ArrayId, ArrayPlan)> = arrays.iter().map(|&a| (a, plan_array(nest, a, limits))).collect();
    for (array, plan) in &plans {
        if let ArrayPlan::Registers { unroll, .. } = plan {
            if unroll.contains(&l) {
                let unrolled_insts =
                    u64::from(this.unrolled_trips().unwrap_or(1)) * u64::from(this.iteration_insts);
                // The array's loops unroll together, inner ones first: all
                // late, or all at once.
                let late = unroll.iter().all(|&u| unrolls_late(nest.lp(u)));
                return LoopVerdict::FullUnroll { array: *array, unrolled_insts, late };
            }
        }
    }
    for (array, plan) in &plans {
        if let ArrayPlan::Registers { rolled, .. } = plan {
            if rolled.contains(&l) {
                return LoopVerdict::RolledForSelects { array: *array };
            }
        }
    }
    // A loop with only a bound that no plan unrolls is a runtime loop.
    if this.trip_count.is_none() {
        return plan_runtime_loop(nest, l, limits);
    }
    match plans.first() {
        None => LoopVerdict::Nothing,
        Some((array, ArrayPlan::Registers { .. })) => LoopVerdict::NotNeeded { array: *array },
        Some(&(array, ArrayPlan::Memory(why))) => LoopVerdict::Memory { array, why },
    }
}

/// A loop with a runtime trip count: kept rolled for the arrays it
/// addresses in its own body at offsets computed from its previous
/// iteration (a stride, or a circular buffer's wrapped index) that stay in
/// memory; left to LLVM where each such array becomes registers all the
/// same.
fn plan_runtime_loop(nest: &Nest, l: LoopId, limits: &Limits) -> LoopVerdict {
    let mut arrays: Vec<ArrayId> = nest
        .accesses
        .iter()
        .filter(|a| a.innermost == Some(l) && nest.encloses(l, a.deepest_varying))
        .filter(|a| a.from_iterations || strides(a, l))
        .map(|a| a.array)
        .collect();
    arrays.sort_unstable();
    arrays.dedup();
    arrays.sort_by_key(|&a| std::cmp::Reverse(nest.array(a).bytes));
    let Some(&largest) = arrays.first() else {
        return LoopVerdict::Nothing;
    };
    match arrays.iter().find(|&&a| matches!(plan_array(nest, a, limits), ArrayPlan::Memory(_))) {
        Some(&array) => LoopVerdict::KeepRolled { array },
        None => LoopVerdict::BecomesRegisters { array: largest },
    }
}

/// Whether `l`'s counter steps the access's offset by a constant.
fn strides(access: &Access, l: LoopId) -> bool {
    access.steps.contains(&l)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = super::super::TEST_LIMITS;
    const OUTER: LoopId = LoopId(0);
    const INNER: LoopId = LoopId(1);
    const A: ArrayId = ArrayId(0);

    fn lp(parent: Option<LoopId>, trips: Option<u32>, insts: u32) -> NestLoop {
        NestLoop {
            parent,
            trip_count: trips,
            max_trip_count: None,
            iteration_insts: insts,
            source: SourceUnroll::Unspecified,
            llvm_iteration_cost: insts,
        }
    }

    /// An access in `innermost` at an offset stepped by `steps`, with `base`
    /// once they are unrolled, reaching 16 elements (a 64-byte array of
    /// `float`).
    fn access(innermost: LoopId, steps: &[LoopId], base: Base, writes: bool) -> Access {
        let deepest_varying = match base {
            Base::Constant => steps.iter().copied().max(),
            _ => Some(innermost),
        };
        Access {
            array: A,
            innermost: Some(innermost),
            deepest_varying,
            writes,
            steps: steps.to_vec(),
            base,
            elements: 16,
            copy_elements: 16,
            from_iterations: true,
        }
    }

    /// An outer loop of 17 iterations around an inner one of 18.
    fn nest(bytes: u64, accesses: Vec<Access>) -> Nest {
        Nest {
            loops: vec![lp(None, Some(17), 18 * 10 + 20), lp(Some(OUTER), Some(18), 10)],
            arrays: vec![NestArray { bytes, escapes: false }],
            accesses,
        }
    }

    #[test]
    fn an_outer_loop_stays_rolled_when_only_the_inner_counter_steps_the_offsets() {
        let n = nest(72, vec![access(INNER, &[INNER], Base::Constant, false)]);
        assert_eq!(
            plan_array(&n, A, &LIMITS),
            ArrayPlan::Registers { unroll: vec![INNER], rolled: vec![], selects: false }
        );
        assert!(matches!(plan_loop(&n, INNER, &LIMITS), LoopVerdict::FullUnroll { .. }));
        // Once the inner loop is unrolled its offsets are constants, and the
        // outer loop has nothing to unroll for; before, it is not needed.
        assert_eq!(plan_loop(&n, OUTER, &LIMITS), LoopVerdict::NotNeeded { array: A });
    }

    #[test]
    fn both_loops_unroll_when_both_counters_step_the_offset() {
        let n = nest(72 * 17, vec![access(INNER, &[OUTER, INNER], Base::Constant, false)]);
        // 1,224 bytes: more than registers hold.
        assert_eq!(plan_array(&n, A, &LIMITS), ArrayPlan::Memory(StaysInMemory::TooBig));
        let n = nest(1024, vec![access(INNER, &[OUTER, INNER], Base::Constant, false)]);
        assert_eq!(
            plan_array(&n, A, &LIMITS),
            ArrayPlan::Registers { unroll: vec![OUTER, INNER], rolled: vec![], selects: false }
        );
        assert_eq!(
            plan_loop(&n, OUTER, &LIMITS),
            LoopVerdict::FullUnroll { array: A, unrolled_insts: 17 * 200, late: false }
        );
    }

    #[test]
    fn loops_llvm_may_unroll_by_itself_are_unrolled_late() {
        // An 80-byte accumulator tile (too big for selects): 4 iterations
        // of 242 instructions, within LLVM's boosted threshold and its
        // analyzed trips.
        let mut n = nest(80, vec![access(INNER, &[OUTER], Base::Constant, true)]);
        n.loops[0] = lp(None, Some(4), 242);
        n.accesses[0].innermost = Some(OUTER);
        n.accesses[0].deepest_varying = Some(OUTER);
        assert_eq!(
            plan_loop(&n, OUTER, &LIMITS),
            LoopVerdict::FullUnroll { array: A, unrolled_insts: 4 * 242, late: true }
        );
        // Over 1,200 instructions, or over 10 iterations: LLVM never
        // unrolls it by itself, and the plan does at once.
        n.loops[0] = lp(None, Some(4), 301);
        assert!(matches!(plan_loop(&n, OUTER, &LIMITS), LoopVerdict::FullUnroll { late: false, .. }));
        n.loops[0] = lp(None, Some(11), 20);
        assert!(matches!(plan_loop(&n, OUTER, &LIMITS), LoopVerdict::FullUnroll { late: false, .. }));
    }

    #[test]
    fn nothing_is_unrolled_for_an_array_that_stays_in_memory() {
        // Read at a data-dependent index outside any loop that reuses it:
        // promote-locals-select will not take it.
        let mut n = nest(
            28,
            vec![access(INNER, &[INNER], Base::Constant, true), access(INNER, &[], Base::Data, false)],
        );
        n.accesses[1].innermost = None;
        n.accesses[1].deepest_varying = None;
        assert_eq!(plan_array(&n, A, &LIMITS), ArrayPlan::Memory(StaysInMemory::IndexedByData));
        assert_eq!(
            plan_loop(&n, INNER, &LIMITS),
            LoopVerdict::Memory { array: A, why: StaysInMemory::IndexedByData }
        );
        // A runtime loop steps it: no other loop is unrolled for it either.
        let mut n = nest(64, vec![access(INNER, &[INNER], Base::Constant, false)]);
        n.loops[0].trip_count = None;
        n.accesses.push(access(OUTER, &[OUTER], Base::Constant, true));
        assert_eq!(
            plan_loop(&n, INNER, &LIMITS),
            LoopVerdict::Memory { array: A, why: StaysInMemory::RuntimeTrips(OUTER) }
        );
        let mut n = nest(64, vec![access(INNER, &[INNER], Base::Constant, false)]);
        n.arrays[0].escapes = true;
        assert_eq!(plan_array(&n, A, &LIMITS), ArrayPlan::Memory(StaysInMemory::AddressEscapes));
    }

    #[test]
    fn an_array_reused_at_data_dependent_indexes_in_a_rolled_loop_becomes_selects() {
        // Filled by the inner loop, read by data in the outer one, which
        // stays rolled and writes nothing of it at a constant offset.
        let mut n = nest(64, vec![access(INNER, &[INNER], Base::Constant, true)]);
        n.loops[1].parent = None;
        n.accesses.push(access(OUTER, &[], Base::Data, false));
        assert_eq!(
            plan_array(&n, A, &LIMITS),
            ArrayPlan::Registers { unroll: vec![INNER], rolled: vec![], selects: true }
        );
        assert_eq!(plan_loop(&n, OUTER, &LIMITS), LoopVerdict::NotNeeded { array: A });
        // Over the selects limit once the unrolled loop copies the access.
        let mut n = nest(64, vec![access(INNER, &[INNER], Base::Constant, false)]);
        n.accesses.push(access(INNER, &[], Base::Data, false));
        n.accesses.push(access(OUTER, &[], Base::Constant, true));
        assert_eq!(plan_array(&n, A, &LIMITS), ArrayPlan::Memory(StaysInMemory::IndexedByData));
    }

    #[test]
    fn each_limit_keeps_the_array_in_memory() {
        let one = |trips, insts, source| Nest {
            loops: vec![NestLoop { source, ..lp(None, trips, insts) }],
            arrays: vec![NestArray { bytes: 64, escapes: false }],
            accesses: vec![access(OUTER, &[OUTER], Base::Constant, false)],
        };
        let why = |n: &Nest| plan_array(n, A, &LIMITS);
        use SourceUnroll::*;
        assert_eq!(
            why(&one(Some(33), 10, Unspecified)),
            ArrayPlan::Memory(StaysInMemory::TooManyTrips(OUTER))
        );
        assert_eq!(
            why(&one(Some(32), 126, Unspecified)),
            ArrayPlan::Memory(StaysInMemory::UnrolledTooBig(OUTER))
        );
        assert_eq!(
            why(&one(Some(32), 126, Full)),
            ArrayPlan::Registers { unroll: vec![OUTER], rolled: vec![], selects: false }
        );
        assert_eq!(why(&one(Some(4), 10, Other)), ArrayPlan::Memory(StaysInMemory::SourceDecides(OUTER)));
        let mut rolled = one(Some(4), 10, Unspecified);
        rolled.accesses[0].base = Base::Rolled;
        assert_eq!(why(&rolled), ArrayPlan::Memory(StaysInMemory::RolledOffset));
    }

    #[test]
    fn runtime_loops_stay_rolled_unless_the_array_becomes_registers_all_the_same() {
        let runtime = |bytes, steps: &[LoopId], base| Nest {
            loops: vec![lp(None, None, 40)],
            arrays: vec![NestArray { bytes, escapes: false }],
            accesses: vec![access(OUTER, steps, base, false)],
        };
        let keep = LoopVerdict::KeepRolled { array: A };
        let registers = LoopVerdict::BecomesRegisters { array: A };
        // A stride from a constant: the loop would have to unroll.
        assert_eq!(plan_loop(&runtime(1 << 20, &[OUTER], Base::Constant), OUTER, &LIMITS), keep);
        assert_eq!(plan_loop(&runtime(16, &[OUTER], Base::Constant), OUTER, &LIMITS), keep);
        // From a place data decides: a small array becomes selects.
        assert_eq!(plan_loop(&runtime(16, &[OUTER], Base::Data), OUTER, &LIMITS), registers);
        assert_eq!(plan_loop(&runtime(128, &[OUTER], Base::Data), OUTER, &LIMITS), keep);
        // A circular buffer's wrapped index.
        let wrapped = Base::Data;
        assert_eq!(plan_loop(&runtime(76, &[], wrapped), OUTER, &LIMITS), keep);
        assert_eq!(plan_loop(&runtime(64, &[], Base::Data), OUTER, &LIMITS), registers);
        // An index read from memory: not kept rolled for.
        let mut lookup = runtime(4096, &[], wrapped);
        lookup.accesses[0].from_iterations = false;
        assert_eq!(plan_loop(&lookup, OUTER, &LIMITS), LoopVerdict::Nothing);
    }

    #[test]
    fn loops_with_long_iterations_stay_rolled_and_their_accesses_become_selects() {
        // wlcpow: a 3x3 array of floats, one element written per iteration
        // of two 3-iteration loops around a 139-instruction hash, read at
        // constant offsets after them.
        let wlcpow = |hash_insts: u32, outer_insts: u32| {
            let mut n = Nest {
                loops: vec![
                    lp(None, Some(3), 3 * hash_insts + outer_insts),
                    lp(Some(OUTER), Some(3), hash_insts),
                ],
                arrays: vec![NestArray { bytes: 36, escapes: false }],
                accesses: vec![access(INNER, &[OUTER, INNER], Base::Constant, true)],
            };
            n.accesses[0].elements = 9;
            let mut read = access(INNER, &[], Base::Constant, false);
            (read.innermost, read.deepest_varying, read.elements) = (None, None, 9);
            n.accesses.push(read);
            n
        };
        let n = wlcpow(139, 3);
        assert_eq!(
            plan_array(&n, A, &LIMITS),
            ArrayPlan::Registers { unroll: vec![], rolled: vec![OUTER, INNER], selects: true }
        );
        assert_eq!(plan_loop(&n, INNER, &LIMITS), LoopVerdict::RolledForSelects { array: A });
        assert_eq!(plan_loop(&n, OUTER, &LIMITS), LoopVerdict::RolledForSelects { array: A });
        // A short iteration: unrolled, as before.
        let n = wlcpow(10, 3);
        assert_eq!(
            plan_array(&n, A, &LIMITS),
            ArrayPlan::Registers { unroll: vec![OUTER, INNER], rolled: vec![], selects: false }
        );
        // Long enough for the outer loop only (27 selects to 3 * 40 + 100
        // instructions), not for the inner one (9 to 40).
        let n = wlcpow(40, 100);
        assert_eq!(
            plan_array(&n, A, &LIMITS),
            ArrayPlan::Registers { unroll: vec![INNER], rolled: vec![OUTER], selects: true }
        );
        // Over the selects limit once the inner loop's copies count (27
        // each): the rolled plan is dropped, both loops unroll.
        let tight = Limits { max_selects: 20, ..LIMITS };
        assert_eq!(
            plan_array(&n, A, &tight),
            ArrayPlan::Registers { unroll: vec![OUTER, INNER], rolled: vec![], selects: false }
        );
        // Too many iterations to unroll, but long ones: registers all the same.
        let mut n = wlcpow(139, 3);
        n.loops[0].trip_count = Some(64);
        assert!(matches!(plan_array(&n, A, &LIMITS), ArrayPlan::Registers { .. }));
        // Over the bytes selects take, or never for selects: unrolled.
        let mut n = wlcpow(139, 3);
        n.arrays[0].bytes = 68;
        assert_eq!(
            plan_array(&n, A, &LIMITS),
            ArrayPlan::Registers { unroll: vec![OUTER, INNER], rolled: vec![], selects: false }
        );
        let never = Limits { rolled_insts_per_select: 0, ..LIMITS };
        assert_eq!(
            plan_array(&wlcpow(139, 3), A, &never),
            ArrayPlan::Registers { unroll: vec![OUTER, INNER], rolled: vec![], selects: false }
        );
    }

    #[test]
    fn bounded_loops_that_step_a_bucket_chosen_by_data_unroll_by_their_bounds() {
        // s8n: per neighbour (a runtime loop), a bucket of an `int[32]`
        // chosen by data; a loop of at most 4 trips that breaks where it
        // inserts reads the bucket, and one of at most 3 inside it shifts
        // the bucket's tail. Each access reaches 32 elements with the loops
        // rolled, 8 in each copy once they are unrolled.
        const K: LoopId = LoopId(1);
        const KK: LoopId = LoopId(2);
        let bounded = |parent, bound| NestLoop { max_trip_count: Some(bound), ..lp(Some(parent), None, 12) };
        let s8n = |k_bound| {
            let mut n = Nest {
                loops: vec![lp(None, None, 200), bounded(OUTER, k_bound), bounded(K, 3)],
                arrays: vec![NestArray { bytes: 128, escapes: false }],
                accesses: vec![
                    access(K, &[K], Base::Data, false),
                    access(KK, &[KK], Base::Data, false),
                    access(KK, &[KK], Base::Data, true),
                    access(K, &[K], Base::Data, true),
                ],
            };
            for a in &mut n.accesses {
                (a.elements, a.copy_elements) = (32, 8);
            }
            n
        };
        let limits = Limits { max_dynamic_array_bytes: 128, max_selects: 256, ..LIMITS };
        let n = s8n(4);
        assert_eq!(
            plan_array(&n, A, &limits),
            ArrayPlan::Registers { unroll: vec![K, KK], rolled: vec![], selects: true }
        );
        assert_eq!(
            plan_loop(&n, KK, &limits),
            LoopVerdict::FullUnroll { array: A, unrolled_insts: 3 * 12, late: false }
        );
        assert_eq!(
            plan_loop(&n, K, &limits),
            LoopVerdict::FullUnroll { array: A, unrolled_insts: 4 * 12, late: false }
        );
        // Each copy counted at 8 elements: 4 * 8 * 2 + 4 * 3 * 8 * 2 = 256.
        // At 32 (no narrowing), over the limit: the array stays in memory
        // and the loops, rolled, keep one access per iteration.
        let mut wide = s8n(4);
        for a in &mut wide.accesses {
            a.copy_elements = 32;
        }
        assert_eq!(plan_array(&wide, A, &limits), ArrayPlan::Memory(StaysInMemory::IndexedByData));
        assert_eq!(plan_loop(&wide, K, &limits), LoopVerdict::KeepRolled { array: A });
        // A bound over LLVM's (8): a runtime loop, which would select every
        // iteration however the other is unrolled, so neither is; rolled,
        // each access selects among 32, twice what selects are taken for
        // on average, and both loops keep one access per iteration.
        let n = s8n(MAX_BOUNDED_TRIPS + 1);
        assert_eq!(plan_array(&n, A, &limits), ArrayPlan::Memory(StaysInMemory::IndexedByData));
        assert_eq!(plan_loop(&n, K, &limits), LoopVerdict::KeepRolled { array: A });
        assert_eq!(plan_loop(&n, KK, &limits), LoopVerdict::KeepRolled { array: A });
    }
}

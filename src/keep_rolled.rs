//! Loops that LLVM left rolled, and whether ptxas may unroll them.
//!
//! LLVM's full unroller declines a loop with a constant trip count whose
//! unrolled body would be over its threshold (300 IR instructions at -O3).
//! ptxas does not know that verdict: it unrolls a constant-trip loop fully by
//! itself when it recognizes the trip count, and it recognizes the form
//! LLVM's loop strength reduction leaves (the latch compares the
//! incremented counter with a constant). A 17-tap vertical filter whose
//! taps clang reads in place, as nvcc does, came out of ptxas with 522 SASS
//! instructions where the same loop kept rolled took 96, and nvcc's 125:
//! nvcc's PTX escapes ptxas's unroller by its form (its exit test compares
//! the counter before the increment, or sits in the middle of a body NVVM
//! unrolled by two), not by a pragma (docs/local-memory.md, "ptxas unrolls
//! what LLVM left rolled"). So a loop LLVM judged too big to unroll is
//! marked `llvm.loop.unroll.disable`, which NVPTX prints as
//! `.pragma "nounroll"`: the middle end's verdict stands in the machine
//! code too.
//!
//! Not where ptxas's unrolling is what keeps a local array in registers (the
//! loop addresses a local at an offset that varies in it: ptxas makes
//! registers of what unrolling leaves at constant offsets), nor where the
//! source, LLVM or the plan decided the loop's unrolling (a pragma, a loop
//! LLVM unrolled partially, one kept rolled for selects), nor for a runtime
//! trip count, which ptxas unrolls only by a few copies. `rolled=ptxas`
//! (`choices::ROLLED`) gives a function's loops back to ptxas, and
//! `nvregalloc-tune` tries it where ptxas's unrolling pays.

use crate::choices::LLVM_FULL_UNROLL_INSTS;
use crate::promote::nest::SourceUnroll;

/// A loop still rolled at the end of LLVM's IR passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RolledLoop {
    /// `None`: not a constant.
    pub trip_count: Option<u32>,
    /// IR instructions of one iteration, inner loops with a constant trip
    /// count counted that many times.
    pub iteration_insts: u32,
    /// What its metadata already decides (a pragma, LLVM's mark on a loop
    /// it unrolled partially, the plan's mark).
    pub source: SourceUnroll,
    /// It addresses a local array at an offset that varies in it.
    pub walks_local: bool,
}

/// Whether ptxas may unroll the loop, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RolledVerdict {
    /// Mark it `llvm.loop.unroll.disable`: LLVM judged it too big to unroll.
    KeepRolled { unrolled_insts: u64 },
    /// Left to ptxas: its metadata decides already.
    SourceDecides,
    /// Left to ptxas: the trip count is not a constant.
    RuntimeTrips,
    /// Left to ptxas: unrolled, it would be within LLVM's own threshold, so
    /// LLVM declined it for another reason than its size (or it runs once).
    Small,
    /// Left to ptxas: unrolling can make the local array it walks
    /// registers.
    WalksLocal,
}

/// The verdict on one loop.
pub fn keep_rolled(l: &RolledLoop) -> RolledVerdict {
    if l.source != SourceUnroll::Unspecified {
        return RolledVerdict::SourceDecides;
    }
    let Some(trips) = l.trip_count else {
        return RolledVerdict::RuntimeTrips;
    };
    if l.walks_local {
        return RolledVerdict::WalksLocal;
    }
    let unrolled_insts = u64::from(trips) * u64::from(l.iteration_insts);
    if trips <= 1 || unrolled_insts <= LLVM_FULL_UNROLL_INSTS {
        return RolledVerdict::Small;
    }
    RolledVerdict::KeepRolled { unrolled_insts }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rolled(trips: Option<u32>, insts: u32) -> RolledLoop {
        RolledLoop {
            trip_count: trips,
            iteration_insts: insts,
            source: SourceUnroll::Unspecified,
            walks_local: false,
        }
    }

    #[test]
    fn a_loop_llvm_judged_too_big_is_kept_rolled() {
        // The filter's 17 taps of 55 instructions: 935 unrolled.
        assert_eq!(keep_rolled(&rolled(Some(17), 55)), RolledVerdict::KeepRolled { unrolled_insts: 935 });
    }

    #[test]
    fn within_llvms_threshold_ptxas_decides() {
        assert_eq!(keep_rolled(&rolled(Some(4), 75)), RolledVerdict::Small);
        assert_eq!(keep_rolled(&rolled(Some(4), 76)), RolledVerdict::KeepRolled { unrolled_insts: 304 });
    }

    #[test]
    fn runtime_trip_counts_and_single_trips_are_left_to_ptxas() {
        assert_eq!(keep_rolled(&rolled(None, 500)), RolledVerdict::RuntimeTrips);
        assert_eq!(keep_rolled(&rolled(Some(1), 500)), RolledVerdict::Small);
    }

    #[test]
    fn a_loop_over_a_local_array_is_left_to_ptxas() {
        let l = RolledLoop { walks_local: true, ..rolled(Some(40), 50) };
        assert_eq!(keep_rolled(&l), RolledVerdict::WalksLocal);
    }

    #[test]
    fn what_the_metadata_decides_holds() {
        for source in [SourceUnroll::Full, SourceUnroll::Other] {
            assert_eq!(
                keep_rolled(&RolledLoop { source, ..rolled(Some(17), 55) }),
                RolledVerdict::SourceDecides
            );
        }
    }
}

//! Fuzz target: the input picks a random program (`generate::fuzz_input`:
//! eight bytes of seed, then optionally three of size), which must behave the
//! same after every pass mode, and in SSA form after CSSA coalescing
//! (`nvregalloc_testkit::check_both_forms`), with every rewrite accepted by the checker. Panics with the seed, the size and the failing
//! step otherwise.
//!
//! Rejections of correct rewrites (the checker's known incompleteness, see
//! testkit/tests/semantics.rs) are tolerated unless NVREGALLOC_STRICT_CHECKER=1.
//!
//! Replay a crash with `cargo +nightly fuzz run modes artifacts/modes/<file>`;
//! a plain u64 seed `s` is the input `s.to_le_bytes()`, and can be added to
//! testkit/tests/fuzz-seeds.txt.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use nvregalloc_testkit::generate;
use nvregalloc_testkit::interp::{self, Mode};

fuzz_target!(|data: &[u8]| {
    static MODES: OnceLock<(Vec<Mode>, Vec<Mode>)> = OnceLock::new();
    let (modes, ssa_modes) =
        MODES.get_or_init(|| ([interp::modes(), interp::budget_modes()].concat(), interp::ssa_modes()));
    let (seed, size) = generate::fuzz_input(data);
    let (f, params) = generate::random_function(seed, size);
    if let Err(failure) = nvregalloc_testkit::check_both_forms(&f, &params, interp::DEFAULT_FUEL, modes, ssa_modes) {
        panic!("seed {seed} ({seed:#x}), {size:?}, params {params:?}: {failure}");
    }
});

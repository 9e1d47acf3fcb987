//! Test support for nvregalloc's core, outside the plugin: `generate` makes
//! random but valid machine functions, `interp` runs them and checks that a
//! pass's rewrite leaves their behaviour unchanged. The semantic tests
//! (tests/semantics.rs), the fuzz corpus replay (tests/fuzz_corpus.rs) and
//! the cargo-fuzz target (fuzz/) are built on them, the last two through
//! `check_both_forms`, which joins the two (here, so that neither module
//! imports the other).

pub mod generate;
pub mod interp;

use interp::{Activity, Failure, Mode};
use nvregalloc::function::Function;

/// The fuzz target's check: `f` through `modes`, and `f` in SSA form
/// (`generate::to_ssa`) through `ssa_modes`.
pub fn check_both_forms(
    f: &Function,
    params: &[u64],
    fuel: u64,
    modes: &[Mode],
    ssa_modes: &[Mode],
) -> Result<Activity, Box<Failure>> {
    let mut activity = interp::check_modes(f, params, fuel, modes)?;
    activity.add(&interp::check_modes(&generate::to_ssa(f), params, fuel, ssa_modes)?);
    Ok(activity)
}

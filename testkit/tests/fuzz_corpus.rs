//! Replays the fuzz target's seed corpus (tests/fuzz-seeds.txt) through the
//! same check as fuzz/fuzz_targets/modes.rs, so that `cargo test` covers it
//! without a nightly toolchain or cargo-fuzz. A seed that made the fuzzer
//! crash can be added to the file as a regression test.

use nvregalloc_testkit::generate;
use nvregalloc_testkit::interp::{self, Activity};

const SEEDS: &str = include_str!("fuzz-seeds.txt");

fn seeds() -> Vec<u64> {
    SEEDS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.parse().unwrap_or_else(|e| panic!("fuzz-seeds.txt: {l:?}: {e}")))
        .collect()
}

#[test]
fn the_seed_corpus_behaves_the_same_in_every_mode() {
    let (modes, ssa_modes) = ([interp::modes(), interp::budget_modes()].concat(), interp::ssa_modes());
    let seeds = seeds();
    assert!(seeds.len() >= 200, "only {} seeds", seeds.len());
    let mut total = Activity::default();
    let mut failures = Vec::new();
    for &seed in &seeds {
        // Exactly what the fuzz target does with the input `seed.to_le_bytes()`.
        let (seed, size) = generate::fuzz_input(&seed.to_le_bytes());
        let (f, params) = generate::random_function(seed, size);
        match nvregalloc_testkit::check_both_forms(&f, &params, interp::DEFAULT_FUEL, &modes, &ssa_modes) {
            Ok(activity) => total.add(&activity),
            Err(failure) => {
                failures.push(format!("seed {seed} ({seed:#x}), {size:?}, params {params:?}: {failure}"))
            }
        }
    }
    eprintln!("seed corpus: {total:?}");
    assert!(
        failures.is_empty(),
        "{} of {} seeds fail:\n{}",
        failures.len(),
        seeds.len(),
        failures.join("\n\n")
    );
}

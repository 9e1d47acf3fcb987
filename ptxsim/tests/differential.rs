//! The end-to-end oracle: every corpus kernel and a few hundred csmith
//! programs, built with stock llc and with the plugin in every mode, run in
//! the interpreter on the same inputs; every output byte must match.
//!
//! Environment: scripts/env.sh (LLVM_BIN, PLUGIN, CLANG_CUDA_FLAGS), csmith
//! on PATH; PTXSIM_CSMITH_PROGRAMS overrides the number of csmith programs.

use std::path::PathBuf;
use std::time::Instant;

use ptxsim::harness::{self, cuda_modes, fault_mode, modes, Record, Toolchain, Verdict};
use ptxsim::Error;

fn records(results: Vec<Result<Vec<Record>, Error>>) -> Vec<Record> {
    results.into_iter().flat_map(|r| r.unwrap_or_else(|e| panic!("harness failure: {e}"))).collect()
}

/// Prints the figures and every comparison that was not a plain match, then
/// fails on any difference, on 5% or more unsupported runs, and, where
/// `inputs_are_ours`, on a stock run that faults (the launch spec is wrong).
/// A csmith program whose stock run faults is one LLVM found undefined
/// behaviour in (it folded `main` into a trap or an argv[1] read); those are
/// counted and skipped.
fn check(
    set: &str,
    programs: usize,
    modes: usize,
    records: &[Record],
    started: Instant,
    inputs_are_ours: bool,
) {
    for r in records.iter().filter(|r| !matches!(r.verdict, Verdict::Same | Verdict::SamePtx)) {
        println!("{r}");
    }
    print!("{}", harness::summarize(records));
    let count = |kind: &str| records.iter().filter(|r| r.verdict.kind() == kind).count();
    let untouched = records.iter().filter(|r| r.untouched).count();
    let compared = records
        .iter()
        .filter(|r| r.mode == harness::modes()[0].0 && matches!(r.verdict, Verdict::Same | Verdict::SamePtx))
        .count();
    let (total, unsupported) = (records.len(), count("unsupported"));
    println!(
        "{set}: {programs} programs ({compared} functions compared in every mode), {} modes, {total} comparisons: {} ran and matched, {} identical PTX, \
         {unsupported} unsupported ({:.1}%), {} timeouts, {} stock faults, {} DIFFERENCES; \
         the plugin left the function unchanged in {untouched}; {:.0} s",
        modes,
        count("same"),
        count("same-ptx"),
        100.0 * unsupported as f64 / total.max(1) as f64,
        count("timeout"),
        count("stock-fault"),
        count("DIFFER"),
        started.elapsed().as_secs_f64()
    );
    let differ: Vec<String> =
        records.iter().filter(|r| matches!(r.verdict, Verdict::Differ(_))).map(|r| r.to_string()).collect();
    assert!(differ.is_empty(), "{set}: stock and plugin builds differ:\n{}", differ.join("\n"));
    if inputs_are_ours {
        assert_eq!(count("stock-fault"), 0, "{set}: stock runs fault: fix the inputs");
    }
    assert!(unsupported * 20 < total, "{set}: {unsupported} of {total} runs unsupported");
}

#[test]
fn corpus_kernels_in_every_mode() {
    let started = Instant::now();
    let tc = Toolchain::from_env().expect("toolchain (source scripts/env.sh)");
    let files = harness::corpus_files(&tc).unwrap();
    let recs = records(harness::run_parallel(&files, |cu, dir| {
        harness::corpus_file(&tc, cu, dir, modes(), cuda_modes())
    }));
    let modes = harness::modes().len() + cuda_modes().len();
    let functions = recs.len() / modes;
    assert!(functions >= 60, "only {functions} kernels ran");
    check("corpus", files.len(), modes, &recs, started, true);
}

#[test]
fn csmith_programs_in_every_mode() {
    let started = Instant::now();
    let tc = Toolchain::from_env().expect("toolchain (source scripts/env.sh)");
    // About 8% of programs time out or are undefined; 340 seeds leave over
    // 300 that every mode runs and compares.
    let n: u64 = std::env::var("PTXSIM_CSMITH_PROGRAMS").ok().and_then(|v| v.parse().ok()).unwrap_or(340);
    let seeds: Vec<u64> = (1..=n).collect();
    let recs =
        records(harness::run_parallel(&seeds, |&seed, dir| harness::csmith_program(&tc, seed, dir, modes())));
    check("csmith", seeds.len(), modes().len(), &recs, started, false);
}

/// The plugin's test-only fault merges two interfering registers; with its
/// checker off the broken PTX gets through, and the harness must see it: as
/// a fault the stock build does not have, and on compact_scan_counts as
/// silently wrong output bytes.
#[test]
fn injected_fault_is_caught() {
    let tc = Toolchain::from_env().expect("toolchain (source scripts/env.sh)");
    let files: Vec<PathBuf> =
        ["reduce_shared_tree.cu", "scan_inclusive_hillis_steele.cu", "stream_compaction_scan.cu"]
            .iter()
            .map(|f| tc.root.join("tests/kernels").join(f))
            .collect();
    let recs = records(harness::run_parallel(&files, |cu, dir| {
        harness::corpus_file(&tc, cu, dir, &[fault_mode()], &[])
    }));
    let caught: Vec<&Record> = recs.iter().filter(|r| matches!(r.verdict, Verdict::Differ(_))).collect();
    for r in &caught {
        println!("caught: {r}");
    }
    let wrong_bytes = caught
        .iter()
        .filter(|r| matches!(&r.verdict, Verdict::Differ(why) if !why.starts_with("only the plugin")))
        .count();
    assert!(wrong_bytes > 0, "the injected fault never showed as different output bytes: {recs:?}");
}

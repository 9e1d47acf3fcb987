//! Fuzz target: the input's bytes are the IR generator's decisions (one per
//! byte, see fuzz-ir/src/choices.rs); the kernel they make goes through the
//! real NVPTX backend stock and with the plugin in every mode, and every mode
//! must pass the machine verifier and ptxas and run like stock in ptxsim.
//!
//!   source scripts/env.sh && cd fuzz && cargo +nightly fuzz run ir
//!
//! Needs PLUGIN and PTXAS (scripts/env.sh) and the plugin built.

#![no_main]

use libfuzzer_sys::fuzz_target;
use nvregalloc_fuzz_ir::{check, Tools};
use ptxsim::harness::modes;

fuzz_target!(|data: &[u8]| {
    let tools = Tools::from_env().expect("PLUGIN and PTXAS set");
    let scratch = std::env::temp_dir().join(format!("fuzz-ir-target-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("a scratch folder");
    let tape: Vec<u32> = data.iter().map(|&b| u32::from(b)).collect();
    let report = check(&tools, &tape, modes(), &scratch);
    if let Some((mode, finding)) = report.findings.first() {
        panic!("mode {mode}: {}: {}\n{}", finding.kind(), finding.message(), report.ir);
    }
});

//! `-nvregalloc-report=FILE.json`: per function and pass, the figures the
//! pass reported, the time each phase took, and (after coloring) a bound on
//! occupancy for the target SM. The whole document is made anew after every
//! function, and the FFI boundary writes it, so the file is complete
//! whenever the compiler stops.
//!
//! Occupancy is `occupancy`'s, NVIDIA's calculation, rather than the notes'
//! (which give 64 KB / 128 KB register files; every SM from sm_70 to sm_120
//! has 65536 32-bit registers): registers per thread are counted from the
//! colors as B32 + B16 + 2 * B64 + 4 * B128 (predicates live elsewhere), and
//! the warps the register file holds are capped by the SM's limit.
//! ptxas re-allocates registers and usually needs more than the PTX colors
//! (it schedules for latency first), so the count is a lower bound and the
//! warps an upper bound; `scripts/report` shows ptxas's own figures next to
//! it when it finds the PTX.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::{json, Map, Value};

use crate::pass::Pass;
use crate::rewrite::PassOutcome;

static REPORTS: Mutex<BTreeMap<PathBuf, Map<String, Value>>> = Mutex::new(BTreeMap::new());

/// Adds `pass`'s outcome on `function` to the document bound for `path`, and
/// returns the whole document as it now stands.
pub fn record(path: &Path, cpu: &str, function: &str, pass: Pass, outcome: &PassOutcome) -> String {
    let figures: Map<String, Value> =
        outcome.stats.iter().map(|s| (s.name.to_string_lossy().into_owned(), json!(s.value))).collect();
    let times: Map<String, Value> = outcome
        .phases
        .0
        .iter()
        .map(|(phase, t)| ((*phase).to_owned(), json!((t.as_secs_f64() * 1e6).round() / 1e3)))
        .collect();
    let mut entry = json!({ "figures": figures, "time_ms": times });
    if let Some(method) = outcome.method {
        entry["method"] = json!(method.name());
    }
    if let Some(note) = &outcome.note {
        entry["note"] = json!(note);
    }
    if pass == Pass::Color {
        let colors =
            |class: &str| figures.get(&format!("colors-{class}")).and_then(Value::as_u64).unwrap_or(0) as u32;
        let registers = colors("B32") + colors("B16") + 2 * colors("B64") + 4 * colors("B128");
        let gpu = crate::occupancy::gpu_or_sm90(cpu);
        let warps = gpu.register_limited_warps(registers);
        let fraction = f64::from(warps) / f64::from(gpu.max_warps_per_sm);
        entry["occupancy"] = json!({
            "basis": "PTX colors, which ptxas re-allocates",
            "registers_per_thread_at_least": registers,
            "warps_per_sm_at_most": warps,
            "fraction_at_most": (fraction * 1000.0).round() / 1000.0,
        });
    }
    let mut reports = REPORTS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let document = reports.entry(path.to_owned()).or_default();
    document.insert("target".into(), json!(cpu));
    let functions = document.entry("functions").or_insert_with(|| json!({}));
    functions.as_object_mut().expect("an object").entry(function).or_insert_with(|| json!({}))[pass.name()] =
        entry;
    serde_json::to_string_pretty(&Value::Object(document.clone())).expect("a JSON value prints") + "\n"
}

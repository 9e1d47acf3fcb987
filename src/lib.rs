//! nvregalloc's core: register coalescing and coloring for NVPTX machine
//! functions, with no dependency on LLVM. The C++ shim (cpp-shim/) flattens
//! each MachineFunction into the `function` abstraction through the C ABI in
//! `ffi`, and applies the `rewrite` that comes back.
//!
//! Phases, one module each: `liveness`, `interference`, `pressure`
//! (recomputing cheap values where registers cost warps), `cssa` (PHI
//! coalescing before PHI elimination), `coalesce` (conservative coalescing),
//! `color` (Briggs optimistic coloring) and `linear_scan` (its graph-free
//! stand-in) behind `rename` (the rename pass), `budget` (coloring into N
//! registers with spilling), `spill` (spill code and slots), `spill_cost`;
//! `promote` judges the middle end's loops and calls over local arrays; `checker` proves every rewrite independently; `driver`
//! strings them together for one function. The random-program generator and
//! the interpreter the semantic tests use live in `testkit/`, outside the
//! plugin.

#[allow(non_upper_case_globals, non_camel_case_types, non_snake_case, dead_code)]
mod abi {
    include!(concat!(env!("OUT_DIR"), "/abi.rs"));
}

// What the other crates of the workspace (the tuner, testkit, the fuzzers)
// use; the rest is the plugin's own.
pub mod checker;
pub mod choices;
pub mod driver;
pub mod function;
pub mod interference;
pub mod liveness;
pub mod occupancy;
pub mod options;
pub mod pass;
pub mod plugin;
pub mod pressure;
pub mod rewrite;

mod asm;
mod budget;
mod coalesce;
mod color;
mod coloring;
mod cssa;
mod dot;
mod ffi;
mod forms_judge;
mod keep_rolled;
mod linear_scan;
mod promote;
mod rename;
mod report;
mod spill;
mod spill_cost;
mod union_find;

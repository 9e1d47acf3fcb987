//! Random LLVM IR kernels through the real NVPTX backend with the plugin in
//! every mode (see `scripts/fuzz-ir`). A program is a tape of decisions
//! (`choices`); `generate` turns it into a kernel, `compile` builds it in
//! process, and `check` judges each mode's build against stock's: machine
//! verifier, crashes, ptxas, and the ptxsim run's bytes.

pub mod choices;
pub mod compile;
pub mod generate;
pub mod nan;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use ptxsim::harness::{judge, Verdict, STEP_LIMIT};
use ptxsim::{Arg, Launch};

use crate::choices::Choices;
use crate::compile::{compile, target_machine};
use crate::generate::{
    generate, Outputs, ACC_BYTES, IN_BYTES, KERNEL, N, OUT_BYTES, TABLE_ELEMENTS, THREADS,
};
use crate::nan::canonical_nans;

/// Where the outside tools are.
pub struct Tools {
    pub plugin: PathBuf,
    pub ptxas: PathBuf,
    /// LLVM 22's opt, for `MIDDLE_END_MODES`.
    pub opt: PathBuf,
}

impl Tools {
    /// The plugin as ptxsim's harness finds it (`PLUGIN`, else the release
    /// build), and `PTXAS`; scripts/env.sh exports both.
    pub fn from_env() -> Result<Tools, String> {
        let plugin = ptxsim::harness::Toolchain::from_env().map_err(|e| e.to_string())?.plugin;
        let ptxas = std::env::var_os("PTXAS").ok_or("PTXAS is not set: source scripts/env.sh")?;
        let llvm_bin = std::env::var_os("LLVM_BIN").unwrap_or_else(|| "/usr/lib/llvm-22/bin".into());
        Ok(Tools { plugin, ptxas: PathBuf::from(ptxas), opt: PathBuf::from(llvm_bin).join("opt") })
    }
}

/// What one mode's build of one program came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    Crash(String),
    Verifier(String),
    /// ptxas rejected the plugin's PTX (stock's it accepted).
    Ptxas(String),
    /// ptxsim saw different bytes, or only the plugin build failed to run.
    Difference(String),
}

impl Finding {
    pub fn kind(&self) -> &'static str {
        match self {
            Finding::Crash(_) => "crash",
            Finding::Verifier(_) => "verifier",
            Finding::Ptxas(_) => "ptxas",
            Finding::Difference(_) => "difference",
        }
    }

    pub fn message(&self) -> &str {
        match self {
            Finding::Crash(m) | Finding::Verifier(m) | Finding::Ptxas(m) | Finding::Difference(m) => m,
        }
    }
}

/// The outcome of checking one program.
#[derive(Default, Debug)]
pub struct Report {
    /// Stock itself failed (a generator bug, or LLVM's): nothing to compare.
    pub stock_failure: Option<String>,
    /// LLVM's machine verifier rejects stock's build, so no build was verified.
    pub stock_unverifiable: bool,
    /// Per mode: the finding, if any.
    pub findings: Vec<(String, Finding)>,
    /// ptxsim comparisons by verdict kind ("same", "same-ptx", ...).
    pub verdicts: Vec<(String, &'static str)>,
    /// The optimized IR that was compiled, for a reproducer.
    pub ir: String,
    /// The generated IR before O2, for `MIDDLE_END_MODES`' reproducers.
    pub unoptimized_ir: String,
}

/// The plugin as it comes, its middle-end passes included
/// (nvregalloc-promote-locals unrolls loops over local arrays and inlines
/// calls taking their address): the generated IR goes through `opt
/// -load-pass-plugin -passes=default<O2>` with these options, then the
/// backend with the plugin, and is judged against stock's O2 and backend.
/// The second keeps rolled, for selects, every loop over a small array
/// that is not shorter than its selects: the generator's loops are a few
/// instructions per element, too short for the default's 8, so this is
/// where the rolled loops' selects run.
pub const MIDDLE_END_MODES: [(&str, &[&str]); 2] = [
    ("default, middle end", &[]),
    ("middle end, loops rolled for selects", &["-nvregalloc-promote-rolled-insts-per-select=1"]),
];

/// The opt options of `mode`, if it is one of `MIDDLE_END_MODES`.
pub fn middle_end_options(mode: &str) -> Option<&'static [&'static str]> {
    MIDDLE_END_MODES.iter().find(|&&(name, _)| name == mode).map(|&(_, options)| options)
}

/// A middle-end mode's module: `unoptimized` through opt's O2 with the
/// plugin and `options`.
fn middle_end_module<'ctx>(
    context: &'ctx Context,
    tools: &Tools,
    unoptimized: &str,
    options: &[&str],
    scratch: &Path,
) -> Result<Module<'ctx>, Finding> {
    let (input, output) = (scratch.join("middle-end.in.ll"), scratch.join("middle-end.out.ll"));
    std::fs::write(&input, unoptimized).map_err(|e| Finding::Crash(e.to_string()))?;
    let out = Command::new(&tools.opt)
        .arg(format!("-load-pass-plugin={}", tools.plugin.display()))
        .arg("-passes=default<O2>")
        .args(options)
        .args(["-S", "-o"])
        .args([&output, &input])
        .output()
        .map_err(|e| Finding::Crash(format!("{}: {e}", tools.opt.display())))?;
    if !out.status.success() {
        let tail: Vec<&str> = std::str::from_utf8(&out.stderr).unwrap_or("").lines().rev().take(12).collect();
        return Err(Finding::Crash(format!(
            "opt: {}",
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        )));
    }
    let buffer = inkwell::memory_buffer::MemoryBuffer::create_from_file(&output)
        .map_err(|e| Finding::Crash(e.to_string()))?;
    context.create_module_from_ir(buffer).map_err(|e| Finding::Crash(format!("opt's output: {e}")))
}

/// The kernel a tape describes, optimized by LLVM's O2 pipeline (as clang's
/// output is before llc sees it).
pub fn build_module<'ctx>(context: &'ctx Context, tape: &[u32]) -> Result<Module<'ctx>, String> {
    let (module, _) = generate(context, &mut Choices::replay(tape.to_vec()));
    module
        .verify()
        .map_err(|e| format!("the generator made invalid IR: {e}\n{}", module.print_to_string()))?;
    module
        .run_passes("default<O2>", &target_machine(), PassBuilderOptions::create())
        .map_err(|e| format!("O2 failed: {e}"))?;
    Ok(module)
}

fn ptxas(tools: &Tools, ptx: &str, scratch: &Path) -> Result<(), String> {
    let file = scratch.join("check.ptx");
    std::fs::write(&file, ptx).map_err(|e| e.to_string())?;
    let out = Command::new(&tools.ptxas)
        .args(["-arch=sm_90", "-c", "-o"])
        .arg(scratch.join("check.o"))
        .arg(&file)
        .output()
        .map_err(|e| format!("{}: {e}", tools.ptxas.display()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).lines().take(6).collect::<Vec<_>>().join("\n"))
    }
}

/// `out`'s place among the kernel's arguments (`launch_args`).
const OUT_BUFFER: usize = 1;

/// The inputs every run gets: the same for every build of a program.
fn launch_args() -> (Vec<Arg>, Launch) {
    let mut rng = ptxsim::harness::Rng::new(0x5eed);
    let input: Vec<u8> = (0..IN_BYTES * THREADS as usize).map(|_| rng.next_u64() as u8).collect();
    let args = vec![
        Arg::Buffer(input),
        Arg::Buffer(vec![0; OUT_BYTES * THREADS as usize]),
        Arg::Buffer(vec![0; ACC_BYTES]),
        Arg::Scalar(N.to_le_bytes().to_vec()),
        Arg::Scalar((0..TABLE_ELEMENTS * 4).map(|_| rng.next_u64() as u8).collect()),
    ];
    let launch = Launch {
        grid: [1, 1, 1],
        block: [THREADS, 1, 1],
        dynamic_shared: 0,
        step_limit: STEP_LIMIT,
        register_fill: 0,
    };
    (args, launch)
}

/// Runs a build; stock's twice, with registers zeroed and filled, to tell
/// undefined outputs (`harness::judge`).
fn simulate(ptx: &str, plugin_build: bool, register_fill: u64) -> Result<ptxsim::Outcome, ptxsim::Error> {
    let module = ptxsim::parse(ptx)?;
    let (args, mut launch) = launch_args();
    if plugin_build {
        launch.step_limit *= 2;
    }
    launch.register_fill = register_fill;
    ptxsim::run(&module, KERNEL, &args, &launch)
}

/// A verdict that counts NaN for NaN apart: `Verdict::Same` and
/// "nan-payload" where the plugin's build differs from stock's only in the
/// bits of NaNs it stores where stock stores NaNs too (`nan`); else
/// `judge`'s verdict and its kind.
fn judge_outputs(
    stock: &Result<ptxsim::Outcome, ptxsim::Error>,
    stock_refilled: &Result<ptxsim::Outcome, ptxsim::Error>,
    plugin: &Result<ptxsim::Outcome, ptxsim::Error>,
    outputs: &Outputs,
) -> (Verdict, &'static str) {
    let verdict = judge(stock, stock_refilled, plugin);
    let (Verdict::Differ(_), Ok(a), Ok(refilled), Ok(b)) = (&verdict, stock, stock_refilled, plugin) else {
        let kind = verdict.kind();
        return (verdict, kind);
    };
    let canonical = |outcome: &ptxsim::Outcome| {
        let mut outcome = outcome.clone();
        if let Some(out) = outcome.buffers.get_mut(OUT_BUFFER) {
            *out = canonical_nans(out, outputs).0;
        }
        Ok(outcome)
    };
    match judge(&canonical(a), &canonical(refilled), &canonical(b)) {
        Verdict::Same => (Verdict::Same, "nan-payload"),
        _ => {
            let kind = verdict.kind();
            (verdict, kind)
        }
    }
}

/// Builds the program of `tape` stock and in each of `modes`, and judges
/// each build against stock's.
pub fn check(tools: &Tools, tape: &[u32], modes: &[(&str, &[&str])], scratch: &Path) -> Report {
    let mut report = Report::default();
    let context = Context::create();
    let (unoptimized, outputs) = generate(&context, &mut Choices::replay(tape.to_vec()));
    report.unoptimized_ir = unoptimized.print_to_string().to_string();
    let module = match build_module(&context, tape) {
        Ok(m) => m,
        Err(e) => {
            report.stock_failure = Some(e);
            return report;
        }
    };
    report.ir = module.print_to_string().to_string();
    // LLVM 22's own verifier rejects some NVPTX code (MOV64_PARAM of a
    // byval parameter): then every build goes without it, as stock must.
    let mut verify = true;
    let mut stock = compile(&module, None, &[], verify, scratch);
    if let Err(Finding::Verifier(_)) = stock {
        report.stock_unverifiable = true;
        verify = false;
        stock = compile(&module, None, &[], verify, scratch);
    }
    let stock = match stock {
        Ok(ptx) => ptx,
        Err(f) => {
            report.stock_failure = Some(format!("stock {}: {}", f.kind(), f.message()));
            return report;
        }
    };
    if let Err(e) = ptxas(tools, &stock, scratch) {
        report.stock_failure = Some(format!("ptxas rejects stock's PTX: {e}"));
        return report;
    }
    let stock_run = simulate(&stock, false, 0);
    let stock_refilled = simulate(&stock, false, ptxsim::harness::UNDEFINED_FILL);
    let mut seen: HashMap<String, Result<(Verdict, &'static str), String>> = HashMap::new();
    for &(mode, flags) in modes {
        let built = if let Some(options) = middle_end_options(mode) {
            middle_end_module(&context, tools, &report.unoptimized_ir, options, scratch)
                .and_then(|m| compile(&m, Some(&tools.plugin), flags, verify, scratch))
        } else {
            compile(&module, Some(&tools.plugin), flags, verify, scratch)
        };
        let ptx = match built {
            Ok(ptx) => ptx,
            Err(finding) => {
                report.findings.push((mode.to_string(), finding));
                continue;
            }
        };
        if ptx == stock {
            report.verdicts.push((mode.to_string(), Verdict::SamePtx.kind()));
            continue;
        }
        // Modes often agree with each other: each distinct PTX is checked
        // once (ptxas's complaint, or the run's verdict).
        let checked = seen.entry(ptx).or_insert_with_key(|ptx| {
            ptxas(tools, ptx, scratch)
                .map(|()| judge_outputs(&stock_run, &stock_refilled, &simulate(ptx, true, 0), &outputs))
        });
        let (verdict, kind) = match checked {
            Ok(judged) => judged.clone(),
            Err(e) => {
                report.findings.push((mode.to_string(), Finding::Ptxas(e.clone())));
                continue;
            }
        };
        if let Verdict::Differ(why) = &verdict {
            report.findings.push((mode.to_string(), Finding::Difference(why.clone())));
        }
        report.verdicts.push((mode.to_string(), kind));
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::Ty;

    /// A run whose `out` holds `half` in each thread's second field and
    /// `int` in its first.
    fn run(half: u16, int: u32) -> Result<ptxsim::Outcome, ptxsim::Error> {
        let mut out = vec![0u8; OUT_BYTES * THREADS as usize];
        for thread in out.chunks_mut(OUT_BYTES) {
            thread[..4].copy_from_slice(&int.to_le_bytes());
            thread[16..18].copy_from_slice(&half.to_le_bytes());
        }
        Ok(ptxsim::Outcome { buffers: vec![Vec::new(), out], globals: Vec::new(), ret: Vec::new(), steps: 0 })
    }

    #[test]
    fn a_nan_for_a_nan_is_counted_apart_and_a_real_difference_still_differs() {
        let outputs = Outputs { types: vec![Ty::I32, Ty::F16] };
        // Seed 7000000's program 84: stock's unfolded code stores the GPU's
        // NaN, the plugin's folded one LLVM's.
        let stock = run(0xfe00, 7);
        let judged = |plugin| judge_outputs(&stock, &stock, &plugin, &outputs);
        assert_eq!(judged(run(0x7e00, 7)), (Verdict::Same, "nan-payload"));
        assert_eq!(judged(run(0xfe00, 7)), (Verdict::Same, "same"));
        assert_eq!(judged(run(0x3c00, 7)).1, "DIFFER");
        assert_eq!(judged(run(0x7e00, 8)).1, "DIFFER");
    }
}

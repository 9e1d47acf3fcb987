//! scripts/fuzz-ir: random LLVM IR kernels through llc's NVPTX backend, stock
//! and with the plugin in every mode; see the README ("The IR fuzzer").
//!
//!   fuzz-ir --seed S --programs N [--first I] [--jobs J] [--save DIR] [--fault] [--keep-ir]
//!
//! Program I of seed S is the same kernel on every machine. Each failure is
//! shrunk (fewer and simpler generator decisions) and saved under DIR as a
//! lit test. The last line reads
//! `programs=N crashes=C verifier=V ptxas=P differences=D`; the exit status
//! is non-zero if any of them is.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use nvregalloc_fuzz_ir::choices::{shrink, Choices};
use nvregalloc_fuzz_ir::generate::generate;
use nvregalloc_fuzz_ir::{check, middle_end_options, Finding, Tools, MIDDLE_END_MODES};
use ptxsim::harness::{fault_mode, modes};

struct Args {
    seed: u64,
    first: u64,
    programs: u64,
    jobs: u64,
    save: PathBuf,
    fault: bool,
    /// Write each program's optimized IR to the save folder.
    keep_ir: bool,
}

const USAGE: &str =
    "usage: fuzz-ir --seed S --programs N [--first I] [--jobs J] [--save DIR] [--fault] [--keep-ir]";
/// Candidate tapes a shrink may try.
const SHRINK_BUDGET: usize = 400;
/// The last line's figures, and the `Finding::kind` each counts.
const FINDINGS: [(&str, &str); 4] =
    [("crashes", "crash"), ("verifier", "verifier"), ("ptxas", "ptxas"), ("differences", "difference")];

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        seed: 1,
        first: 0,
        programs: 100,
        jobs: 1,
        save: PathBuf::from("build/fuzz-ir"),
        fault: false,
        keep_ir: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value\n{USAGE}"));
        let number = |v: String| v.parse::<u64>().map_err(|e| format!("{flag} {v}: {e}"));
        match flag.as_str() {
            "--seed" => a.seed = number(value()?)?,
            "--first" => a.first = number(value()?)?,
            "--programs" => a.programs = number(value()?)?,
            "--jobs" => a.jobs = number(value()?)?.max(1),
            "--save" => a.save = PathBuf::from(value()?),
            "--fault" => a.fault = true,
            "--keep-ir" => a.keep_ir = true,
            _ => return Err(format!("unknown argument {flag}\n{USAGE}")),
        }
    }
    Ok(a)
}

/// Program `index` of `seed`: its own stream of decisions.
fn program_seed(seed: u64, index: u64) -> u64 {
    seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ index.wrapping_mul(0xbf58_476d_1ce4_e5b9)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let counts = if args.jobs > 1 { run_jobs(&args) } else { run(&args) };
    let counts = match counts {
        Ok(c) => c,
        Err(e) => {
            eprintln!("fuzz-ir: {e}");
            return ExitCode::from(2);
        }
    };
    let get = |k: &str| counts.get(k).copied().unwrap_or(0);
    // Every count under its own name (what --jobs adds up), then the summary.
    println!("counts: {}", counts.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" "));
    let findings: Vec<String> =
        FINDINGS.iter().map(|(label, kind)| format!(" {label}={}", get(kind))).collect();
    println!("programs={}{}", get("programs"), findings.concat());
    if FINDINGS.iter().any(|(_, kind)| get(kind) > 0) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Splits the programs over `jobs` processes of this same program and adds
/// up their counts.
fn run_jobs(args: &Args) -> Result<BTreeMap<String, u64>, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let per = args.programs.div_ceil(args.jobs);
    let mut children = Vec::new();
    for j in 0..args.jobs {
        let first = args.first + j * per;
        let programs = per.min((args.first + args.programs).saturating_sub(first));
        if programs == 0 {
            continue;
        }
        let mut cmd = Command::new(&exe);
        cmd.args(["--seed", &args.seed.to_string(), "--first", &first.to_string()])
            .args(["--programs", &programs.to_string(), "--save"])
            .arg(&args.save)
            .stdout(Stdio::piped());
        if args.fault {
            cmd.arg("--fault");
        }
        if args.keep_ir {
            cmd.arg("--keep-ir");
        }
        children.push(cmd.spawn().map_err(|e| e.to_string())?);
    }
    let mut total = BTreeMap::new();
    for child in children {
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        let text = String::from_utf8_lossy(&out.stdout);
        let mut lines: Vec<&str> = text.lines().collect();
        let counts = lines.iter().rposition(|l| l.starts_with("counts: "));
        let Some(counts) = counts.map(|at| lines.split_off(at)[0].trim_start_matches("counts: ")) else {
            return Err(format!("a job ended without its counts ({})", out.status));
        };
        for line in lines {
            println!("{line}");
        }
        for pair in counts.split(' ').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').ok_or_else(|| format!("bad count {pair}"))?;
            *total.entry(k.to_string()).or_insert(0) += v.parse::<u64>().map_err(|e| e.to_string())?;
        }
    }
    Ok(total)
}

fn run(args: &Args) -> Result<BTreeMap<String, u64>, String> {
    let tools = Tools::from_env()?;
    let scratch = std::env::temp_dir().join(format!("fuzz-ir-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
    let fault = [fault_mode()];
    // A middle-end mode's options go to opt; llc gets none.
    let middle_end = MIDDLE_END_MODES.iter().map(|&(name, _)| (name, &[] as &[&str]));
    let every: Vec<(&str, &[&str])> = modes().iter().copied().chain(middle_end).collect();
    let modes: &[(&str, &[&str])] = if args.fault { &fault } else { &every };
    let mut counts = BTreeMap::new();
    for index in args.first..args.first + args.programs {
        *counts.entry("programs".to_string()).or_insert(0) += 1;
        let tape = {
            let mut choices = Choices::random(program_seed(args.seed, index));
            let context = inkwell::context::Context::create();
            let _ = generate(&context, &mut choices);
            choices.into_tape()
        };
        let report = check(&tools, &tape, modes, &scratch);
        if args.keep_ir {
            let file = args.save.join(format!("program-s{}-p{index}.ll", args.seed));
            std::fs::create_dir_all(&args.save)
                .and_then(|_| std::fs::write(file, &report.ir))
                .map_err(|e| e.to_string())?;
        }
        if let Some(why) = &report.stock_failure {
            *counts.entry("stock-failures".to_string()).or_insert(0) += 1;
            println!("program {index}: stock fails, not compared: {why}");
            continue;
        }
        if report.stock_unverifiable {
            *counts.entry("stock-unverifiable".to_string()).or_insert(0) += 1;
        }
        for (_, verdict) in &report.verdicts {
            *counts.entry(verdict.to_string()).or_insert(0) += 1;
        }
        for (mode, finding) in &report.findings {
            *counts.entry(finding.kind().to_string()).or_insert(0) += 1;
            let saved = save_reproducer(&tools, args, index, &tape, mode, finding, modes, &scratch);
            println!(
                "program {index} (--seed {} --first {index} --programs 1), mode {mode}: {}: {}\n  reproducer: {}",
                args.seed,
                finding.kind(),
                finding.message().lines().next().unwrap_or(""),
                saved
            );
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(counts)
}

/// Shrinks the program to the fewest decisions that still fail `mode` the
/// same way, and writes it as a lit test; returns where, or why not.
#[allow(clippy::too_many_arguments)]
fn save_reproducer(
    tools: &Tools,
    args: &Args,
    index: u64,
    tape: &[u32],
    mode: &str,
    finding: &Finding,
    modes: &[(&str, &[&str])],
    scratch: &Path,
) -> String {
    let (name, flags) = *modes.iter().find(|(m, _)| *m == mode).expect("a mode that ran");
    let one = [(name, flags)];
    let fails = |t: &[u32]| {
        let r = check(tools, t, &one, scratch);
        r.stock_failure.is_none() && r.findings.iter().any(|(_, f)| f.kind() == finding.kind())
    };
    let small = shrink(tape.to_vec(), SHRINK_BUDGET, fails);
    let report = check(tools, &small, &one, scratch);
    let message = report.findings.first().map_or(finding.message(), |(_, f)| f.message()).to_string();
    let mut text = format!(
        "; Found by scripts/fuzz-ir --seed {} --first {index} --programs 1: mode '{mode}', {}; shrunk from {} to {} decisions.\n",
        args.seed,
        finding.kind(),
        tape.len(),
        small.len()
    );
    for line in message.lines().take(6) {
        text.push_str(&format!("; {line}\n"));
    }
    text.push_str(&format!("; Decisions: {small:?}\n"));
    let middle_end = middle_end_options(mode);
    if let Some(options) = middle_end {
        text.push_str(&format!(
            "; RUN: %opt_plugin -passes='default<O2>' {} %s -S -o %t.ll\n",
            options.join(" ")
        ));
        text.push_str("; RUN: %llc_plugin -verify-machineinstrs %t.ll -o %t.ptx\n");
    } else {
        text.push_str(&format!(
            "; RUN: %llc_plugin -verify-machineinstrs {} %s -o %t.ptx\n",
            flags.join(" ")
        ));
    }
    text.push_str("; RUN: %if cuda %{ %ptxas -arch=sm_90 -c %t.ptx -o %t.o %}\n\n");
    text.push_str(if middle_end.is_some() { &report.unoptimized_ir } else { &report.ir });
    let mode_name: String = mode.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    let file = args.save.join(format!("fuzz-ir-s{}-p{index}-{mode_name}-{}.ll", args.seed, finding.kind()));
    match std::fs::create_dir_all(&args.save).and_then(|_| std::fs::write(&file, text)) {
        Ok(()) => file.display().to_string(),
        Err(e) => format!("not saved: {e}"),
    }
}

//! The compiler launcher: for a compile it can tune, per GPU, the choices
//! come from the cache or from a search; then the command runs once with
//! the plugin and the chosen options. Anything else, and any compile whose
//! tuning fails, runs unchanged: the tuner never breaks a build it cannot
//! improve.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use nvregalloc::choices::{FunctionChoices, OptionsFile, Section};
use serde::{Deserialize, Serialize};

use crate::cache::{Cache, Event, Key, Lookup};
use crate::command::{self, Compile};
use crate::figures;
use crate::objective::{Judge, Objective};
use crate::report::{warn, GpuReport, KernelReport, Report};
use crate::search::{self, Built, Fidelity, Search};
use nvregalloc::occupancy;

/// Everything the command line sets.
pub struct Settings {
    pub jobs: usize,
    pub objective: Objective,
    pub loop_weight: f64,
    pub local_weight: f64,
    /// The fraction of profit a choice must gain over a kernel's base.
    pub min_gain: f64,
    /// Seconds of tuning per compile and GPU (`--budget`): past it no
    /// further candidate build or cap round starts.
    pub budget: Option<f64>,
    pub saturating_warps: Option<u32>,
    pub cache: Option<Cache>,
    pub plugin: PathBuf,
    pub ptxas: Option<PathBuf>,
    pub cuobjdump: Option<PathBuf>,
    pub report: Option<PathBuf>,
    pub table: bool,
    pub options_out: Option<PathBuf>,
    pub measure: Option<crate::measure::Measure>,
}

/// A cache entry: one GPU's options section and report; where the budget
/// cut the search, the candidates it built, from which a later compile of
/// the same key tunes further.
#[derive(Serialize, Deserialize)]
struct Entry {
    section: String,
    report: GpuReport,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    partial: Option<BTreeMap<String, Built>>,
}

/// Runs `command`, tuned where it can be; returns its exit status.
pub fn launch(settings: &Settings, command: &[String]) -> Result<ExitStatus, String> {
    let compile = match command::classify(command, command::device_gpus) {
        Ok(compile) => compile,
        Err(why) => {
            tracing::debug!("runs unchanged: {why}");
            return run_unchanged(command);
        }
    };
    let tools = match Tools::find(settings, &compile) {
        Ok(tools) => tools,
        Err(why) => {
            warn(format!("{why}; compiling without tuning"));
            return run_unchanged(command);
        }
    };
    let scratch = tempfile::Builder::new().prefix("nvregalloc-tune-").tempdir().map_err(|e| e.to_string())?;
    let mut sections = Vec::new();
    let mut report =
        Report { source: compile.source().display().to_string(), gpus: Vec::new(), measured: None };
    for gpu in compile.gpus() {
        match tune_gpu(settings, &tools, &compile, &gpu, scratch.path()) {
            Ok((section, gpu_report)) => {
                sections.push(section);
                report.gpus.push(gpu_report);
            }
            Err(why) => {
                warn(format!("{}: {gpu}: {why}; stock's choices for it", compile.source().display()));
                let stock =
                    Section { gpu: Some(gpu.clone()), others: FunctionChoices::stock(), functions: vec![] };
                sections.push(stock.to_text());
            }
        }
    }
    let text = sections.concat();
    let header = format!(
        "nvregalloc per-function choices for {}, written by nvregalloc-tune (objective {:?})",
        compile.source().display(),
        settings.objective
    );
    let options_text = OptionsFile::write(&header, &[]) + &text;
    let options = scratch.path().join("chosen.nvra");
    std::fs::write(&options, &options_text).map_err(|e| e.to_string())?;
    if let Some(measure) = &settings.measure {
        // Stock's and the default's builds beside the tuned one: timings
        // judge against both, as the objective does.
        let everywhere = |label: &str, choices: FunctionChoices| -> Result<PathBuf, String> {
            let path = scratch.path().join(format!("{label}.nvra"));
            let section = Section { gpu: None, others: choices, functions: vec![] };
            std::fs::write(&path, OptionsFile::write(label, &[section])).map_err(|e| e.to_string())?;
            Ok(path)
        };
        let stock = everywhere("stock", FunctionChoices::stock())?;
        let default = everywhere("default", FunctionChoices::plugin_default())?;
        let (winner, measured) = measure.choose(
            &compile,
            &tools.plugin,
            &[("stock", &stock), ("default", &default), ("tuned", &options)],
        )?;
        report.measured = Some(measured);
        match winner.as_str() {
            "stock" => std::fs::copy(&stock, &options).map(drop).map_err(|e| e.to_string())?,
            "default" => std::fs::copy(&default, &options).map(drop).map_err(|e| e.to_string())?,
            _ => {}
        }
    }
    if let Some(out) = &settings.options_out {
        // After --measure: its winner's choices.
        std::fs::copy(&options, out).map_err(|e| format!("{}: {e}", out.display()))?;
    }
    write_report(settings, &report)?;
    let status = compile
        .final_build(&tools.plugin, &options)
        .status()
        .map_err(|e| format!("cannot run the compile: {e}"))?;
    Ok(status)
}

fn write_report(settings: &Settings, report: &Report) -> Result<(), String> {
    if let Some(path) = &settings.report {
        let json = serde_json::to_string_pretty(report).expect("reports serialize");
        std::fs::write(path, json + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if settings.table {
        eprint!("{}", report.table());
    }
    Ok(())
}

fn run_unchanged(command: &[String]) -> Result<ExitStatus, String> {
    let (program, args) = command.split_first().ok_or("no command to run")?;
    Command::new(program).args(args).status().map_err(|e| format!("cannot run {program}: {e}"))
}

/// The programs the tuning runs, and their versions for the cache key.
struct Tools {
    plugin: PathBuf,
    ptxas: PathBuf,
    cuobjdump: PathBuf,
    versions: Vec<(String, Vec<u8>)>,
}

fn version_of(program: &Path, flag: &str) -> Result<Vec<u8>, String> {
    let out = Command::new(program)
        .arg(flag)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    Ok(out.stdout)
}

impl Tools {
    fn find(settings: &Settings, compile: &Compile) -> Result<Self, String> {
        let cuda_path = compile.cuda_path();
        let ptxas = settings
            .ptxas
            .clone()
            .or_else(|| cuda_path.as_ref().map(|c| c.join("bin/ptxas")).filter(|p| p.exists()))
            .unwrap_or_else(|| "ptxas".into());
        let cuobjdump = settings.cuobjdump.clone().unwrap_or_else(|| figures::cuobjdump_beside(&ptxas));
        let plugin_bytes = std::fs::read(&settings.plugin)
            .map_err(|e| format!("plugin {}: {e}", settings.plugin.display()))?;
        let versions = vec![
            ("tuner".to_owned(), env!("CARGO_PKG_VERSION").as_bytes().to_vec()),
            ("compiler".to_owned(), version_of(compile.compiler(), "--version")?),
            ("ptxas".to_owned(), version_of(&ptxas, "--version")?),
            // Its digest, taken once: the key of every GPU's entry holds it.
            ("plugin".to_owned(), Key::new(&[("plugin", &plugin_bytes)]).as_str().as_bytes().to_vec()),
        ];
        Ok(Self { plugin: settings.plugin.clone(), ptxas, cuobjdump, versions })
    }
}

/// One GPU's options section (its text) and report, from the cache or a
/// search.
fn tune_gpu(
    settings: &Settings,
    tools: &Tools,
    compile: &Compile,
    gpu: &str,
    scratch: &Path,
) -> Result<(String, GpuReport), String> {
    let table = occupancy::gpu(gpu).ok_or_else(|| format!("no occupancy figures for {gpu}"))?;
    let judge = Judge {
        objective: settings.objective,
        gpu: table,
        saturating_warps: settings.saturating_warps.unwrap_or_else(|| Judge::default_saturation(table)),
        local_weight: settings.local_weight,
        loop_weight: settings.loop_weight,
        min_gain: settings.min_gain,
    };
    let (source, flags) = compile.cache_inputs(gpu)?;
    let objective = format!(
        "{:?} {} {} {} {}",
        settings.objective, settings.loop_weight, judge.saturating_warps, judge.local_weight, judge.min_gain
    );
    let key = Key::for_compile(&tools.versions, &objective, gpu, &flags, &source);
    let mut earlier = BTreeMap::new();
    if let Some(cache) = &settings.cache {
        match cache.get(&key) {
            Lookup::Hit(body) => match read_entry(&body) {
                Ok(Entry { section, mut report, partial: None }) => {
                    cache.record(Event::Hit, 1);
                    report.from_cache = true;
                    report.tuning_builds = 0;
                    return Ok((section, report));
                }
                Ok(Entry { partial: Some(tried), .. }) => {
                    cache.record(Event::Partial, 1);
                    tracing::debug!("{gpu}: a partial entry: tuning further from its {} builds", tried.len());
                    earlier = tried;
                }
                Err(why) => {
                    cache.record(Event::Corrupt, 1);
                    warn(format!("cache entry {} unreadable ({why}): tuning again", key.as_str()));
                }
            },
            Lookup::Corrupt(why) => {
                cache.record(Event::Corrupt, 1);
                warn(format!("cache entry {} damaged ({why}): tuning again", key.as_str()));
            }
            Lookup::Miss => cache.record(Event::Miss, 1),
        }
    }

    let started = Instant::now();
    let deadline = settings.budget.map(|seconds| started + std::time::Duration::from_secs_f64(seconds));
    let progress = indicatif::ProgressBar::new_spinner();
    progress.set_message(format!("{} for {gpu}", compile.source().display()));
    let counter = AtomicUsize::new(0);
    // The candidates come from the frontend's bitcode where that makes
    // stock's PTX (checked on the first build, stock's); else each from the
    // source, as the builds the search's promise rests on always do.
    let bitcode = compile.device_bitcode(gpu, &scratch.join(format!("{gpu}.bc")));
    if let Err(why) = &bitcode {
        tracing::debug!("{gpu}: every build from the source: {why}");
    }
    let from_bitcode = OnceLock::new();
    let names = AtomicUsize::new(0);
    let measured: Mutex<HashMap<String, BTreeMap<String, figures::Figures>>> = Mutex::default();
    let run = |label: &str, mut cmd: Command, ptx: &Path| -> Result<String, String> {
        counter.fetch_add(1, Ordering::Relaxed);
        let out = cmd.output().map_err(|e| format!("cannot run the {label} build: {e}"))?;
        if !out.status.success() {
            return Err(format!("the {label} build failed:\n{}", String::from_utf8_lossy(&out.stderr)));
        }
        std::fs::read_to_string(ptx).map_err(|e| e.to_string())
    };
    let build = |label: &str, options_text: &str, fidelity: Fidelity| -> Result<Built, String> {
        let n = names.fetch_add(1, Ordering::Relaxed);
        let options = scratch.join(format!("{gpu}-{n}.nvra"));
        let ptx = options.with_extension("ptx");
        std::fs::write(&options, options_text).map_err(|e| e.to_string())?;
        let text = match (&bitcode, fidelity, from_bitcode.get()) {
            (Ok(bitcode), Fidelity::Equivalent, Some(true)) => {
                run(label, bitcode.build(&tools.plugin, &options, &ptx), &ptx)?
            }
            _ => run(label, compile.device_build(&tools.plugin, gpu, &options, &ptx), &ptx)?,
        };
        if from_bitcode.get().is_none() {
            let same = bitcode.as_ref().is_ok_and(|bitcode| {
                let again = ptx.with_extension("bitcode.ptx");
                run(label, bitcode.build(&tools.plugin, &options, &again), &again)
                    .is_ok_and(|again| same_code(&text, &again))
            });
            let _ = from_bitcode.set(same);
        }
        // Candidates often make the same PTX (a choice that changes
        // nothing here): ptxas and the disassembler (half a second) run
        // once per distinct code.
        let code = code_lines(&text).join("\n");
        let known = measured.lock().expect("no build panics").get(&code).cloned();
        let figures = match known {
            Some(figures) => figures,
            None => {
                let figures = figures::measure(&tools.ptxas, Some(&tools.cuobjdump), &ptx, table)?;
                measured.lock().expect("no build panics").insert(code, figures.clone());
                figures
            }
        };
        Ok(Built::new(&text, figures))
    };
    let done = |label: &str| {
        progress.set_message(format!("{} for {gpu}: {label}", compile.source().display()));
        progress.tick();
    };
    let search = Search {
        gpu: Some(gpu.to_owned()),
        judge,
        candidates: search::candidates(compile.has_middle_end()),
        jobs: settings.jobs,
        deadline,
        earlier,
        build: &build,
        progress: &done,
    };
    let outcome = search.run();
    progress.finish_and_clear();
    if let Some(cache) = &settings.cache {
        cache.record(Event::TuningBuild, counter.load(Ordering::Relaxed));
    }
    let outcome = outcome?;
    let kernels = outcome
        .decisions
        .iter()
        .filter(|(name, _)| outcome.stock.contains_key(*name) || outcome.tuned.contains_key(*name))
        .map(|(name, d)| KernelReport {
            function: name.clone(),
            stock: outcome.stock.get(name).cloned(),
            default: outcome.default.get(name).cloned(),
            tuned: outcome.tuned.get(name).cloned(),
            profit_over_default: match (outcome.tuned.get(name), outcome.default.get(name)) {
                (Some(tuned), Some(default)) => Some(judge.profit(tuned, default)),
                _ => None,
            },
            choice: d.choice.clone(),
            reason: d.reason.clone(),
        })
        .collect();
    let report = GpuReport {
        gpu: gpu.to_owned(),
        objective: format!("{:?}", settings.objective).to_lowercase(),
        loop_weight: settings.loop_weight,
        tuning_builds: outcome.builds,
        tuning_seconds: started.elapsed().as_secs_f64(),
        from_cache: false,
        candidates_from_bitcode: from_bitcode.get() == Some(&true),
        budget_cut: outcome.cut,
        kernels,
    };
    if let Some(cache) = &settings.cache {
        let entry = Entry {
            section: outcome.section.to_text(),
            report: report.clone(),
            partial: outcome.cut.then_some(outcome.tried),
        };
        if let Err(e) = cache.put(&key, serde_json::to_string(&entry).expect("entries serialize").as_bytes())
        {
            warn(format!("cannot write the cache entry: {e}"));
        }
    }
    Ok((outcome.section.to_text(), report))
}

/// Whether two PTX texts are the same code: alike but for comments (from
/// bitcode, clang keeps the value names its passes give, which LLVM prints
/// as comments beside blocks).
fn same_code(a: &str, b: &str) -> bool {
    code_lines(a) == code_lines(b)
}

/// PTX without comments and blank lines.
fn code_lines(ptx: &str) -> Vec<&str> {
    ptx.lines()
        .map(|l| l.split("//").next().unwrap_or("").trim_end())
        .filter(|l| !l.trim().is_empty())
        .collect()
}

/// A cache entry, its section checked by parsing it.
fn read_entry(body: &[u8]) -> Result<Entry, String> {
    let entry: Entry = serde_json::from_slice(body).map_err(|e| e.to_string())?;
    OptionsFile::parse(&entry.section)?;
    Ok(entry)
}

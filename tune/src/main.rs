//! nvregalloc-tune: per-function choices of nvregalloc's passes by what
//! ptxas makes of them, as a compiler launcher with a cache.
//!
//! ptxas re-allocates registers and re-schedules, so no model inside LLVM
//! can promise what a pass does to the SASS that runs. The tuner asks
//! ptxas: it builds the device code once per candidate set of choices
//! (`search`), reads ptxas's and cuobjdump's figures (`figures`), picks per
//! kernel by an objective written down in one place (`objective`), keeps
//! the result in a cache (`cache`), and runs the compile once with the
//! plugin and the chosen `-nvregalloc-function-options` file (`launcher`).
//!
//! ```text
//! nvregalloc-tune [OPTIONS] [--] clang++ -x cuda -c k.cu -o k.o ...
//! nvregalloc-tune [OPTIONS] [--] llc -mcpu=sm_90 k.ll -o k.ptx
//! CMAKE_CUDA_COMPILER_LAUNCHER=nvregalloc-tune   (clang as the CUDA compiler)
//! make CXX="nvregalloc-tune -- clang++"
//! nvregalloc-tune --stats | --clear
//! nvregalloc-tune --occupancy sm_90      (warps per SM by registers, JSON)
//! nvregalloc-tune --figures k.ptx [--sass]   (what ptxas makes of it, JSON)
//! ```

mod cache;
mod command;
mod figures;
mod launcher;
mod measure;
mod objective;
mod remote;
mod report;
mod search;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;

use crate::cache::Cache;
use crate::objective::Objective;

#[derive(Parser, Debug)]
#[command(
    name = "nvregalloc-tune",
    disable_version_flag = true,
    about = "Tunes nvregalloc's per-function choices by what ptxas makes of them; runs as a compiler launcher with a cache",
    after_help = "A command it does not tune (not CUDA, link-only, preprocess-only, -M) runs unchanged. \
                  Environment: NVREGALLOC_CACHE (cache folder), NVREGALLOC_PLUGIN (libnvregalloc.so), \
                  PTXAS, CUOBJDUMP, NVREGALLOC_TUNE_LOG (e.g. debug)."
)]
struct Cli {
    /// Builds at a time while tuning (default: one per core).
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// What the tuner prefers (see the objective's documentation).
    #[arg(long, value_enum, default_value_t = Objective::Balanced)]
    objective: Objective,
    /// Weight of a SASS instruction per loop around it (weight^depth).
    #[arg(long, default_value_t = 8.0)]
    loop_weight: f64,
    /// Instructions one local load or store (LDL, STL) counts for, loop-weighted
    /// like the rest (an L1 hit 9 times in 10: see the objective).
    #[arg(long, default_value_t = objective::DEFAULT_LOCAL_WEIGHT)]
    local_weight: f64,
    /// Percent of profit a choice must gain over a kernel's default (stock's
    /// build where the default spills more) to replace it, under `balanced`:
    /// static counts that differ by less are no evidence of speed.
    #[arg(long, value_name = "PERCENT", default_value_t = objective::DEFAULT_MIN_GAIN * 100.0,
          value_parser = parse_percent)]
    min_gain: f64,
    /// Seconds of tuning per compile and GPU (also $NVREGALLOC_TUNE_BUDGET):
    /// past it no further candidate build starts, the best found is used and
    /// cached as partial, and a later compile of the same source tunes
    /// further from it.
    /// `none`: no limit. The default keeps 95% of the unlimited search's
    /// gains on HeCBench (docs/tuning.md).
    #[arg(long, env = "NVREGALLOC_TUNE_BUDGET", value_name = "SECONDS", value_parser = parse_budget,
          default_value = DEFAULT_BUDGET)]
    budget: Budget,
    /// Warps per SM past which more buy nothing (default: half the SM's).
    #[arg(long)]
    saturating_warps: Option<u32>,
    /// The cache folder (default: $NVREGALLOC_CACHE, else ~/.cache/nvregalloc).
    #[arg(long)]
    cache_dir: Option<PathBuf>,
    /// A remote store beside the cache folder, shared by a team or a CI farm
    /// (also $NVREGALLOC_REMOTE_CACHE): redis://HOST:PORT[/DB] or
    /// s3://BUCKET[/PREFIX] (endpoint, region, credentials from AWS_*).
    #[arg(long, env = "NVREGALLOC_REMOTE_CACHE", value_name = "URL")]
    remote_cache: Option<String>,
    /// Tune without reading or writing the cache.
    #[arg(long)]
    no_cache: bool,
    /// Show the cache's entries and counters, then exit.
    #[arg(long)]
    stats: bool,
    /// Print the warps per SM the register file of GPU (sm_80, sm_90a, ...)
    /// holds at 0 to 255 registers a thread, as JSON, and exit: the project's
    /// one occupancy model, for its scripts.
    #[arg(long, value_name = "GPU")]
    occupancy: Option<String>,
    /// Print, as JSON, what ptxas makes of each function of this PTX file for
    /// the GPU its `.target` names (registers, spills, stack frame, shared
    /// memory, occupancy), and exit: the project's one reader of ptxas's
    /// output, for its scripts.
    #[arg(long, value_name = "PTX")]
    figures: Option<PathBuf>,
    /// With --figures: also the SASS figures (instructions, LDL, STL, each by
    /// loop depth), from cuobjdump.
    #[arg(long, requires = "figures")]
    sass: bool,
    /// Remove every cache entry and counter, then exit.
    #[arg(long)]
    clear: bool,
    /// libnvregalloc.so (default: $NVREGALLOC_PLUGIN, else beside this program).
    #[arg(long)]
    plugin: Option<PathBuf>,
    /// ptxas (default: $PTXAS, else clang's --cuda-path, else PATH).
    #[arg(long)]
    ptxas: Option<PathBuf>,
    /// cuobjdump (default: $CUOBJDUMP, else beside ptxas).
    #[arg(long)]
    cuobjdump: Option<PathBuf>,
    /// Write the report as JSON to this file (one compile's: its source, each
    /// GPU's kernels with stock's, the default's and the tuned figures).
    #[arg(long)]
    report: Option<PathBuf>,
    /// Print the report as a table on stderr.
    #[arg(long)]
    table: bool,
    /// Also write the chosen options file here.
    #[arg(long)]
    options_out: Option<PathBuf>,
    /// Time the candidates the objective keeps by running this shell
    /// command (the built program; it prints its times) and keep the fastest.
    #[arg(long, value_name = "CMD")]
    measure: Option<String>,
    /// Runs of --measure's command per candidate (the median counts).
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Print this program's version, the version of the plugin it would load
    /// (--plugin) and the C ABI's, then exit.
    #[arg(long, short = 'V')]
    version: bool,
    /// The compile command.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    command: Vec<String>,
}

/// `--budget`'s default, in seconds: from the sweep of docs/tuning.md.
const DEFAULT_BUDGET: &str = "120";

/// A time budget in seconds; `None`: no limit.
#[derive(Clone, Copy, Debug)]
struct Budget(Option<f64>);

/// `--budget`'s value: seconds (0 or more), or `none`; empty (an
/// `NVREGALLOC_TUNE_BUDGET` set to nothing) is the default.
fn parse_budget(text: &str) -> Result<Budget, String> {
    if text.is_empty() {
        return parse_budget(DEFAULT_BUDGET);
    }
    if text == "none" {
        return Ok(Budget(None));
    }
    non_negative(text)
        .map(|seconds| Budget(Some(seconds)))
        .ok_or_else(|| format!("`{text}` is not a number of seconds (0 or more) or `none`"))
}

fn parse_percent(text: &str) -> Result<f64, String> {
    non_negative(text).ok_or_else(|| format!("`{text}` is not a percentage (0 or more)"))
}

/// A finite number, 0 or more.
fn non_negative(text: &str) -> Option<f64> {
    text.parse::<f64>().ok().filter(|n| n.is_finite() && *n >= 0.0)
}

fn plugin_path(cli: &Cli) -> PathBuf {
    let beside = || {
        let exe = std::env::current_exe().ok()?;
        let dir = exe.parent()?;
        [dir.join("libnvregalloc.so"), dir.join("../lib/libnvregalloc.so")].into_iter().find(|p| p.exists())
    };
    cli.plugin
        .clone()
        .or_else(|| std::env::var_os("NVREGALLOC_PLUGIN").map(PathBuf::from))
        .or_else(beside)
        .unwrap_or_else(|| "libnvregalloc.so".into())
}

/// `--version`: what a bug report names. The plugin's version is read from
/// its file (`nvregalloc::plugin::VERSION_MARK_PREFIX`), which the tuner
/// never loads.
fn print_versions(cli: &Cli) {
    println!("nvregalloc-tune {} (ABI {})", env!("CARGO_PKG_VERSION"), nvregalloc::plugin::ABI_VERSION);
    let path = plugin_path(cli);
    let found = match std::fs::read(&path) {
        Err(e) => format!("not readable ({e})"),
        Ok(bytes) => plugin_version(&bytes).map_or_else(
            || "no version in it (a plugin older than 0.2.0)".to_owned(),
            |v| format!("nvregalloc {v}"),
        ),
    };
    println!("plugin {}: {found}", path.display());
}

/// The version in a plugin file's bytes, after its mark.
fn plugin_version(bytes: &[u8]) -> Option<String> {
    let mark = nvregalloc::plugin::VERSION_MARK_PREFIX.as_bytes();
    let at = bytes.windows(mark.len()).position(|w| w == mark)? + mark.len();
    let end = bytes[at..].iter().position(|&b| b == 0)?;
    Some(String::from_utf8_lossy(&bytes[at..at + end]).into_owned())
}

/// `--figures`: the figures of each function of `ptx` for the GPU its
/// `.target` names, as JSON on stdout.
fn print_figures(ptx: &Path, ptxas: &Path, cuobjdump: Option<&Path>) -> ExitCode {
    let target =
        std::fs::read_to_string(ptx).map_err(|e| format!("{}: {e}", ptx.display())).and_then(|text| {
            figures::Ptx::new(&text).target().map(str::to_owned).ok_or("no .target line".to_owned())
        });
    let measured = target.and_then(|target| {
        let gpu = nvregalloc::occupancy::gpu(&target).ok_or(format!("no occupancy figures for {target}"))?;
        figures::measure(ptxas, cuobjdump, ptx, gpu)
    });
    match measured {
        Ok(figures) => {
            println!("{}", serde_json::to_string(&figures).expect("figures serialize"));
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("nvregalloc-tune: --figures {}: {why}", ptx.display());
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("NVREGALLOC_TUNE_LOG"))
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    if cli.version {
        print_versions(&cli);
        return ExitCode::SUCCESS;
    }
    let env_path = |name| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(ptx) = &cli.figures {
        let ptxas = cli.ptxas.clone().or_else(|| env_path("PTXAS")).unwrap_or_else(|| "ptxas".into());
        let cuobjdump = cli
            .sass
            .then(|| cli.cuobjdump.clone().or_else(|| env_path("CUOBJDUMP")))
            .map(|named| named.unwrap_or_else(|| figures::cuobjdump_beside(&ptxas)));
        return print_figures(ptx, &ptxas, cuobjdump.as_deref());
    }
    let mut cache = Cache::open(cli.cache_dir.clone());
    if let Some(url) = cli.remote_cache.as_deref().filter(|u| !u.is_empty()) {
        match remote::Remote::open(url) {
            Ok(remote) => cache = cache.with_remote(remote),
            Err(why) => report::warn(format!("remote cache: {why}; going on without it")),
        }
    }
    if let Some(arch) = &cli.occupancy {
        let Some(gpu) = nvregalloc::occupancy::gpu(arch) else {
            eprintln!("nvregalloc-tune: no occupancy figures for {arch}");
            return ExitCode::from(2);
        };
        let warps: Vec<u32> =
            (0..=gpu.max_registers_per_thread).map(|r| gpu.register_limited_warps(r)).collect();
        let table = serde_json::json!({ "gpu": gpu.name, "max_warps": gpu.max_warps_per_sm, "warps_by_registers": warps });
        println!("{table}");
        return ExitCode::SUCCESS;
    }
    if cli.stats || cli.clear {
        if cli.clear {
            match cache.clear() {
                Ok(n) => {
                    eprintln!("nvregalloc-tune: removed {n} cache entries from {}", cache.dir().display())
                }
                Err(e) => {
                    eprintln!("nvregalloc-tune: cannot clear {}: {e}", cache.dir().display());
                    return ExitCode::FAILURE;
                }
            }
        }
        if cli.stats {
            print!("{}", cache.stats());
        }
        return ExitCode::SUCCESS;
    }
    let mut command = cli.command.clone();
    if command.first().is_some_and(|c| c == "--") {
        command.remove(0);
    }
    if command.is_empty() {
        eprintln!("nvregalloc-tune: no command to run (see --help)");
        return ExitCode::from(2);
    }
    let settings = launcher::Settings {
        jobs: cli.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        objective: cli.objective,
        loop_weight: cli.loop_weight,
        local_weight: cli.local_weight,
        min_gain: cli.min_gain / 100.0,
        budget: cli.budget.0,
        saturating_warps: cli.saturating_warps,
        cache: (!cli.no_cache).then_some(cache),
        plugin: plugin_path(&cli),
        ptxas: cli.ptxas.clone().or_else(|| env_path("PTXAS")),
        cuobjdump: cli.cuobjdump.clone().or_else(|| env_path("CUOBJDUMP")),
        report: cli.report.clone(),
        table: cli.table,
        options_out: cli.options_out.clone(),
        measure: cli.measure.clone().map(|command| measure::Measure { command, runs: cli.runs }),
    };
    match launcher::launch(&settings, &command) {
        Ok(status) => match status.code() {
            Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
            None => ExitCode::FAILURE,
        },
        Err(why) => {
            eprintln!("nvregalloc-tune: error: {why}");
            ExitCode::FAILURE
        }
    }
}

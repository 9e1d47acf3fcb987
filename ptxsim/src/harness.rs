//! The differential harness: build one program with stock llc and with the
//! plugin in each mode, run every build on the same inputs, and require the
//! same bytes everywhere. Inputs come from the kernel corpus (launch specs in
//! `specs/kernels.txt`) and from csmith programs generated from fixed seeds.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::ir::{Module, Ty};
use crate::{parse, run, Arg, Error, Launch, Outcome};

/// The plugin's modes compared against stock llc, by name in
/// tests/modes.json (the one table every tool reads; scripts/corpus.py runs
/// the same ones). llc rejects an option it does not know ("Unknown command
/// line argument"), so only modes the plugin has belong there.
const MODE_NAMES: &[&str] = &[
    "analyze",
    "cssa",
    "coalesce",
    "replace",
    "color",
    "both",
    "replace+color",
    "both, cssa",
    "pressure forced",
    "no lsr",
    "recompute invariants",
    "sched pressure",
    "widen",
    "budget 8",
    "budget 15",
    "budget 32",
];

/// Modes whose options act in the middle end too, so their IR is built from
/// the CUDA source by clang with the plugin loaded (`-mllvm` each option),
/// and llc then takes the same options: only the corpus kernels, which come
/// as CUDA, have them.
const CUDA_MODE_NAMES: &[&str] = &["default", "no unroll", "inline always"];

/// A mode: its name and options.
pub type Mode = (&'static str, &'static [&'static str]);

/// tests/modes.json, read once; `{root}` becomes the repository.
fn table() -> &'static BTreeMap<String, Vec<String>> {
    static TABLE: std::sync::OnceLock<BTreeMap<String, Vec<String>>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let json: serde_json::Value =
            serde_json::from_str(include_str!("../../tests/modes.json")).expect("tests/modes.json is JSON");
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
        json["modes"]
            .as_object()
            .expect("tests/modes.json has modes")
            .iter()
            .map(|(name, mode)| {
                let options = mode["options"].as_array().expect("a mode has options");
                let options = options
                    .iter()
                    .map(|o| o.as_str().expect("options are strings").replace("{root}", root))
                    .collect();
                (name.clone(), options)
            })
            .collect()
    })
}

/// The modes named, with their options from the table (leaked once: they
/// live as long as the run).
fn named(names: &[&str]) -> &'static [Mode] {
    let modes: Vec<Mode> = names
        .iter()
        .map(|name| {
            let (name, options) = table()
                .get_key_value(*name)
                .unwrap_or_else(|| panic!("tests/modes.json has no mode '{name}'"));
            let options: Vec<&'static str> = options.iter().map(String::as_str).collect();
            (name.as_str(), &*Box::leak(options.into_boxed_slice()))
        })
        .collect();
    Box::leak(modes.into_boxed_slice())
}

/// The llc modes (`MODE_NAMES`).
pub fn modes() -> &'static [Mode] {
    static MODES: std::sync::OnceLock<&'static [Mode]> = std::sync::OnceLock::new();
    MODES.get_or_init(|| named(MODE_NAMES))
}

/// The middle-end modes (`CUDA_MODE_NAMES`).
pub fn cuda_modes() -> &'static [Mode] {
    static MODES: std::sync::OnceLock<&'static [Mode]> = std::sync::OnceLock::new();
    MODES.get_or_init(|| named(CUDA_MODE_NAMES))
}

/// A deliberately broken build: merges two interfering registers and turns
/// the plugin's own checker off, so the harness is the only thing that can
/// notice.
pub fn fault_mode() -> Mode {
    named(&["fault"])[0]
}

/// Instructions a stock run may execute (all threads together) before it
/// counts as a timeout. Plugin builds get twice as many: deleted or added
/// copies change the count, and a build that loops where stock did not is a
/// difference worth reporting.
pub const STEP_LIMIT: u64 = 50_000_000;

/// Where the tools are: scripts/env.sh exports these; the defaults are what
/// scripts/setup.sh installs.
pub struct Toolchain {
    pub root: PathBuf,
    pub llvm_bin: PathBuf,
    pub plugin: PathBuf,
    pub clang_cuda_flags: Vec<String>,
    /// Extra clang options for CUDA sources: `-I DIR` and `-include FILE`
    /// (`ptxsim corpus -I DIR --include FILE`).
    pub includes: Vec<String>,
}

impl Toolchain {
    pub fn from_env() -> Result<Toolchain, Error> {
        let root =
            Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("ptxsim sits in the repo").to_path_buf();
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let tc = Toolchain {
            llvm_bin: var("LLVM_BIN").map_or_else(|| "/usr/lib/llvm-22/bin".into(), PathBuf::from),
            plugin: var("PLUGIN").map_or_else(|| root.join("target/release/libnvregalloc.so"), PathBuf::from),
            clang_cuda_flags: var("CLANG_CUDA_FLAGS")
                .map(|f| f.split_whitespace().map(String::from).collect())
                .unwrap_or_default(),
            includes: Vec::new(),
            root,
        };
        if !tc.plugin.exists() {
            return Err(Error::Harness(format!(
                "{} missing: run cargo build --release",
                tc.plugin.display()
            )));
        }
        Ok(tc)
    }

    /// Runs an LLVM tool; its stderr (warnings) on success.
    fn tool(&self, name: &str, args: &[&str]) -> Result<String, Error> {
        let out = Command::new(self.llvm_bin.join(name))
            .args(args)
            .output()
            .map_err(|e| Error::Harness(format!("{name}: {e}")))?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            return Err(Error::Harness(format!(
                "{name} {}: {}",
                args.join(" "),
                err.chars().take(600).collect::<String>()
            )));
        }
        Ok(String::from_utf8_lossy(&out.stderr).into_owned())
    }

    /// CUDA source to LLVM IR, as scripts/corpus.py compiles the corpus
    /// (its own folder searched for includes first); with `plugin_options`
    /// (None: without the plugin), the plugin loaded and those options.
    pub fn cuda_to_ll(&self, cu: &Path, ll: &Path, plugin_options: Option<&[&str]>) -> Result<(), Error> {
        if self.clang_cuda_flags.is_empty() {
            return Err(Error::Harness("CLANG_CUDA_FLAGS unset: source scripts/env.sh".into()));
        }
        let own_folder = cu.parent().map(|d| format!("-I{}", d.display()));
        let mut args: Vec<&str> = self.clang_cuda_flags.iter().map(String::as_str).collect();
        args.extend(own_folder.as_deref());
        args.extend(self.includes.iter().map(String::as_str));
        let plugin = format!("-fpass-plugin={}", self.plugin.display());
        if let Some(options) = plugin_options {
            args.push(&plugin);
            args.extend(options.iter().flat_map(|o| ["-mllvm", o]));
        }
        args.extend(["-emit-llvm", "-S", path_str(cu), "-o", path_str(ll)]);
        self.tool("clang++", &args).map(drop)
    }

    /// llc at -O3 for sm_90 with `common` options; `options` None is stock
    /// llc without the plugin. Returns llc's warnings.
    pub fn llc(
        &self,
        ll: &Path,
        ptx: &Path,
        common: &[&str],
        options: Option<&[&str]>,
    ) -> Result<String, Error> {
        let plugin = format!("-load-pass-plugin={}", self.plugin.display());
        let mut args = vec!["-march=nvptx64", "-mcpu=sm_90", "-O3"];
        args.extend_from_slice(common);
        if let Some(opts) = options {
            args.push(&plugin);
            args.extend_from_slice(opts);
        }
        args.extend([path_str(ll), "-o", path_str(ptx)]);
        self.tool("llc", &args)
    }
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("paths are UTF-8")
}

/// SplitMix64: a tiny seeded generator, so inputs never depend on a crate's
/// version.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

/// How one argument is made.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgSpec {
    /// `TYPE[COUNT]` or `TYPE[COUNT]:LO..HI`: a buffer of random elements.
    Buffer { ty: Ty, count: usize, lo: f64, hi: f64 },
    /// A scalar literal, typed by the parameter's `.param` type.
    Scalar(f64),
}

#[derive(Clone, Debug, PartialEq)]
pub struct KernelSpec {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared: usize,
    /// Empty: every argument by the default rule.
    pub args: Vec<ArgSpec>,
}

fn dims(s: &str) -> Result<[u32; 3], String> {
    let mut d = [1u32; 3];
    for (i, x) in s.split('x').enumerate() {
        *d.get_mut(i).ok_or("more than 3 dimensions")? = x.parse().map_err(|e| format!("{s}: {e}"))?;
    }
    Ok(d)
}

fn default_range(ty: Ty) -> (f64, f64) {
    match ty {
        Ty::F(_) => (-1.0, 1.0),
        Ty::S(_) => (-100.0, 100.0),
        Ty::U(8) | Ty::B(8) => (0.0, 255.0),
        _ => (0.0, 100.0),
    }
}

/// Parses `specs/kernels.txt`: `NAME GRID BLOCK [shared=BYTES] ARG...`.
pub fn parse_specs(text: &str) -> Result<BTreeMap<String, KernelSpec>, Error> {
    let mut out = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let bad = |msg: String| Error::Harness(format!("kernels.txt line {}: {msg}", n + 1));
        let words: Vec<&str> = line.split_whitespace().collect();
        let [name, grid, block, rest @ ..] = &words[..] else {
            return Err(bad("need NAME GRID BLOCK".into()));
        };
        let mut spec = KernelSpec {
            grid: dims(grid).map_err(bad)?,
            block: dims(block).map_err(bad)?,
            dynamic_shared: 0,
            args: vec![],
        };
        for w in rest {
            if let Some(bytes) = w.strip_prefix("shared=") {
                spec.dynamic_shared = bytes.parse().map_err(|e| bad(format!("{w}: {e}")))?;
            } else if let Some((ty, tail)) = w.split_once('[') {
                let ty = Ty::parse(ty).ok_or_else(|| bad(format!("bad type in {w}")))?;
                let (count, range) = tail.split_once(']').ok_or_else(|| bad(format!("missing ] in {w}")))?;
                let count = count.parse().map_err(|e| bad(format!("{w}: {e}")))?;
                let (lo, hi) = match range.strip_prefix(':') {
                    Some(r) => {
                        let (lo, hi) = r.split_once("..").ok_or_else(|| bad(format!("range in {w}")))?;
                        (
                            lo.parse().map_err(|_| bad(w.to_string()))?,
                            hi.parse().map_err(|_| bad(w.to_string()))?,
                        )
                    }
                    None => default_range(ty),
                };
                spec.args.push(ArgSpec::Buffer { ty, count, lo, hi });
            } else {
                spec.args.push(ArgSpec::Scalar(w.parse().map_err(|_| bad(format!("bad argument {w}")))?));
            }
        }
        out.insert(name.to_string(), spec);
    }
    Ok(out)
}

/// One rung of the input ladder for kernels without a spec line: what every
/// pointer points to, and the value of every integer argument.
#[derive(Clone, Copy, Debug)]
struct InputRule {
    /// Elements behind every pointer.
    count: usize,
    /// Elements are f32 in [-1, 1), or else i32 in [0, `int_value`): small
    /// indices (and, read as f32, tiny numbers), for kernels that index one
    /// buffer by another's contents.
    floats: bool,
    /// Every integer argument (sizes, counts, strides).
    int_value: f64,
    /// Threads per block (2 blocks).
    block: [u32; 3],
}

/// Contents and sizes, tried in order: the cheap rule first, then
/// index-like contents, bigger buffers, smaller sizes.
const DATA_RULES: [(usize, bool, f64); 4] =
    [(4096, true, 256.0), (4096, false, 64.0), (65536, true, 64.0), (262144, false, 16.0)];
/// Block shapes tried with each: kernels with shared tiles sized for a 2D
/// block index past them with a long 1D one.
const BLOCKS: [[u32; 3]; 3] = [[64, 1, 1], [16, 16, 1], [8, 8, 1]];

/// Every rule, in the order `kernel_runs` tries them until stock runs
/// without a fault.
fn input_ladder() -> impl Iterator<Item = InputRule> {
    DATA_RULES.into_iter().flat_map(|(count, floats, int_value)| {
        BLOCKS.into_iter().map(move |block| InputRule { count, floats, int_value, block })
    })
}

fn ladder_spec(module: &Module, kernel: &str, rule: InputRule) -> KernelSpec {
    let f = &module.functions[module.function(kernel).expect("kernel exists") as usize];
    let args = f
        .params
        .iter()
        .map(|p| match (p.is_ptr, p.ty) {
            (true, _) if rule.floats => {
                ArgSpec::Buffer { ty: Ty::F(32), count: rule.count, lo: -1.0, hi: 1.0 }
            }
            (true, _) => {
                ArgSpec::Buffer { ty: Ty::S(32), count: rule.count, lo: 0.0, hi: rule.int_value - 1.0 }
            }
            (false, Ty::F(_)) => ArgSpec::Scalar(0.5),
            _ => ArgSpec::Scalar(rule.int_value),
        })
        .collect();
    KernelSpec { grid: [2, 1, 1], block: rule.block, dynamic_shared: LADDER_DYNAMIC_SHARED, args }
}

/// Dynamic shared memory every ladder launch gets (`extern __shared__`
/// arrays are sized by the launch; a kernel without one ignores it): the
/// 48 KB a launch may have without opting in.
const LADDER_DYNAMIC_SHARED: usize = 48 * 1024;

/// The first rule for kernels without a line in the spec file: 2 blocks of
/// 64 threads with 48 KB of dynamic shared memory, 4096 f32 in [-1, 1)
/// behind every pointer, 256 for every integer (sizes and counts), 0.5 for
/// every float. `kernel_runs` goes on
/// down `input_ladder` while stock's run faults.
pub fn default_spec(module: &Module, kernel: &str) -> KernelSpec {
    ladder_spec(module, kernel, input_ladder().next().expect("a first rule"))
}

fn element(ty: Ty, x: f64) -> Vec<u8> {
    match ty {
        Ty::F(16) => half::f16::from_f64(x).to_bits().to_le_bytes().to_vec(),
        Ty::Bf16 => half::bf16::from_f64(x).to_bits().to_le_bytes().to_vec(),
        Ty::F(32) => (x as f32).to_le_bytes().to_vec(),
        Ty::F(64) => x.to_le_bytes().to_vec(),
        _ => (x as i64).to_le_bytes()[..ty.bytes()].to_vec(),
    }
}

/// The arguments a spec describes, buffers filled from a seed derived from
/// the kernel's name.
pub fn make_args(module: &Module, kernel: &str, spec: &KernelSpec) -> Result<Vec<Arg>, Error> {
    let f = &module.functions[module.function(kernel).expect("kernel exists") as usize];
    if spec.args.len() != f.params.len() {
        return Err(Error::Harness(format!(
            "{kernel}: spec has {} arguments, kernel {}",
            spec.args.len(),
            f.params.len()
        )));
    }
    let mut rng = Rng::new(fnv(kernel));
    Ok(spec
        .args
        .iter()
        .zip(&f.params)
        .map(|(a, p)| match a {
            ArgSpec::Buffer { ty, count, lo, hi } => Arg::Buffer(
                (0..*count)
                    .flat_map(|_| {
                        let x = lo + (hi - lo) * rng.unit();
                        element(*ty, if ty.is_float() { x } else { x.round() })
                    })
                    .collect(),
            ),
            ArgSpec::Scalar(x) => Arg::Scalar(match p.ty {
                Ty::F(_) => element(p.ty, *x),
                _ => (*x as i64).to_le_bytes()[..p.size.min(8)].to_vec(),
            }),
        })
        .collect())
}

/// What comparing one build with stock found.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// Both ran; every byte matched.
    Same,
    /// The PTX text equals stock's, so the run would too.
    SamePtx,
    /// A run reached an instruction the interpreter lacks.
    Unsupported(String),
    /// Stock's run went past the step limit.
    Timeout,
    /// Stock's own run faulted: the launch spec is wrong (corpus) or the
    /// program has undefined behaviour (csmith); either way not the plugin.
    StockFault(String),
    /// Outputs differ, or only the plugin build failed: a plugin bug.
    Differ(String),
}

impl Verdict {
    pub fn kind(&self) -> &'static str {
        match self {
            Verdict::Same => "same",
            Verdict::SamePtx => "same-ptx",
            Verdict::Unsupported(_) => "unsupported",
            Verdict::Timeout => "timeout",
            Verdict::StockFault(_) => "stock-fault",
            Verdict::Differ(_) => "DIFFER",
        }
    }
}

/// The fill registers get in stock's second run: where its outputs differ
/// from the first run's (registers start at 0), they depend on registers
/// read before any write, which PTX leaves undefined.
pub const UNDEFINED_FILL: u64 = 0x5A5A_5A5A_5A5A_5A5A;

/// Compares a build's run with stock's. `stock_refilled` is stock run again
/// with `UNDEFINED_FILL`: bytes that differ between stock's two runs are
/// undefined (stock reads a register it never wrote, an `IMPLICIT_DEF`'s,
/// into them) and may hold anything in the build; a stock that only one fill
/// runs through depends on undefined values past what a comparison can use,
/// and counts as a stock fault.
pub fn judge(
    stock: &Result<Outcome, Error>,
    stock_refilled: &Result<Outcome, Error>,
    other: &Result<Outcome, Error>,
) -> Verdict {
    match (stock, stock_refilled, other) {
        (Err(Error::Unsupported(s)), _, _) | (Ok(_), _, Err(Error::Unsupported(s))) => {
            Verdict::Unsupported(s.clone())
        }
        (Err(Error::Timeout(_)), _, _) => Verdict::Timeout,
        (Err(e), _, _) => Verdict::StockFault(e.to_string()),
        (Ok(_), Err(e), _) => {
            Verdict::StockFault(format!("with registers not zeroed before their first write: {e}"))
        }
        (Ok(_), Ok(_), Err(e)) => Verdict::Differ(format!("only the plugin build fails: {e}")),
        (Ok(a), Ok(refilled), Ok(b)) => {
            if first_defined_difference(&a.ret, &refilled.ret, &b.ret).is_some() {
                return Verdict::Differ(format!("return value {:02x?} vs {:02x?}", a.ret, b.ret));
            }
            for (i, ((x, r), y)) in a.buffers.iter().zip(&refilled.buffers).zip(&b.buffers).enumerate() {
                if let Some(at) = first_defined_difference(x, r, y) {
                    return Verdict::Differ(format!("buffer {i} differs first at byte {at}"));
                }
            }
            for (((name, x), (_, r)), (_, y)) in a.globals.iter().zip(&refilled.globals).zip(&b.globals) {
                if first_defined_difference(x, r, y).is_some() {
                    return Verdict::Differ(format!("global {name} differs"));
                }
            }
            Verdict::Same
        }
    }
}

/// The first byte where `plugin` differs from `stock` among those stock's
/// two runs (`stock` with registers zeroed, `refilled` with them filled)
/// agree on; the bytes they disagree on are undefined and may hold anything.
/// A different length differs at the shorter one's end.
fn first_defined_difference(stock: &[u8], refilled: &[u8], plugin: &[u8]) -> Option<usize> {
    let defined = |k: usize| refilled.get(k).map_or(true, |r| *r == stock[k]);
    (0..stock.len())
        .find(|&k| defined(k) && plugin.get(k) != Some(&stock[k]))
        .or((stock.len() != plugin.len()).then_some(stock.len().min(plugin.len())))
}

/// One comparison: which program, function, mode, and the verdict.
#[derive(Clone, Debug)]
pub struct Record {
    pub program: String,
    pub function: String,
    pub mode: String,
    pub verdict: Verdict,
    /// The plugin left this function unchanged in this mode.
    pub untouched: bool,
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let detail = match &self.verdict {
            Verdict::Unsupported(s) | Verdict::StockFault(s) | Verdict::Differ(s) => format!(": {s}"),
            _ => String::new(),
        };
        write!(f, "{} {} [{}] {}{}", self.program, self.function, self.mode, self.verdict.kind(), detail)
    }
}

/// The builds of one program: stock PTX text and, per mode, its text.
pub struct Builds {
    pub stock: String,
    pub modes: Vec<Build>,
}

pub struct Build {
    pub mode: String,
    /// The PTX, or why llc with the plugin failed where stock llc did not.
    pub ptx: Result<String, String>,
    /// Functions the plugin's passes left as LLVM made them (inline assembly,
    /// B128 registers, ...): a comparison there tests less of the plugin.
    pub untouched: Vec<String>,
}

/// The function names in the plugin's "function 'NAME' left unchanged" warnings.
fn untouched_functions(stderr: &str) -> Vec<String> {
    let mut names: Vec<String> = stderr
        .lines()
        .filter(|l| l.contains("left unchanged"))
        .filter_map(|l| l.split('\'').nth(1).map(String::from))
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Compiles `ll` with stock llc and every mode into `dir`. Only stock's
/// failure is an error: a mode's is recorded in its `Build` (a plugin bug).
pub fn build_all(
    tc: &Toolchain,
    ll: &Path,
    dir: &Path,
    common: &[&str],
    modes: &[(&str, &[&str])],
) -> Result<Builds, Error> {
    let stock = llc_build(tc, ll, dir, common, "stock", None)?.0;
    let modes = modes
        .iter()
        .map(|&(name, opts)| mode_build(name, llc_build(tc, ll, dir, common, name, Some(opts))))
        .collect();
    Ok(Builds { stock, modes })
}

/// PTX of `ll` (in `dir`, named after the build) and llc's warnings.
fn llc_build(
    tc: &Toolchain,
    ll: &Path,
    dir: &Path,
    common: &[&str],
    name: &str,
    opts: Option<&[&str]>,
) -> Result<(String, String), Error> {
    let stem = ll.file_stem().and_then(|s| s.to_str()).unwrap_or("prog");
    let ptx = dir.join(format!("{stem}.{}.ptx", file_name(name)));
    let warnings = tc.llc(ll, &ptx, common, opts)?;
    let text =
        std::fs::read_to_string(&ptx).map_err(|e| Error::Harness(format!("{}: {e}", ptx.display())))?;
    Ok((text, warnings))
}

fn file_name(mode: &str) -> String {
    mode.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect()
}

/// A mode's build; its failure is a record of its own (a plugin bug).
fn mode_build(name: &str, built: Result<(String, String), Error>) -> Build {
    match built {
        Ok((ptx, warnings)) => {
            Build { mode: name.to_string(), ptx: Ok(ptx), untouched: untouched_functions(&warnings) }
        }
        Err(e) => Build { mode: name.to_string(), ptx: Err(e.to_string()), untouched: Vec::new() },
    }
}

/// Runs `runs` (function, args, launch) on every build and compares with stock.
pub fn compare_builds(program: &str, builds: &Builds, runs: &[(String, Vec<Arg>, Launch)]) -> Vec<Record> {
    let stock = parse(&builds.stock);
    let run_stock = |(f, args, launch): &(String, Vec<Arg>, Launch), fill: u64| {
        let launch = Launch { register_fill: fill, ..launch.clone() };
        stock.as_ref().map_err(Clone::clone).and_then(|m| run(m, f, args, &launch))
    };
    let stock_results: Vec<Result<Outcome, Error>> = runs.iter().map(|r| run_stock(r, 0)).collect();
    // A stock run that fails decides the verdict alone (`judge`): not run
    // again (a timeout would cost its whole step limit twice).
    let refilled_results: Vec<Result<Outcome, Error>> = runs
        .iter()
        .zip(&stock_results)
        .map(|(r, first)| match first {
            Ok(_) => run_stock(r, UNDEFINED_FILL),
            Err(e) => Err(e.clone()),
        })
        .collect();
    let mut out = vec![];
    for build in &builds.modes {
        // Identical text runs identically; an unparsable build is a failure of that build.
        let module = match &build.ptx {
            Ok(ptx) if *ptx == builds.stock => None,
            Ok(ptx) => Some(Ok(parse(ptx))),
            Err(why) => Some(Err(why)),
        };
        for (((f, args, launch), stock_result), refilled) in
            runs.iter().zip(&stock_results).zip(&refilled_results)
        {
            let verdict = match (&module, stock_result) {
                (_, Err(_)) => judge(stock_result, refilled, stock_result),
                (None, Ok(_)) => Verdict::SamePtx,
                (Some(Err(why)), Ok(_)) => Verdict::Differ(format!("only the plugin build fails: {why}")),
                (Some(Ok(m)), Ok(_)) => {
                    let launch = Launch { step_limit: 2 * launch.step_limit, ..launch.clone() };
                    let result = m.as_ref().map_err(Clone::clone).and_then(|m| run(m, f, args, &launch));
                    judge(stock_result, refilled, &result)
                }
            };
            out.push(Record {
                program: program.to_string(),
                function: f.clone(),
                mode: build.mode.clone(),
                verdict,
                untouched: build.untouched.contains(f),
            });
        }
    }
    out
}

/// The runs for every `.entry` of a corpus build (`module`, stock's): its
/// spec line, or else the first rule of `input_ladder` on which stock's run
/// does not fault (the last rule if none).
pub fn kernel_runs(
    module: &Module,
    specs: &BTreeMap<String, KernelSpec>,
) -> Result<Vec<(String, Vec<Arg>, Launch)>, Error> {
    let mut runs = vec![];
    for f in module.functions.iter().filter(|f| f.is_entry && !f.is_decl) {
        let candidates: Vec<KernelSpec> = match specs.get(&f.name) {
            Some(spec) => vec![spec.clone()],
            None => input_ladder().map(|rule| ladder_spec(module, &f.name, rule)).collect(),
        };
        let mut chosen = None;
        for spec in &candidates {
            let args = make_args(module, &f.name, spec)?;
            let launch = Launch {
                grid: spec.grid,
                block: spec.block,
                dynamic_shared: spec.dynamic_shared,
                step_limit: STEP_LIMIT,
                register_fill: 0,
            };
            let faults =
                candidates.len() > 1 && matches!(run(module, &f.name, &args, &launch), Err(Error::Fault(_)));
            chosen = Some((f.name.clone(), args, launch));
            if !faults {
                break;
            }
        }
        runs.extend(chosen);
    }
    Ok(runs)
}

pub fn load_specs(tc: &Toolchain) -> Result<BTreeMap<String, KernelSpec>, Error> {
    let path = tc.root.join("ptxsim/specs/kernels.txt");
    parse_specs(
        &std::fs::read_to_string(&path).map_err(|e| Error::Harness(format!("{}: {e}", path.display())))?,
    )
}

/// tests/kernels/*.cu, sorted.
pub fn corpus_files(tc: &Toolchain) -> Result<Vec<PathBuf>, Error> {
    let dir = tc.root.join("tests/kernels");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| Error::Harness(format!("{}: {e}", dir.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cu"))
        .collect();
    files.sort();
    Ok(files)
}

/// `ptxsim corpus` arguments: `[--fault] [-I DIR]... [--include FILE]... [FILE.cu...]`.
#[derive(Debug, Default, PartialEq)]
pub struct CorpusArgs {
    /// Build only the injected-fault mode.
    pub fault: bool,
    /// clang options: `-I DIR`, `-include FILE`.
    pub includes: Vec<String>,
    /// Empty: tests/kernels.
    pub files: Vec<PathBuf>,
    /// `--mode NAME`, repeatable: only these of `modes()` and `cuda_modes()`;
    /// empty: all.
    pub modes: Vec<String>,
}

impl CorpusArgs {
    pub fn parse(args: &[String]) -> Result<CorpusArgs, Error> {
        let mut out = CorpusArgs::default();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let mut value =
                |what: &str| it.next().cloned().ok_or_else(|| Error::Harness(format!("{a} needs a {what}")));
            match a.as_str() {
                "--fault" => out.fault = true,
                "--mode" => {
                    let name = value("mode name")?;
                    if !modes().iter().chain(cuda_modes()).any(|(m, _)| *m == name) {
                        let known: Vec<&str> = modes().iter().chain(cuda_modes()).map(|(m, _)| *m).collect();
                        return Err(Error::Harness(format!(
                            "unknown mode {name:?}; modes: {}",
                            known.join(", ")
                        )));
                    }
                    out.modes.push(name);
                }
                "-I" => out.includes.extend(["-I".to_string(), value("folder")?]),
                "--include" => out.includes.extend(["-include".to_string(), value("file")?]),
                _ if a.starts_with("-I") => out.includes.push(a.clone()),
                _ if a.starts_with('-') => return Err(Error::Harness(format!("unknown option {a}"))),
                _ => out.files.push(PathBuf::from(a)),
            }
        }
        Ok(out)
    }
}

/// The records of the files that built, and for each file that did not
/// (clang or stock llc failed on it, which is not the plugin's doing; a
/// plugin build that fails is a record of its own) the first line of why.
pub fn split_failures(
    files: &[PathBuf],
    results: Vec<Result<Vec<Record>, Error>>,
) -> (Vec<Record>, Vec<(PathBuf, String)>) {
    let mut records = Vec::new();
    let mut failed = Vec::new();
    for (file, result) in files.iter().zip(results) {
        match result {
            Ok(r) => records.extend(r),
            Err(e) => {
                failed.push((file.clone(), e.to_string().lines().next().unwrap_or_default().to_string()))
            }
        }
    }
    (records, failed)
}

/// Compiles one corpus kernel file every way (`modes` from stock clang's IR,
/// `cuda_modes` each from its own, see `cuda_modes()`) and compares every entry.
pub fn corpus_file(
    tc: &Toolchain,
    cu: &Path,
    dir: &Path,
    modes: &[(&str, &[&str])],
    cuda_modes: &[(&str, &[&str])],
) -> Result<Vec<Record>, Error> {
    let specs = load_specs(tc)?;
    let stem = cu.file_stem().and_then(|s| s.to_str()).unwrap_or("kernel").to_string();
    let ll = dir.join(format!("{stem}.ll"));
    tc.cuda_to_ll(cu, &ll, None)?;
    let mut builds = build_all(tc, &ll, dir, &[], modes)?;
    for &(name, opts) in cuda_modes {
        let own_ll = dir.join(format!("{stem}.{}.ll", file_name(name)));
        let built = tc
            .cuda_to_ll(cu, &own_ll, Some(opts))
            .and_then(|()| llc_build(tc, &own_ll, dir, &[], name, Some(opts)));
        builds.modes.push(mode_build(name, built));
    }
    let module = parse(&builds.stock)?;
    let runs = kernel_runs(&module, &specs)?;
    Ok(compare_builds(&stem, &builds, &runs))
}

/// csmith options: programs small enough to interpret in well under a
/// second, still with loops, pointers, structs and calls.
const CSMITH_OPTIONS: &[&str] =
    &["--max-funcs", "4", "--max-block-depth", "3", "--no-volatiles", "--no-packed-struct"];

/// Generates csmith program `seed`, builds it every way and compares runs of
/// its `main` (argc 1, argv null): return value and every global, which
/// includes csmith's checksum `crc32_context`.
pub fn csmith_program(
    tc: &Toolchain,
    seed: u64,
    dir: &Path,
    modes: &[(&str, &[&str])],
) -> Result<Vec<Record>, Error> {
    let c = dir.join(format!("csmith{seed}.c"));
    let ll = dir.join(format!("csmith{seed}.ll"));
    let out = Command::new("csmith")
        // csmith leaves a platform.info in its working directory.
        .current_dir(dir)
        .args(CSMITH_OPTIONS)
        .args(["--seed", &seed.to_string(), "-o", path_str(&c)])
        .output()
        .map_err(|e| Error::Harness(format!("csmith: {e} (scripts/setup.sh installs it)")))?;
    if !out.status.success() {
        return Err(Error::Harness(format!("csmith --seed {seed} failed")));
    }
    let stand_ins = tc.root.join("ptxsim/csmith");
    let args = [
        "--target=nvptx64-nvidia-cuda",
        "-march=sm_90",
        // clang's default PTX ISA for a bare nvptx64 target predates sm_90.
        "-Xclang",
        "-target-feature",
        "-Xclang",
        "+ptx78",
        "-O2",
        "-ffreestanding",
        "-DCSMITH_MINIMAL",
        "-DNOT_PRINT_CHECKSUM",
        "-w",
        "-I",
        path_str(&stand_ins),
        "-I",
        "/usr/include/csmith",
        "-emit-llvm",
        "-S",
        path_str(&c),
        "-o",
        path_str(&ll),
    ];
    tc.tool("clang", &args)?;
    // LLVM's NVPTX backend turns each `unreachable` (csmith's cleanup
    // switches have many) into an inline-asm `exit`, and the plugin leaves
    // functions with inline assembly alone; a real `trap` instead keeps
    // `main` within the plugin's reach. Stock and every mode get the option.
    let builds = build_all(tc, &ll, dir, &["-trap-unreachable"], modes)?;
    let argc = 1u32.to_le_bytes().to_vec();
    let runs = vec![(
        "main".to_string(),
        vec![Arg::Scalar(argc), Arg::Scalar(vec![0; 8])],
        Launch { grid: [1; 3], block: [1; 3], dynamic_shared: 0, step_limit: STEP_LIMIT, register_fill: 0 },
    )];
    Ok(compare_builds(&format!("csmith{seed}"), &builds, &runs))
}

/// Runs `job` on every item with one worker per core, each with its own
/// scratch directory; results come back in item order.
pub fn run_parallel<T: Sync>(
    items: &[T],
    job: impl Fn(&T, &Path) -> Result<Vec<Record>, Error> + Sync,
) -> Vec<Result<Vec<Record>, Error>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).min(items.len().max(1));
    let next = AtomicUsize::new(0);
    type Slot = Option<Result<Vec<Record>, Error>>;
    let results: Mutex<Vec<Slot>> = Mutex::new(items.iter().map(|_| None).collect());
    std::thread::scope(|s| {
        for w in 0..workers {
            let (next, results, job) = (&next, &results, &job);
            s.spawn(move || {
                let dir = std::env::temp_dir().join(format!("ptxsim-{}-{w}", std::process::id()));
                let _ = std::fs::create_dir_all(&dir);
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(item) = items.get(i) else { break };
                    let r = job(item, &dir);
                    results.lock().expect("no worker panics holding the lock")[i] = Some(r);
                }
                let _ = std::fs::remove_dir_all(&dir);
            });
        }
    });
    results.into_inner().expect("workers done").into_iter().map(|r| r.expect("every item ran")).collect()
}

/// Counts by verdict kind, per mode, for a report.
pub fn summarize(records: &[Record]) -> String {
    let mut by_mode: BTreeMap<&str, BTreeMap<&str, usize>> = BTreeMap::new();
    for r in records {
        *by_mode.entry(&r.mode).or_default().entry(r.verdict.kind()).or_default() += 1;
    }
    let mut untouched: BTreeMap<&str, usize> = BTreeMap::new();
    for r in records.iter().filter(|r| r.untouched) {
        *untouched.entry(&r.mode).or_default() += 1;
    }
    let kinds = ["same", "same-ptx", "unsupported", "timeout", "stock-fault", "DIFFER"];
    let width = modes().iter().map(|(name, _)| name.len()).max().unwrap_or(0).max(fault_mode().0.len()) + 2;
    let mut s = format!("{:width$}", "mode");
    for k in kinds {
        s += &format!("{k:>12}");
    }
    s += &format!("{:>16}\n", "plugin-left-fn");
    for (mode, counts) in &by_mode {
        s += &format!("{mode:width$}");
        for k in kinds {
            s += &format!("{:>12}", counts.get(k).copied().unwrap_or(0));
        }
        s += &format!("{:>16}\n", untouched.get(mode).copied().unwrap_or(0));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mode_named_here_is_in_the_table() {
        assert_eq!(modes().len(), MODE_NAMES.len());
        assert_eq!(cuda_modes()[0], ("default", &[][..]));
        assert!(fault_mode().1.contains(&"-nvregalloc-verify=false"));
        let no_lsr = modes().iter().find(|(name, _)| *name == "no lsr").unwrap();
        assert!(no_lsr.1[0].ends_with("/../tests/lit/Inputs/lsr-off-everywhere.nvra"));
    }

    /// Bytes stock's two runs disagree on (they depend on a register read
    /// before any write) may hold anything in a build; the others must match.
    #[test]
    fn outputs_of_undefined_registers_may_differ_and_the_rest_may_not() {
        let outcome = |bytes: &[u8]| -> Result<Outcome, Error> {
            Ok(Outcome { buffers: vec![bytes.to_vec()], globals: vec![], ret: vec![], steps: 0 })
        };
        let (stock, refilled) = (outcome(&[1, 2, 3]), outcome(&[1, 0x5a, 3]));
        assert!(matches!(judge(&stock, &refilled, &outcome(&[1, 7, 3])), Verdict::Same));
        assert!(matches!(judge(&stock, &refilled, &outcome(&[0, 2, 3])), Verdict::Differ(_)));
        assert!(matches!(judge(&stock, &stock, &outcome(&[1, 7, 3])), Verdict::Differ(_)));
        assert!(matches!(judge(&stock, &refilled, &outcome(&[1, 7])), Verdict::Differ(_)));
        assert_eq!(first_defined_difference(&[1, 2, 3], &[1, 0x5a, 3], &[1, 7, 4]), Some(2));
        let diverged = Err(Error::Fault("address 0x5a5a5a5a is not mapped".into()));
        assert!(matches!(judge(&stock, &diverged, &outcome(&[1, 2, 3])), Verdict::StockFault(_)));
    }

    #[test]
    fn corpus_arguments_pass_includes_to_clang() {
        let args: Vec<String> = ["-I", "inc", "--include", "pre.h", "-Iother", "a.cu", "--fault", "b.cu"]
            .map(String::from)
            .to_vec();
        let parsed = CorpusArgs::parse(&args).unwrap();
        assert!(parsed.fault);
        assert_eq!(parsed.includes, ["-I", "inc", "-include", "pre.h", "-Iother"]);
        assert_eq!(parsed.files, [PathBuf::from("a.cu"), PathBuf::from("b.cu")]);
        assert!(CorpusArgs::parse(&["--bogus".to_string()]).is_err());
        assert!(CorpusArgs::parse(&["-I".to_string()]).is_err());
    }

    #[test]
    fn a_file_that_does_not_build_is_listed_and_the_others_are_kept() {
        let record = Record {
            program: "a".into(),
            function: "k".into(),
            mode: "both".into(),
            verdict: Verdict::Same,
            untouched: false,
        };
        let files = [PathBuf::from("a.cu"), PathBuf::from("b.cu")];
        let (records, failed) =
            split_failures(&files, vec![Ok(vec![record]), Err(Error::Harness("clang: no\nmore".into()))]);
        assert_eq!(records.len(), 1);
        assert_eq!(failed, [(PathBuf::from("b.cu"), "harness: clang: no".to_string())]);
    }

    /// Reads element n * n of its buffer: past 4096 elements for n = 256
    /// and n = 64, so the first rules fault and the ladder settles on 65536
    /// elements with n = 64.
    #[test]
    fn the_input_ladder_finds_inputs_stock_runs_without_a_fault() {
        let ptx = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 .ptr .align 1 k_param_0, .param .u32 k_param_1)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<5>;
    ld.param.b64 %rd1, [k_param_0];
    ld.param.b32 %r1, [k_param_1];
    cvta.to.global.u64 %rd2, %rd1;
    mul.lo.s32 %r2, %r1, %r1;
    mul.wide.s32 %rd3, %r2, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.b32 %r3, [%rd4];
    st.global.b32 [%rd2], %r3;
    ret;
}
"#;
        let module = parse(ptx).unwrap();
        let default = default_spec(&module, "k");
        let args = make_args(&module, "k", &default).unwrap();
        let launch = Launch {
            grid: default.grid,
            block: default.block,
            dynamic_shared: 0,
            step_limit: STEP_LIMIT,
            register_fill: 0,
        };
        assert!(matches!(run(&module, "k", &args, &launch), Err(Error::Fault(_))));
        let runs = kernel_runs(&module, &BTreeMap::new()).unwrap();
        let (_, args, launch) = &runs[0];
        if let Err(e) = run(&module, "k", args, launch) {
            panic!("{e} with {launch:?}");
        }
        match &args[..] {
            [Arg::Buffer(b), Arg::Scalar(n)] => {
                assert_eq!(b.len(), 65536 * 4);
                assert_eq!(n[..], 64u32.to_le_bytes());
            }
            other => panic!("unexpected arguments {other:?}"),
        }
    }
}

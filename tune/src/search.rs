//! The search, for one GPU: build the source once per candidate (stock,
//! the plugin's default and the plugin's other choices), ask ptxas and
//! cuobjdump, and pick per kernel what the objective prefers; then try
//! register caps; then make sure the combined build leaves every kernel
//! admissible against its baseline (stock's and the default's builds, see
//! `objective`).
//!
//! - Candidates best first per kernel, each distinct PTX once (a choice
//!   that changes nothing repeats another); the admissible ones come
//!   first (the kernel's base is always one: the default, or stock where
//!   the default spills more), and the first is the kernel's choice.
//!   Choices that give up instruction-level parallelism (`costs_ilp`) come
//!   after every other.
//! - Caps (PTX `.maxnreg`): ptxas left to itself often takes more registers
//!   than it needs. Where registers limit a kernel's occupancy, a cap at the
//!   next step below goes on top of its choice; where ptxas keeps it
//!   without harm, the next step down is tried, and where it does not, the
//!   same step on the kernel's next candidate (renaming or the pressure pass
//!   sometimes leaves ptxas room that stock's PTX does not). One build per
//!   round tries every kernel's next cap.
//! - A function kernels call (not inlined) has no figures of its own:
//!   ptxas compiles it into each calling kernel. It takes the choice of the
//!   caller that gains most by its choice, uncapped (`.maxnreg` is a
//!   kernel's).
//! - If a kernel comes out inadmissible in the final build (callers that
//!   share a callee cannot all have their own choice for it), it falls back
//!   to its base, and from its base to stock's choice; where it is on stock's
//!   choice already, the caller whose choice its callee took does. The
//!   build is redone until none is inadmissible or nothing is left to fall
//!   back: each function falls back at most twice, so the rounds end.
//! - Functions the options do not name (device functions inlined before
//!   the PTX, which no kernel's choice reaches) take the default's choices,
//!   as in every candidate but stock: the middle end acts on them before
//!   they are inlined (a device function's local copies, say), so with
//!   stock's their kernels would come out as none of the candidates did.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Instant;

use nvregalloc::choices::{self, FunctionChoices, Section, KEYS};

use crate::figures::{Figures, Ptx};
use crate::objective::{Baseline, Judge, Objective};
use crate::report::limiter_name;

/// A set of per-function choices the search tries on every kernel.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub name: &'static str,
    pub choices: FunctionChoices,
    /// Gives up instruction-level parallelism: worth it only where nothing
    /// else reaches its occupancy step.
    pub costs_ilp: bool,
    /// Changes only what ptxas spills, into shared memory that each block
    /// takes: built only where stock's build spills. Where the PTX declares
    /// the block size (`.maxntid`, `.reqntid`) the kernel's occupancy counts
    /// that memory; where it does not, the choice is open only if the memory
    /// costs no warps at any block size.
    pub spills_to_shared: bool,
}

/// The candidates in the order they are built, which is also their order of
/// preference on ties after the default: stock first (it changes nothing),
/// then the plugin's default (`DEFAULT`: with stock, the baseline every
/// choice is judged against, and the choice on a tie), then the others by how often `balanced` took them on HeCBench
/// and tests/kernels (docs/results-tuning.md), so that a time budget
/// (`--budget`) cut short builds the likeliest first. Without a middle end
/// (llc), those that act only there are left out.
pub fn candidates(has_middle_end: bool) -> Vec<Candidate> {
    use choices::{
        COLOR, INLINE, INVARIANTS, LSR, PRESSURE, PROMOTE, ROLLED, SCHED, SPILL, UNDEFINED, UNROLL, WIDEN,
    };
    let plugin = FunctionChoices::plugin_default();
    let renamed = plugin.clone().with(&COLOR, "rename");
    let all = [
        ("stock", FunctionChoices::stock()),
        ("plugin", plugin.clone()),
        ("sched pressure", plugin.clone().with(&SCHED, "pressure")),
        // One 32-bit index per loop instead of a 64-bit pointer per array.
        ("no lsr", plugin.clone().with(&LSR, "off")),
        ("no lsr, sched pressure", plugin.clone().with(&LSR, "off").with(&SCHED, "pressure")),
        // LSR's form where the default's judge undid it by its estimate.
        ("lsr on", plugin.clone().with(&LSR, "on")),
        ("pressure", plugin.clone().with(&PRESSURE, "relieve")),
        ("rename", renamed.clone()),
        ("pressure+rename", renamed.clone().with(&PRESSURE, "relieve")),
        ("undefined shared", renamed.with(&UNDEFINED, "shared")),
        // A kernel's choice reaches the functions it calls (callee owners),
        // which is where this acts.
        ("inline", plugin.clone().with(&INLINE, "always")),
        ("promote small", plugin.clone().with(&PROMOTE, "small")),
        ("no promote", plugin.clone().with(&PROMOTE, "off")),
        // Unrolling in levels (choices::UNROLL): full unrolls only, of up
        // to 300 IR instructions, then 75, then none.
        ("unroll full", plugin.clone().with(&UNROLL, "full")),
        ("unroll small", plugin.clone().with(&UNROLL, "small")),
        ("no unroll", plugin.clone().with(&UNROLL, "off")),
        // Not yet ranked by how often `balanced` takes them. First, loop
        // invariants recomputed in their loops (choices::INVARIANTS).
        ("recompute invariants", plugin.clone().with(&INVARIANTS, "recomputed")),
        ("widen", plugin.clone().with(&WIDEN, "block")),
        // Loops LLVM left rolled for their size given back to ptxas, which
        // may unroll them (choices::ROLLED).
        ("ptxas unrolls", plugin.clone().with(&ROLLED, "ptxas")),
        // Spills ptxas must make, into shared memory (choices::SPILL).
        ("shared spills", plugin.clone().with(&SPILL, "shared")),
    ];
    let middle_end_only = |c: &FunctionChoices| {
        KEYS.iter().any(|k| k.middle_end && !k.values.is_empty() && c.get(k) != plugin.get(k))
    };
    all.into_iter()
        .filter(|(name, c)| has_middle_end || *name == "stock" || !middle_end_only(c))
        .map(|(name, choices)| Candidate {
            name,
            costs_ilp: !choices.is(&UNROLL, "on"),
            spills_to_shared: choices.is(&SPILL, "shared"),
            choices,
        })
        .collect()
}

/// A candidate (index into the candidates), with a register cap on top.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Choice {
    pub candidate: usize,
    pub cap: Option<u32>,
}

const STOCK: Choice = Choice { candidate: 0, cap: None };
/// The plugin's default choices: `candidates` puts them second.
const DEFAULT: Choice = Choice { candidate: 1, cap: None };

impl Choice {
    fn of(candidate: usize) -> Self {
        Choice { candidate, cap: None }
    }
}

/// Where a build's PTX must come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fidelity {
    /// The compile command itself: the builds the search's promise rests
    /// on (stock's figures, and the combined build no kernel may come out
    /// of worse than stock).
    Command,
    /// Anything shown to make the command's PTX (the candidates and the cap
    /// rounds, which only rank choices).
    Equivalent,
}

/// What the search keeps of one build: ptxas's figures per function, a
/// digest of each function's PTX (to tell when two candidates made the same
/// code of it), and what each kernel calls. A partial cache entry keeps
/// these, so that a later compile tunes further without building them again.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Built {
    pub figures: BTreeMap<String, Figures>,
    pub digests: BTreeMap<String, String>,
    pub calls: BTreeMap<String, BTreeSet<String>>,
}

impl Built {
    pub fn new(ptx: &str, figures: BTreeMap<String, Figures>) -> Self {
        let ptx = Ptx::new(ptx);
        Built { figures, digests: ptx.function_digests(), calls: ptx.called_functions() }
    }
}

/// Round limit for caps: enough for a kernel to reach rolled loops, the
/// last candidate, after every other failed a step.
const CAP_ROUNDS: usize = 12;

/// One kernel's outcome.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Decision {
    pub choice: String,
    pub reason: String,
}

pub struct Outcome {
    /// The options section for this GPU.
    pub section: Section,
    pub stock: BTreeMap<String, Figures>,
    /// The plugin's default build's figures.
    pub default: BTreeMap<String, Figures>,
    /// The final build's figures (a function inlined everywhere is absent).
    pub tuned: BTreeMap<String, Figures>,
    pub decisions: BTreeMap<String, Decision>,
    pub builds: usize,
    /// Whether the time budget left candidates or cap rounds untried.
    pub cut: bool,
    /// Each candidate's build, by name, for a partial cache entry.
    pub tried: BTreeMap<String, Built>,
}

pub struct Search<'a> {
    pub gpu: Option<String>,
    pub judge: Judge,
    pub candidates: Vec<Candidate>,
    pub jobs: usize,
    /// No candidate build or cap round starts after this (`--budget`); stock's,
    /// the default's and the combined build always run.
    pub deadline: Option<Instant>,
    /// Candidates built by an earlier search cut by its budget, by name.
    pub earlier: BTreeMap<String, Built>,
    /// Builds with an options file's text; `label` names the build.
    pub build: &'a (dyn Fn(&str, &str, Fidelity) -> Result<Built, String> + Sync),
    /// Called once per build done.
    pub progress: &'a (dyn Fn(&str) + Sync),
}

impl Search<'_> {
    fn label(&self, choice: Choice) -> String {
        let name = self.candidates[choice.candidate].name;
        match choice.cap {
            Some(cap) => format!("cap {cap} on {name}"),
            None => name.to_owned(),
        }
    }

    fn choices(&self, choice: Choice) -> FunctionChoices {
        self.candidates[choice.candidate].choices.clone().with_cap(choice.cap)
    }

    /// An options section: `chosen` per function, `others` for the rest.
    fn section(
        &self,
        others: Choice,
        chosen: &BTreeMap<String, Choice>,
        comments: &BTreeMap<String, String>,
    ) -> Section {
        Section {
            gpu: self.gpu.clone(),
            others: self.choices(others),
            functions: chosen
                .iter()
                .map(|(name, &c)| {
                    let comment = comments.get(name).cloned().unwrap_or_else(|| self.label(c));
                    (name.clone(), self.choices(c), comment)
                })
                .collect(),
        }
    }

    fn run_build(
        &self,
        label: &str,
        others: Choice,
        chosen: &BTreeMap<String, Choice>,
        fidelity: Fidelity,
    ) -> Result<Built, String> {
        let mut section = self.section(others, chosen, &BTreeMap::new());
        section.gpu = None; // a tuning build compiles for this GPU alone
        let built = (self.build)(label, &choices::OptionsFile::write("", &[section]), fidelity)?;
        (self.progress)(label);
        Ok(built)
    }

    fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    pub fn run(&self) -> Result<Outcome, String> {
        let judge = &self.judge;
        // Stock first: device code without functions (a host-only source
        // compiled as CUDA) has nothing to tune.
        let stock_build = match self.earlier.get(self.candidates[0].name) {
            Some(built) => built.clone(),
            None => self.run_build(self.candidates[0].name, STOCK, &BTreeMap::new(), Fidelity::Command)?,
        };
        let mut builds = usize::from(!self.earlier.contains_key(self.candidates[0].name));
        let stock_spills = stock_build.figures.values().any(|f| f.spills() > 0);
        let not_needed = |c: usize| self.candidates[c].spills_to_shared && !stock_spills;
        if stock_build.figures.is_empty() {
            return Ok(Outcome {
                section: self.section(STOCK, &BTreeMap::new(), &BTreeMap::new()),
                stock: BTreeMap::new(),
                default: BTreeMap::new(),
                tuned: BTreeMap::new(),
                decisions: BTreeMap::new(),
                builds,
                cut: false,
                tried: BTreeMap::new(),
            });
        }
        // Every other candidate on every function: independent builds,
        // `jobs` at a time, in the candidates' order while the budget lasts
        // (the default's always: it is half the baseline).
        let others: Vec<Option<Result<Built, String>>> =
            parallel_map(self.candidates.len() - 1, self.jobs, |c| {
                let candidate = &self.candidates[c + 1];
                if let Some(built) = self.earlier.get(candidate.name) {
                    return Some(Ok(built.clone()));
                }
                if not_needed(c + 1) || Choice::of(c + 1) != DEFAULT && self.past_deadline() {
                    return None;
                }
                Some(self.run_build(
                    candidate.name,
                    Choice::of(c + 1),
                    &BTreeMap::new(),
                    Fidelity::Equivalent,
                ))
            });
        let mut cut = false;
        let mut tried = BTreeMap::new();
        let mut figures: HashMap<Choice, BTreeMap<String, Figures>> = HashMap::new();
        let mut digests: HashMap<usize, BTreeMap<String, String>> = HashMap::new();
        for (c, built) in std::iter::once(Some(Ok(stock_build))).chain(others).enumerate() {
            let Some(built) = built else {
                cut |= !not_needed(c);
                continue;
            };
            let built = built?;
            if c > 0 && !self.earlier.contains_key(self.candidates[c].name) {
                builds += 1;
            }
            figures.insert(Choice::of(c), built.figures.clone());
            digests.insert(c, built.digests.clone());
            tried.insert(self.candidates[c].name.to_owned(), built);
        }
        let stock = figures[&STOCK].clone();
        let of = |figures: &HashMap<Choice, BTreeMap<String, Figures>>, c: Choice, name: &str| -> Figures {
            figures.get(&c).and_then(|f| f.get(name)).unwrap_or(&stock[name]).clone()
        };
        let default: BTreeMap<String, Figures> =
            stock.keys().map(|name| (name.clone(), of(&figures, DEFAULT, name))).collect();
        let baseline = |name: &str| Baseline { stock: &stock[name], default: &default[name] };
        let base = |name: &str| if baseline(name).default_spills_more() { STOCK } else { DEFAULT };

        let reach = tried[self.candidates[0].name].calls.clone();
        let callees: BTreeSet<String> = reach.values().flatten().cloned().collect();
        // Functions chosen for: kernels and what no kernel calls.
        let own: Vec<String> = stock.keys().filter(|n| !callees.contains(*n)).cloned().collect();
        let mut bases: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for name in &own {
            let spill_area_fits = |c: usize| {
                let f = of(&figures, Choice::of(c), name);
                f.block_threads.is_some()
                    || judge.gpu.shared_costs_no_warps(f.registers, f.shared, default[name].shared)
            };
            let mut ranked: Vec<usize> = (0..self.candidates.len())
                .filter(|&c| {
                    digests.contains_key(&c) && (!self.candidates[c].spills_to_shared || spill_area_fits(c))
                })
                .collect();
            let base_figures = of(&figures, base(name), name);
            let key = |c: usize| {
                let f = of(&figures, Choice::of(c), name);
                (
                    self.candidates[c].costs_ilp,
                    !judge.admissible(&f, baseline(name)),
                    // The base stays unless a choice gains more than noise.
                    Choice::of(c) != base(name) && !judge.gains_over(&f, &base_figures, &stock[name]),
                    judge.rank(&f, &stock[name]),
                    // On a tie the default stays: it is what the user has.
                    Choice::of(c) != DEFAULT,
                )
            };
            ranked.sort_by(|&a, &b| key(a).partial_cmp(&key(b)).expect("ranks are numbers"));
            let mut seen = BTreeSet::new();
            ranked.retain(|&c| seen.insert(digests[&c].get(name).cloned()));
            bases.insert(name.clone(), ranked);
        }
        let mut chosen: BTreeMap<String, Choice> =
            own.iter().map(|n| (n.clone(), Choice::of(bases[n][0]))).collect();
        // The registers of the next step down, where registers limit. Under
        // `balanced`, the step in warps the kernel runs (its block size and
        // shared memory counted: a cap that gains none is judged no better,
        // and would end the kernel's caps short of the step), and only below
        // saturation, where a step can gain useful warps (past it a cap
        // could only win by moving instructions, and the search would walk
        // down the candidates to the unroll levels, which the loop weights
        // flatter, looking for one that does).
        let step_below = |f: &Figures| match judge.objective {
            Objective::Occupancy => judge.gpu.cap_below(f.registers, 0, None),
            Objective::Balanced => (f.occupancy.limiter == nvregalloc::occupancy::Limiter::Registers
                && f.occupancy.warps < judge.saturating_warps)
                .then(|| judge.gpu.cap_below(f.registers, f.shared, f.block_threads))
                .flatten(),
        };
        let mut target: BTreeMap<String, Option<u32>> =
            own.iter().map(|n| (n.clone(), step_below(&of(&figures, chosen[n], n)))).collect();
        let gain = |figures: &HashMap<Choice, BTreeMap<String, Figures>>,
                    chosen: &BTreeMap<String, Choice>,
                    k: &str| { judge.profit(&of(figures, chosen[k], k), &stock[k]) };

        for round in 1..=CAP_ROUNDS {
            let trying: BTreeMap<String, Choice> = own
                .iter()
                .filter_map(|n| {
                    let base = *bases[n].first()?;
                    Some((n.clone(), Choice { candidate: base, cap: Some(target[n]?) }))
                })
                .collect();
            if trying.is_empty() {
                break;
            }
            if self.past_deadline() {
                cut = true;
                break;
            }
            let mut combined = chosen.clone();
            combined.extend(trying.clone());
            let owners = callee_owners(&combined, &reach, |k| gain(&figures, &combined, k));
            let built = self.run_build(
                &format!("caps, round {round}"),
                DEFAULT,
                &with_callees(&combined, &owners),
                Fidelity::Equivalent,
            )?;
            builds += 1;
            for (name, choice) in trying {
                let f = built.figures.get(&name).unwrap_or(&stock[&name]).clone();
                figures.entry(choice).or_default().insert(name.clone(), f.clone());
                if judge.admissible(&f, baseline(&name))
                    && judge.gains_over(&f, &of(&figures, chosen[&name], &name), &stock[&name])
                {
                    chosen.insert(name.clone(), choice);
                    target.insert(name.clone(), step_below(&f));
                } else {
                    bases.get_mut(&name).expect("every own function has bases").remove(0);
                }
            }
        }

        let mut fell_back = BTreeSet::new();
        loop {
            let owners = callee_owners(&chosen, &reach, |k| gain(&figures, &chosen, k));
            let all = with_callees(&chosen, &owners);
            let built = self.run_build("combined", DEFAULT, &all, Fidelity::Command)?;
            builds += 1;
            let worse: Vec<&String> = own
                .iter()
                .filter(|n| built.figures.get(*n).is_some_and(|f| !judge.admissible(f, baseline(n))))
                .collect();
            // Each to fall back: its base, then stock's choice.
            let mut back = BTreeMap::new();
            // Only ever down: a choice to its base, the base to stock's.
            let mut fall_back = |n: &String| {
                let to = if chosen[n] != base(n) { base(n) } else { STOCK };
                if chosen[n] != STOCK {
                    back.insert(n.clone(), to);
                }
            };
            for n in &worse {
                fall_back(n);
            }
            for n in worse.iter().filter(|n| chosen[**n] == STOCK) {
                for owner in reach.get(*n).into_iter().flatten().filter_map(|f| owners.get(f)) {
                    fall_back(owner);
                }
            }
            if back.is_empty() {
                let decisions = self.decisions(&all, &owners, &baseline, &built.figures, &fell_back);
                let comments = decisions.iter().map(|(n, d)| (n.clone(), d.reason.clone())).collect();
                return Ok(Outcome {
                    section: self.section(DEFAULT, &all, &comments),
                    stock,
                    default,
                    tuned: built.figures,
                    decisions,
                    builds,
                    cut,
                    tried,
                });
            }
            for (n, to) in back {
                chosen.insert(n.clone(), to);
                fell_back.insert(n);
            }
        }
    }

    /// Each function's choice and why.
    fn decisions<'b>(
        &self,
        all: &BTreeMap<String, Choice>,
        owners: &BTreeMap<String, String>,
        baseline: &impl Fn(&str) -> Baseline<'b>,
        tuned: &BTreeMap<String, Figures>,
        fell_back: &BTreeSet<String>,
    ) -> BTreeMap<String, Decision> {
        let judge = &self.judge;
        let no_better = if judge.margin() > 0.0 {
            format!("no admissible choice does {}% better", judge.margin() * 100.0)
        } else {
            "no admissible choice does better".to_owned()
        };
        let mut decisions = BTreeMap::new();
        for (name, &choice) in all {
            let reason = if let Some(owner) = owners.get(name) {
                format!("called by {owner}: takes its choice")
            } else if let Some(t) = tuned.get(name) {
                let base = baseline(name);
                let s = base.stock;
                let limit = |f: &Figures| limiter_name(f.occupancy.limiter);
                let warps = if s.occupancy.warps == t.occupancy.warps {
                    format!("{} warps ({})", t.occupancy.warps, limit(t))
                } else {
                    format!(
                        "warps {} ({}) -> {} ({})",
                        s.occupancy.warps,
                        limit(s),
                        t.occupancy.warps,
                        limit(t)
                    )
                };
                let why_stock = if base.stock == base.default {
                    "the default's figures are stock's".to_owned()
                } else if base.default_spills_more() {
                    format!(
                        "the default spills {} bytes where stock spills {}",
                        base.default.spills(),
                        s.spills()
                    )
                } else if fell_back.contains(name) {
                    "its choice and the default came out inadmissible in the combined build".to_owned()
                } else {
                    no_better.clone()
                };
                let still = judge.why_not(t, base).map(|why| format!("; still {why}")).unwrap_or_default();
                if choice == STOCK {
                    format!("stock's: {why_stock}; {warps}{still}")
                } else if choice == DEFAULT && !fell_back.contains(name) {
                    format!("the default: {no_better}; {warps}")
                } else {
                    let fell = if fell_back.contains(name) { "fell back to it; " } else { "" };
                    format!(
                        "{fell}{warps}; loop-weighted cost {:.0} -> {:.0} (default {:.0}); profit {:.3}{still}",
                        judge.cost(s),
                        judge.cost(t),
                        judge.cost(base.default),
                        judge.profit(t, s)
                    )
                }
            } else {
                "inlined everywhere".to_owned()
            };
            decisions.insert(name.clone(), Decision { choice: self.label(choice), reason });
        }
        decisions
    }
}

/// Whose choice each called function takes: of its callers, the one that
/// gains most (`gain(kernel)`), callers on stock's choice last. Every
/// called function has an owner: one left to the options' `*` line would
/// take the default's choices, which none of its callers may have.
fn callee_owners(
    chosen: &BTreeMap<String, Choice>,
    reach: &BTreeMap<String, BTreeSet<String>>,
    gain: impl Fn(&str) -> f64,
) -> BTreeMap<String, String> {
    let mut kernels: Vec<&String> = reach.keys().filter(|k| chosen.contains_key(*k)).collect();
    kernels.sort_by(|a, b| {
        let key = |k: &str| (chosen[k] == STOCK, -gain(k));
        key(a).partial_cmp(&key(b)).expect("gains are numbers")
    });
    let mut owners = BTreeMap::new();
    for kernel in kernels {
        for f in &reach[kernel] {
            owners.entry(f.clone()).or_insert_with(|| kernel.clone());
        }
    }
    owners
}

/// `chosen` with each called function on its owner's choice, uncapped.
fn with_callees(
    chosen: &BTreeMap<String, Choice>,
    owners: &BTreeMap<String, String>,
) -> BTreeMap<String, Choice> {
    let mut all = chosen.clone();
    for (f, kernel) in owners {
        all.insert(f.clone(), Choice { cap: None, ..chosen[kernel] });
    }
    all
}

/// `f(0..n)`, at most `jobs` at a time, in order.
pub fn parallel_map<T: Send>(n: usize, jobs: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<T>>> = (0..n).map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, n.max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let value = f(i);
                *results[i].lock().expect("no worker panics holding it") = Some(value);
            });
        }
    });
    results.into_iter().map(|r| r.into_inner().expect("not poisoned").expect("every index ran")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objective::{DEFAULT_LOCAL_WEIGHT, DEFAULT_MIN_GAIN};
    use std::sync::Mutex;

    /// `sass` instructions, `ldl` of them local loads, outside loops.
    fn figures(sass: u32, ldl: u32) -> BTreeMap<String, Figures> {
        let gpu = nvregalloc::occupancy::gpu("sm_90").unwrap();
        let f = Figures {
            registers: 32,
            sass,
            sass_by_depth: [sass, 0, 0, 0, 0],
            ldl,
            local_by_depth: [ldl, 0, 0, 0, 0],
            occupancy: gpu.occupancy(32, 0, None),
            ..Figures::default()
        };
        BTreeMap::from([("k".to_owned(), f)])
    }

    /// A stand-in for the builds: stock keeps 10 local loads, the default
    /// none, and `lsr=off` on top of it saves instructions.
    fn fake_build(label: &str, options: &str) -> Built {
        let choices = options.lines().find(|l| l.starts_with("k ")).unwrap_or("");
        let everywhere = options.lines().find(|l| l.starts_with("* ")).unwrap_or("");
        let line = if label == "combined" { choices } else { everywhere };
        let f = if line.contains("promote=off") || line.is_empty() {
            figures(1000, 10)
        } else if line.contains("lsr=off") {
            figures(900, 0)
        } else {
            figures(1000, 0)
        };
        let digest = format!("{:?}", f["k"]);
        Built { figures: f, digests: BTreeMap::from([("k".to_owned(), digest)]), calls: BTreeMap::new() }
    }

    fn search<'a>(
        deadline: Option<Instant>,
        earlier: BTreeMap<String, Built>,
        build: &'a (dyn Fn(&str, &str, Fidelity) -> Result<Built, String> + Sync),
    ) -> Search<'a> {
        let gpu = nvregalloc::occupancy::gpu("sm_90").unwrap();
        Search {
            gpu: Some("sm_90".to_owned()),
            judge: Judge {
                objective: Objective::Balanced,
                gpu,
                saturating_warps: 32,
                local_weight: DEFAULT_LOCAL_WEIGHT,
                loop_weight: 8.0,
                min_gain: DEFAULT_MIN_GAIN,
            },
            candidates: candidates(true),
            jobs: 1,
            deadline,
            earlier,
            build,
            progress: &|_| {},
        }
    }

    #[test]
    fn the_default_is_the_second_candidate() {
        for middle_end in [true, false] {
            let candidates = candidates(middle_end);
            assert_eq!(candidates[STOCK.candidate].choices, FunctionChoices::stock());
            assert_eq!(candidates[DEFAULT.candidate].choices, FunctionChoices::plugin_default());
        }
    }

    #[test]
    fn a_search_the_budget_cuts_keeps_the_default_and_goes_on_later_from_its_builds() {
        let labels = Mutex::new(Vec::new());
        let build = |label: &str, options: &str, _: Fidelity| {
            labels.lock().unwrap().push(label.to_owned());
            Ok(fake_build(label, options))
        };
        // Out of time from the start: stock's, the default's and the
        // combined build only, and the default is the choice.
        let cut = search(Some(Instant::now()), BTreeMap::new(), &build).run().unwrap();
        assert!(cut.cut);
        assert_eq!(*labels.lock().unwrap(), ["stock", "plugin", "combined"]);
        assert_eq!(cut.builds, 3);
        assert_eq!(cut.decisions["k"].choice, "plugin");
        assert_eq!(cut.tuned["k"].local(), 0);

        // Tuned further: neither is built again, and the rest find lsr=off.
        labels.lock().unwrap().clear();
        let further = search(None, cut.tried, &build).run().unwrap();
        assert!(!further.cut);
        let built = labels.lock().unwrap().clone();
        assert!(!built.iter().any(|l| l == "stock" || l == "plugin"), "{built:?}");
        // Not "shared spills": stock's build spills nothing.
        assert!(!built.iter().any(|l| l == "shared spills"), "{built:?}");
        assert_eq!(further.builds, candidates(true).len() - 3 + 1);
        assert_eq!(further.decisions["k"].choice, "no lsr");
    }

    #[test]
    fn stock_is_the_base_where_the_default_spills_more_and_the_report_says_so() {
        let build = |label: &str, options: &str, _: Fidelity| {
            let mut built = fake_build(label, options);
            let line = if label == "combined" { "k " } else { "* " };
            let promotes = |l: &str| l.contains("promote=on") || l.contains("promote=small");
            let on_default = options.lines().any(|l| l.starts_with(line) && promotes(l));
            if on_default {
                let k = built.figures.get_mut("k").unwrap();
                (k.spill_stores, k.ldl) = (8, 12);
                built.digests.insert("k".to_owned(), format!("{k:?}"));
            }
            Ok(built)
        };
        let outcome = search(None, BTreeMap::new(), &build).run().unwrap();
        let decision = &outcome.decisions["k"];
        assert_eq!(decision.choice, "stock");
        assert!(
            decision.reason.starts_with("stock's: the default spills 8 bytes where stock spills 0"),
            "{decision:?}"
        );
    }

    #[test]
    fn shared_spills_are_chosen_where_stock_spills_and_the_shared_memory_costs_no_warps() {
        let gpu = nvregalloc::occupancy::gpu("sm_90").unwrap();
        // At 32 registers, one-warp blocks run 32 an SM, which 4,096 bytes
        // each allow and 60,000 do not (3).
        for (block_threads, shared, chosen) in
            [(Some(128), 9216, true), (None, 4096, true), (None, 60_000, false)]
        {
            // Stock's build spills 8 bytes; spill=shared leaves none, in
            // fewer instructions.
            let build = |label: &str, options: &str, _: Fidelity| {
                let mut built = fake_build(label, options);
                let line = if label == "combined" { "k " } else { "* " };
                let k = built.figures.get_mut("k").unwrap();
                (k.block_threads, k.occupancy) = (block_threads, gpu.occupancy(32, 0, block_threads));
                if label == "stock" {
                    k.spill_stores = 8;
                } else if options.lines().any(|l| l.starts_with(line) && l.contains("spill=shared")) {
                    (k.sass, k.sass_by_depth, k.shared) = (500, [500, 0, 0, 0, 0], shared);
                }
                built.digests.insert("k".to_owned(), format!("{k:?}"));
                Ok(built)
            };
            let outcome = search(None, BTreeMap::new(), &build).run().unwrap();
            assert!(outcome.tried.contains_key("shared spills"));
            let choice = outcome.decisions["k"].choice.as_str();
            assert_eq!(choice == "shared spills", chosen, "{block_threads:?} {shared}: {choice}");
        }
    }

    #[test]
    fn falling_back_ends_when_nothing_comes_out_admissible() {
        // The combined build, whatever its choices, keeps more local
        // accesses than the default's build showed: every choice falls
        // back, to the default and then to stock's, and the rounds end.
        let combined = Mutex::new(0);
        let build = |label: &str, options: &str, _: Fidelity| {
            let mut built = fake_build(label, options);
            if label == "combined" {
                *combined.lock().unwrap() += 1;
                built.figures.get_mut("k").unwrap().ldl = 50;
            }
            Ok(built)
        };
        let outcome = search(None, BTreeMap::new(), &build).run().unwrap();
        assert_eq!(outcome.decisions["k"].choice, "stock");
        assert_eq!(*combined.lock().unwrap(), 3);
        assert!(outcome.decisions["k"].reason.contains("still more local loads and stores"));
    }
}

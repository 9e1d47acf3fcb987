//! The search, for one GPU: build the source once per candidate (stock and
//! the plugin's choices), ask ptxas and cuobjdump, and pick per kernel what
//! the objective prefers; then try register caps; then make sure the
//! combined build leaves no kernel worse than stock.
//!
//! - Candidates best first per kernel, each distinct PTX once (a choice
//!   that changes nothing repeats another); the admissible ones come
//!   first (stock is always one), and the first is the kernel's choice.
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
//! - If a kernel comes out worse than stock in the final build (callers
//!   that share a callee cannot all have their own choice for it), it falls
//!   back to stock's choice, or where it is on stock's choice already, the
//!   caller whose choice its callee took does; the build is redone until
//!   none is worse. With every kernel on stock's choice the build is
//!   stock's, so the rounds end.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use nvregalloc::choices::{self, FunctionChoices, Section, KEYS};

use crate::figures::{Figures, Ptx};
use crate::objective::Judge;
use crate::report::limiter_name;

/// A set of per-function choices the search tries on every kernel.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub name: &'static str,
    pub choices: FunctionChoices,
    /// Gives up instruction-level parallelism: worth it only where nothing
    /// else reaches its occupancy step.
    pub costs_ilp: bool,
}

/// The candidates in order of preference on ties, stock first (it changes
/// nothing). Without a middle end (llc), those that act only there are left
/// out.
pub fn candidates(has_middle_end: bool) -> Vec<Candidate> {
    use choices::{COLOR, INLINE, LSR, PRESSURE, PROMOTE, SCHED, UNDEFINED, UNROLL};
    let plugin = FunctionChoices::plugin_default();
    let renamed = plugin.clone().with(&COLOR, "rename");
    let all = [
        ("stock", FunctionChoices::stock()),
        ("plugin", plugin.clone()),
        ("rename", renamed.clone()),
        ("undefined shared", renamed.clone().with(&UNDEFINED, "shared")),
        ("pressure", plugin.clone().with(&PRESSURE, "relieve")),
        ("pressure+rename", renamed.with(&PRESSURE, "relieve")),
        // One 32-bit index per loop instead of a 64-bit pointer per array.
        ("no lsr", plugin.clone().with(&LSR, "off")),
        ("sched pressure", plugin.clone().with(&SCHED, "pressure")),
        ("no lsr, sched pressure", plugin.clone().with(&LSR, "off").with(&SCHED, "pressure")),
        ("no unroll", plugin.clone().with(&UNROLL, "off")),
        // A kernel's choice reaches the functions it calls (callee owners),
        // which is where this acts.
        ("inline", plugin.clone().with(&INLINE, "always")),
        ("no promote", plugin.clone().with(&PROMOTE, "off")),
    ];
    let middle_end_only = |c: &FunctionChoices| {
        KEYS.iter().any(|k| k.middle_end && !k.values.is_empty() && c.get(k) != plugin.get(k))
    };
    all.into_iter()
        .filter(|(name, c)| has_middle_end || *name == "stock" || !middle_end_only(c))
        .map(|(name, choices)| Candidate { name, costs_ilp: name == "no unroll", choices })
        .collect()
}

/// A candidate (index into the candidates), with a register cap on top.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Choice {
    pub candidate: usize,
    pub cap: Option<u32>,
}

const STOCK: Choice = Choice { candidate: 0, cap: None };

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

/// What one build gives: the PTX and ptxas's figures per function.
pub struct Built {
    pub ptx: String,
    pub figures: BTreeMap<String, Figures>,
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
    /// The final build's figures (a function inlined everywhere is absent).
    pub tuned: BTreeMap<String, Figures>,
    pub decisions: BTreeMap<String, Decision>,
    pub builds: usize,
}

pub struct Search<'a> {
    pub gpu: Option<String>,
    pub judge: Judge,
    pub candidates: Vec<Candidate>,
    pub jobs: usize,
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

    pub fn run(&self) -> Result<Outcome, String> {
        let judge = &self.judge;
        // Stock first: device code without functions (a host-only source
        // compiled as CUDA) has nothing to tune.
        let stock_build =
            self.run_build(self.candidates[0].name, STOCK, &BTreeMap::new(), Fidelity::Command)?;
        if stock_build.figures.is_empty() {
            return Ok(Outcome {
                section: self.section(STOCK, &BTreeMap::new(), &BTreeMap::new()),
                stock: BTreeMap::new(),
                tuned: BTreeMap::new(),
                decisions: BTreeMap::new(),
                builds: 1,
            });
        }
        // Every other candidate on every function: independent builds,
        // `jobs` at a time.
        let others: Vec<Result<Built, String>> = parallel_map(self.candidates.len() - 1, self.jobs, |c| {
            self.run_build(
                self.candidates[c + 1].name,
                Choice::of(c + 1),
                &BTreeMap::new(),
                Fidelity::Equivalent,
            )
        });
        let mut ptx = Vec::new();
        let mut figures: HashMap<Choice, BTreeMap<String, Figures>> = HashMap::new();
        for (c, built) in std::iter::once(Ok(stock_build)).chain(others).enumerate() {
            let built = built?;
            figures.insert(Choice::of(c), built.figures);
            ptx.push(built.ptx);
        }
        let mut builds = self.candidates.len();
        let stock = figures[&STOCK].clone();
        let of = |figures: &HashMap<Choice, BTreeMap<String, Figures>>, c: Choice, name: &str| -> Figures {
            figures.get(&c).and_then(|f| f.get(name)).unwrap_or(&stock[name]).clone()
        };

        let reach = Ptx::new(&ptx[0]).called_functions();
        let callees: BTreeSet<String> = reach.values().flatten().cloned().collect();
        // Functions chosen for: kernels and what no kernel calls.
        let own: Vec<String> = stock.keys().filter(|n| !callees.contains(*n)).cloned().collect();
        let mut bases: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for name in &own {
            let mut ranked: Vec<usize> = (0..self.candidates.len()).collect();
            let key = |c: usize| {
                let f = of(&figures, Choice::of(c), name);
                (
                    self.candidates[c].costs_ilp,
                    !judge.admissible(&f, &stock[name]),
                    judge.rank(&f, &stock[name]),
                )
            };
            ranked.sort_by(|&a, &b| key(a).partial_cmp(&key(b)).expect("ranks are numbers"));
            let mut seen = BTreeSet::new();
            ranked.retain(|&c| seen.insert(Ptx::new(&ptx[c]).function_text(name).map(str::to_owned)));
            bases.insert(name.clone(), ranked);
        }
        let mut chosen: BTreeMap<String, Choice> =
            own.iter().map(|n| (n.clone(), Choice::of(bases[n][0]))).collect();
        // The registers of the next step down, where registers limit.
        let step_below = |f: &Figures| match judge.objective {
            crate::objective::Objective::Occupancy => judge.gpu.cap_below(f.registers),
            crate::objective::Objective::Balanced => (f.occupancy.limiter
                == nvregalloc::occupancy::Limiter::Registers)
                .then(|| judge.gpu.cap_below(f.registers))
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
            let mut combined = chosen.clone();
            combined.extend(trying.clone());
            let owners = callee_owners(&combined, &reach, |k| gain(&figures, &combined, k));
            let built = self.run_build(
                &format!("caps, round {round}"),
                STOCK,
                &with_callees(&combined, &owners),
                Fidelity::Equivalent,
            )?;
            builds += 1;
            for (name, choice) in trying {
                let f = built.figures.get(&name).unwrap_or(&stock[&name]).clone();
                figures.entry(choice).or_default().insert(name.clone(), f.clone());
                if judge.admissible(&f, &stock[&name])
                    && judge.better(&f, &of(&figures, chosen[&name], &name), &stock[&name])
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
            let built = self.run_build("combined", STOCK, &all, Fidelity::Command)?;
            builds += 1;
            let worse: Vec<&String> = own
                .iter()
                .filter(|n| built.figures.get(*n).is_some_and(|f| judge.worse_than_stock(f, &stock[*n])))
                .collect();
            if worse.is_empty() {
                let decisions = self.decisions(&all, &owners, &stock, &built.figures, &fell_back);
                let comments = decisions.iter().map(|(n, d)| (n.clone(), d.reason.clone())).collect();
                return Ok(Outcome {
                    section: self.section(STOCK, &all, &comments),
                    stock,
                    tuned: built.figures,
                    decisions,
                    builds,
                });
            }
            let mut back: BTreeSet<String> =
                worse.iter().filter(|n| chosen[**n] != STOCK).map(|n| (*n).clone()).collect();
            for n in worse.iter().filter(|n| chosen[**n] == STOCK) {
                back.extend(reach.get(*n).into_iter().flatten().filter_map(|f| owners.get(f).cloned()));
            }
            if back.is_empty() {
                return Err(format!(
                    "stock's choices came out worse than stock: {}",
                    worse.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                ));
            }
            for n in back {
                chosen.insert(n.clone(), STOCK);
                fell_back.insert(n);
            }
        }
    }

    /// Each function's choice and why.
    fn decisions(
        &self,
        all: &BTreeMap<String, Choice>,
        owners: &BTreeMap<String, String>,
        stock: &BTreeMap<String, Figures>,
        tuned: &BTreeMap<String, Figures>,
        fell_back: &BTreeSet<String>,
    ) -> BTreeMap<String, Decision> {
        let judge = &self.judge;
        let mut decisions = BTreeMap::new();
        for (name, &choice) in all {
            let reason = if let Some(owner) = owners.get(name) {
                format!("called by {owner}: takes its choice")
            } else if fell_back.contains(name) {
                "its choice came out worse than stock in the combined build".to_owned()
            } else if let (Some(s), Some(t)) = (stock.get(name), tuned.get(name)) {
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
                if choice == STOCK {
                    format!("no admissible choice does better; {warps}")
                } else {
                    format!(
                        "{warps}; loop-weighted SASS {:.0} -> {:.0}; profit {:.3}",
                        s.weighted_sass,
                        t.weighted_sass,
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

/// Whose choice each called function takes: of its callers not on stock's
/// choice, the one that gains most (`gain(kernel)`).
fn callee_owners(
    chosen: &BTreeMap<String, Choice>,
    reach: &BTreeMap<String, BTreeSet<String>>,
    gain: impl Fn(&str) -> f64,
) -> BTreeMap<String, String> {
    let mut kernels: Vec<&String> =
        reach.keys().filter(|k| chosen.get(*k).is_some_and(|c| *c != STOCK)).collect();
    kernels.sort_by(|a, b| gain(b).partial_cmp(&gain(a)).expect("gains are numbers"));
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

//! A deterministic interpreter for `Function`, and the differential check
//! built on it: a pass is correct on a program when the program behaves the
//! same before and after the pass's rewrite.
//!
//! # Semantics
//!
//! * **Registers.** Every vreg holds a `u64`; all start [`UNDEF`]. Only operands
//!   that read (`Operand::reads`: not defs, not uses flagged `UNDEF`) are inputs of an
//!   instruction; every def operand is an output. An instruction reads all its
//!   inputs before it writes any output, except early-clobber outputs, which
//!   it first fills with a value of their own ([`CLOBBER`]), as inline
//!   assembly may write them before reading its inputs.
//! * **`Copy`** with exactly one def and one read (`[def d, use s]`, any class):
//!   `d = s`.
//! * **`MoveImm`**: its defs all get the immediate, which is the instruction's
//!   `opcode` as a `u64`. A rematerialized copy (a clone of the constant's
//!   instruction) therefore computes the same value as the original.
//! * **`ImplicitDef`**: its defs get [`UNDEF`].
//! * **Undefined values.** [`UNDEF`] stands for "any value": what an
//!   `ImplicitDef` writes, a register never written, a spill slot never
//!   stored, a PHI's result on an edge it has no operand for, and whatever is
//!   computed from one (copies keep it; `MoveImm` and parameters never give
//!   it). A rewrite may give an undefined value any register, so where the
//!   original has `UNDEF` the rewritten program may have anything; where the
//!   original has a value the rewritten program must have that value.
//! * **`SpillStore`** / **`Reload`** (spill code): write their input to, or
//!   read their def from, spill slot number `opcode` (slots start at 0).
//! * **`Phi`** (at the head of a block): runs on the edge into its block, not
//!   in sequence. All of a block's PHIs read their operand for the block the
//!   run came from, then all write, as LLVM's PHIs do.
//! * **Everything else** (`Other`, `Call`, `Terminator`, and a `Copy`
//!   of any other shape): def number `k` (counting def operands in order) gets
//!   `mix(opcode, k, number of inputs, inputs in order)`, a 64-bit hash. Three
//!   reserved opcodes give def 0 real arithmetic, so that generated programs
//!   can count: [`OP_DEC`] (`input0 - 1`, wrapping), [`OP_IS_ZERO`]
//!   (`input0 == 0` as 0 or 1) and [`OP_PARAM`]` + i` (parameter `i` of the
//!   run, 0 if there is none; how a function receives its arguments, see
//!   below). Their other defs hash as usual.
//! * **Observable behaviour.** An instruction with `InstFlags::MAY_STORE`
//!   appends an [`Event`] (its opcode and its input values) to the trace, after
//!   it computed its defs. The run ends by returning (a block with no
//!   successors: its last instruction, if it is a `Terminator`, gives the
//!   return values, its inputs) or by running out of fuel. The [`Outcome`] is
//!   the trace, how the run ended and how many blocks it executed; two runs
//!   agree when their outcomes are equal. Register contents at the end are
//!   not observable: a rewrite renames registers.
//! * **Control flow.** Execution starts at block 0 and runs each block's
//!   instructions in order. Then a block with one successor goes to it; one
//!   with two or more goes to successor number `v % n`, where `v` is the value
//!   of the first input of the block's last instruction (0 if it has none, or
//!   the block is empty) as it was read by that instruction.
//! * **Fuel** counts block executions, not instructions, so that a rewrite
//!   that deletes copies uses the same fuel as the original: a run that would
//!   enter its `fuel + 1`-th block ends with [`End::OutOfFuel`] instead.
//!
//! Arguments: vregs that are live into the entry block without a def hold
//! undefined values in LLVM's model, and a pass may legitimately give two of
//! them one register, so the interpreter takes no initial register values.
//! Programs receive inputs through `OP_PARAM + i` instructions instead (the
//! analogue of NVPTX's `ld.param`), and [`run`] takes the parameter values.
//!
//! # The differential check
//!
//! [`check_modes`] runs a program through every pass configuration
//! ([`modes`]), applies each rewrite and requires the same [`Outcome`] as the
//! original, and more: what the checker promises, that every instruction the
//! rewrite keeps (neither deleted nor rematerialized) reads the values it read
//! before ([`run_with_reads`], [`reads_agree`]), which catches a clobbered
//! value that never reaches a store. Every rewrite must also pass
//! `checker::check`: a refusal on a generated program is a failure.

use std::fmt;

use nvregalloc::checker;
use nvregalloc::driver::{self, Verdict};
use nvregalloc::function::{Block, Function, Inst, InstFlags, InstKind, VReg};
use nvregalloc::options::{CoalesceMode, ColorMode, Options, PressureMode};
use nvregalloc::pass::Pass;
use nvregalloc::rewrite::Rewrite;

/// Def 0 = input 0 minus one (wrapping).
pub const OP_DEC: u32 = 0xFFFF_FF01;
/// Def 0 = 1 if input 0 is zero, else 0.
pub const OP_IS_ZERO: u32 = 0xFFFF_FF02;
/// `OP_PARAM + i`: def 0 = parameter `i` (for `i < 256`).
pub const OP_PARAM: u32 = 0xFFFF_F000;
const NUM_PARAM_OPCODES: u32 = 256;

/// An undefined value (see the module comment). A real value equal to it
/// would be taken as undefined: a hash hits it with odds of 2^-64, and the
/// reserved arithmetic needs 2^58 steps to count down to it from a small
/// parameter.
pub const UNDEF: u64 = 0x0DEF_0DEF_0DEF_0DEF;

/// Where the rewritten program's value `got` may stand for the original's
/// `expected`: anywhere, if `expected` was undefined.
pub fn agrees(expected: u64, got: u64) -> bool {
    expected == UNDEF || expected == got
}

fn all_agree(expected: &[u64], got: &[u64]) -> bool {
    expected.len() == got.len() && expected.iter().zip(got).all(|(&e, &g)| agrees(e, g))
}

/// Fuel (block executions) the differential check gives every run.
pub const DEFAULT_FUEL: u64 = 4_000;

/// One observable effect: a store-like instruction and the values it read.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Event {
    pub opcode: u32,
    pub values: Vec<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum End {
    /// The function returned these values.
    Returned(Vec<u64>),
    /// The run was about to execute one block more than its fuel allows.
    OutOfFuel,
    /// The run was about to branch on an undefined value.
    UndefinedBranch,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    pub trace: Vec<Event>,
    pub end: End,
    /// Blocks executed.
    pub blocks: u64,
}

impl Outcome {
    pub fn finished(&self) -> bool {
        matches!(self.end, End::Returned(_))
    }

    /// Where the outcome `got` of a rewritten run fails to agree with this
    /// one, the original's, in words (`None` if it agrees): equal but for
    /// values undefined in the original, and after a branch on an undefined
    /// value, anything.
    pub fn difference(&self, got: &Outcome) -> Option<String> {
        for (n, (a, b)) in self.trace.iter().zip(&got.trace).enumerate() {
            if a.opcode != b.opcode || !all_agree(&a.values, &b.values) {
                return Some(format!("trace event {n} differs: {a:?} vs {b:?}"));
            }
        }
        let cut_short = self.end == End::UndefinedBranch;
        if got.trace.len() < self.trace.len() || (!cut_short && got.trace.len() > self.trace.len()) {
            return Some(format!(
                "traces agree on {} events, then one has {} and the other {}",
                self.trace.len().min(got.trace.len()),
                self.trace.len(),
                got.trace.len()
            ));
        }
        if cut_short {
            return None;
        }
        let ends_agree = match (&self.end, &got.end) {
            (End::Returned(a), End::Returned(b)) => all_agree(a, b),
            (a, b) => a == b,
        };
        if !ends_agree {
            return Some(format!("end differs: {:?} vs {:?}", self.end, got.end));
        }
        (self.blocks != got.blocks)
            .then(|| format!("blocks executed differ: {} vs {}", self.blocks, got.blocks))
    }
}

/// The 64-bit finalizer of splitmix64, folded over inputs.
pub fn mix(h: u64, x: u64) -> u64 {
    let mut z = (h ^ x.rotate_left(17)).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What an early-clobber output holds while its instruction reads its inputs.
pub const CLOBBER: u64 = 0xC10B_BE4E_DC10_BBE4;

fn hashed_def(opcode: u32, k: usize, inputs: &[u64]) -> u64 {
    let mut h = mix(mix(0x6E76_7261, u64::from(opcode)), k as u64);
    h = mix(h, inputs.len() as u64);
    for &v in inputs {
        h = mix(h, v);
    }
    h
}

/// Runs `f` from its entry block with the given parameters and at most `fuel`
/// block executions.
pub fn run(f: &Function, params: &[u64], fuel: u64) -> Outcome {
    run_inner(f, params, fuel, None)
}

/// Every instruction a run executed, in order, with the values it read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reads {
    /// (instruction, start of its values in `values`).
    pub executed: Vec<(Inst, u32)>,
    pub values: Vec<u64>,
    /// The run ended at a branch on an undefined value.
    pub cut_short: bool,
}

impl Reads {
    pub fn len(&self) -> usize {
        self.executed.len()
    }

    pub fn is_empty(&self) -> bool {
        self.executed.is_empty()
    }

    /// The `n`th instruction executed and the values it read.
    pub fn get(&self, n: usize) -> (Inst, &[u64]) {
        let (i, start) = self.executed[n];
        let end = self.executed.get(n + 1).map_or(self.values.len(), |&(_, e)| e as usize);
        (i, &self.values[start as usize..end])
    }
}

/// `run`, also recording what every executed instruction read.
pub fn run_with_reads(f: &Function, params: &[u64], fuel: u64) -> (Outcome, Reads) {
    let mut reads = Reads::default();
    let outcome = run_inner(f, params, fuel, Some(&mut reads));
    (outcome, reads)
}

/// Checks the strongest property a rewrite promises (the checker's): every
/// instruction of the original that the rewrite keeps as it is (not deleted,
/// not rematerialized) reads, in a run of the rewritten function, the values
/// it read in the same run of the original (values undefined there match
/// anything, and after a branch on an undefined value the rewritten run may
/// go its own way). `original` and `rewritten` are
/// the reads of runs of `f` and of `rewrite.apply(f)` with the same inputs.
pub fn reads_agree(
    f: &Function,
    rewrite: &Rewrite,
    original: &Reads,
    rewritten: &Reads,
) -> Result<(), String> {
    let mut gone = vec![false; f.insts.len()];
    for &i in &rewrite.deleted {
        gone[i.index()] = true;
    }
    let mut remat = vec![false; f.insts.len()];
    for r in &rewrite.remats {
        remat[r.copy.index()] = true;
    }
    // Instruction j of the rewritten function is `origin[j]` of `f` (`None`:
    // an edge copy, which has no counterpart).
    let (_, origin) = rewrite.apply(f);
    let kept = |i: Inst| !gone[i.index()] && !remat[i.index()];
    let ours = (0..original.len()).map(|n| original.get(n)).filter(|&(i, _)| kept(i));
    let mut theirs = (0..rewritten.len())
        .map(|n| rewritten.get(n))
        .filter_map(|(j, values)| origin[j.index()].map(|i| (i, values)))
        .filter(|&(i, _)| kept(i));
    for (n, (i, values)) in ours.enumerate() {
        match theirs.next() {
            Some((j, got)) if j == i && all_agree(values, got) => {}
            Some((j, got)) if j == i => {
                return Err(format!(
                    "execution {n} of kept instructions: {i:?} read {got:?} instead of {values:?}"
                ))
            }
            Some((j, _)) => {
                return Err(format!("execution {n} of kept instructions: {j:?} ran instead of {i:?}"))
            }
            None => return Err(format!("the rewritten run stopped before execution {n} ({i:?})")),
        }
    }
    match theirs.next() {
        Some((j, _)) if !original.cut_short => {
            Err(format!("the rewritten run executed {j:?} and more after the original stopped"))
        }
        _ => Ok(()),
    }
}

fn run_inner(f: &Function, params: &[u64], fuel: u64, mut reads: Option<&mut Reads>) -> Outcome {
    let mut regs = vec![UNDEF; f.num_vregs()];
    let mut slots: rustc_hash::FxHashMap<u32, u64> = Default::default();
    let mut trace = Vec::new();
    let mut inputs: Vec<u64> = Vec::new();
    let mut defs: Vec<VReg> = Vec::new();
    if f.blocks.is_empty() {
        return Outcome { trace, end: End::Returned(Vec::new()), blocks: 0 };
    }
    let mut block = Block::new(0);
    let mut executed = 0u64;
    let mut phi_values: Vec<(VReg, u64)> = Vec::new();
    loop {
        if executed == fuel {
            return Outcome { trace, end: End::OutOfFuel, blocks: executed };
        }
        executed += 1;
        let mut branch_value = 0u64;
        let mut last_was_terminator = false;
        for i in f.block_insts(block) {
            let data = f.inst(i);
            if data.kind == InstKind::Phi {
                // Evaluated on the edge into the block (see `take_edge`).
                continue;
            }
            for o in data.operands.iter().filter(|o| o.is_early_clobber()) {
                regs[o.vreg.index()] = CLOBBER;
            }
            inputs.clear();
            inputs.extend(data.operands.iter().filter(|o| o.reads()).map(|o| regs[o.vreg.index()]));
            if let Some(reads) = reads.as_deref_mut() {
                reads.executed.push((i, reads.values.len() as u32));
                reads.values.extend_from_slice(&inputs);
            }
            defs.clear();
            defs.extend(data.operands.iter().filter(|o| o.is_def()).map(|o| o.vreg));
            for (k, &d) in defs.iter().enumerate() {
                let value = match data.kind {
                    InstKind::Copy if defs.len() == 1 && inputs.len() == 1 => inputs[0],
                    InstKind::MoveImm => u64::from(data.opcode),
                    InstKind::ImplicitDef => UNDEF,
                    InstKind::Reload => slots.get(&data.opcode).copied().unwrap_or(UNDEF),
                    _ if k == 0 && (OP_PARAM..OP_PARAM + NUM_PARAM_OPCODES).contains(&data.opcode) => {
                        params.get((data.opcode - OP_PARAM) as usize).copied().unwrap_or(0)
                    }
                    _ if inputs.contains(&UNDEF) => UNDEF,
                    _ if k == 0 && data.opcode == OP_DEC => {
                        inputs.first().copied().unwrap_or(0).wrapping_sub(1)
                    }
                    _ if k == 0 && data.opcode == OP_IS_ZERO => {
                        u64::from(inputs.first().copied().unwrap_or(0) == 0)
                    }
                    _ => hashed_def(data.opcode, k, &inputs),
                };
                regs[d.index()] = value;
            }
            if data.kind == InstKind::SpillStore {
                slots.insert(data.opcode, inputs[0]);
            }
            if data.flags.contains(InstFlags::MAY_STORE) {
                trace.push(Event { opcode: data.opcode, values: inputs.clone() });
            }
            branch_value = inputs.first().copied().unwrap_or(0);
            last_was_terminator = data.kind == InstKind::Terminator;
        }
        let succs = &f.block(block).succs;
        let next = match succs.len() {
            0 => {
                let returned = if last_was_terminator { inputs.clone() } else { Vec::new() };
                return Outcome { trace, end: End::Returned(returned), blocks: executed };
            }
            1 => succs[0],
            _ if branch_value == UNDEF => {
                if let Some(reads) = reads.as_deref_mut() {
                    reads.cut_short = true;
                }
                return Outcome { trace, end: End::UndefinedBranch, blocks: executed };
            }
            n => succs[(branch_value % n as u64) as usize],
        };
        take_edge(f, block, next, &mut regs, &mut phi_values, reads.as_deref_mut());
        block = next;
    }
}

/// Runs the PHIs of `to` for the edge from `from`: all read the value their
/// operand for `from` names, then all write (a parallel copy). A PHI with no
/// operand for `from` reads [`UNDEF`].
fn take_edge(
    f: &Function,
    from: Block,
    to: Block,
    regs: &mut [u64],
    phi_values: &mut Vec<(VReg, u64)>,
    mut reads: Option<&mut Reads>,
) {
    phi_values.clear();
    for i in f.phis(to) {
        let operands = &f.inst(i).operands;
        let value = operands
            .iter()
            .find(|o| o.reads() && o.incoming == Some(from))
            .map_or(UNDEF, |o| regs[o.vreg.index()]);
        if let Some(reads) = reads.as_deref_mut() {
            reads.executed.push((i, reads.values.len() as u32));
            reads.values.push(value);
        }
        phi_values.extend(operands.iter().filter(|o| o.is_def()).map(|o| (o.vreg, value)));
    }
    for &(d, value) in phi_values.iter() {
        regs[d.index()] = value;
    }
}

// ---------------------------------------------------------------------------
// The differential check: every pass configuration ("mode") on one program.
// ---------------------------------------------------------------------------

/// One configuration: passes run one after the other, each on the function
/// the previous one's rewrite produced.
#[derive(Clone, Debug)]
pub struct Mode {
    pub name: String,
    pub steps: Vec<(Pass, Options)>,
}

fn coalesce_options(mode: CoalesceMode) -> Options {
    Options { coalesce_mode: mode, ..Options::default() }
}

fn color_options() -> Options {
    Options { color_mode: ColorMode::Rename, ..Options::default() }
}

/// Every mode the semantic tests and the fuzz target check.
pub fn modes() -> Vec<Mode> {
    let mut modes = vec![
        Mode {
            name: "coalesce after-stock".into(),
            steps: vec![(Pass::Coalesce, coalesce_options(CoalesceMode::AfterStock))],
        },
        Mode {
            name: "coalesce replace-stock".into(),
            steps: vec![(Pass::Coalesce, coalesce_options(CoalesceMode::ReplaceStock))],
        },
        Mode { name: "color rename".into(), steps: vec![(Pass::Color, color_options())] },
        Mode {
            name: "color rename, block defs apart".into(),
            steps: vec![(Pass::Color, Options { reuse_within_block: false, ..color_options() })],
        },
        Mode {
            name: "color rename, undefined values shared".into(),
            steps: vec![(Pass::Color, Options { undefined_apart: false, ..color_options() })],
        },
        Mode {
            name: "color rename graph-free".into(),
            steps: vec![(Pass::Color, Options { graph_limit: 0, ..color_options() })],
        },
        Mode {
            name: "coalesce after-stock, then color".into(),
            steps: vec![
                (Pass::Coalesce, coalesce_options(CoalesceMode::AfterStock)),
                (Pass::Color, color_options()),
            ],
        },
        Mode {
            name: "coalesce replace-stock, then color".into(),
            steps: vec![
                (Pass::Coalesce, coalesce_options(CoalesceMode::ReplaceStock)),
                (Pass::Color, color_options()),
            ],
        },
        Mode {
            name: "coalesce after-stock with limits and frequency bias".into(),
            steps: vec![(
                Pass::Coalesce,
                Options {
                    copy_limit: Some(6),
                    coalesce_limit: Some(3),
                    block_freq_bias: true,
                    ..coalesce_options(CoalesceMode::AfterStock)
                },
            )],
        },
    ];
    for k in [2, 3] {
        for factor in [0.8, 1.0] {
            let small = |o: Options| Options { k, coalesce_factor: factor, ..o };
            let coalesce = small(coalesce_options(CoalesceMode::AfterStock));
            let color = small(color_options());
            modes.push(Mode {
                name: format!("coalesce after-stock k={k} factor={factor}"),
                steps: vec![(Pass::Coalesce, coalesce.clone())],
            });
            modes.push(Mode {
                name: format!("color rename k={k} factor={factor}"),
                steps: vec![(Pass::Color, color.clone())],
            });
            modes.push(Mode {
                name: format!("coalesce after-stock, then color, k={k} factor={factor}"),
                steps: vec![(Pass::Coalesce, coalesce), (Pass::Color, color)],
            });
        }
    }
    modes
}

/// Register budget modes: coloring into a few registers per class, with
/// spilling, with and without rematerialization, and after coalescing.
pub fn budget_modes() -> Vec<Mode> {
    let budget = |n, remat| Options { max_regs: Some(n), remat, ..color_options() };
    let mut modes: Vec<Mode> = [(4, true), (4, false), (6, true)]
        .map(|(n, remat)| Mode {
            name: format!("color max-regs={n} remat={remat}"),
            steps: vec![(Pass::Color, budget(n, remat))],
        })
        .to_vec();
    modes.push(Mode {
        name: "coalesce after-stock, then color max-regs=5".into(),
        steps: vec![
            (Pass::Coalesce, Options { k: 5, ..coalesce_options(CoalesceMode::AfterStock) }),
            (Pass::Color, budget(5, true)),
        ],
    });
    modes
}

/// Pressure modes: recomputing cheap values next to their uses as far as
/// the pass can (a target of one register, so that small programs change
/// too), alone and followed by coalescing and coloring.
pub fn pressure_modes() -> Vec<Mode> {
    let pressure =
        Options { pressure_mode: PressureMode::Relieve, pressure_target: Some(1), ..Options::default() };
    vec![
        Mode { name: "pressure".into(), steps: vec![(Pass::Pressure, pressure.clone())] },
        Mode {
            name: "pressure, then coalesce after-stock and color".into(),
            steps: vec![
                (Pass::Pressure, pressure),
                (Pass::Coalesce, coalesce_options(CoalesceMode::AfterStock)),
                (Pass::Color, color_options()),
            ],
        },
    ]
}

/// The modes for functions in SSA form: CSSA coalescing. (The other passes
/// run after PHI elimination.)
pub fn ssa_modes() -> Vec<Mode> {
    vec![Mode { name: "cssa".into(), steps: vec![(Pass::Cssa, Options::default())] }]
}

#[derive(Clone, Debug)]
pub enum FailureKind {
    /// The driver refused the program.
    Unsupported(String),
    /// The checker (the driver's or ours) refused the pass's rewrite.
    Rejected(String),
    /// The rewritten program behaves differently.
    Mismatch { expected: Outcome, got: Outcome, difference: String },
}

#[derive(Clone, Debug)]
pub struct Failure {
    pub mode: String,
    /// Which step of the mode (0: its first pass).
    pub step: usize,
    pub pass: Pass,
    pub kind: FailureKind,
    /// The function that step ran on.
    pub input: Function,
    /// The rewrite that step produced, if it produced one.
    pub rewrite: Option<Rewrite>,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "mode `{}`, step {} ({:?}): ", self.mode, self.step, self.pass)?;
        match &self.kind {
            FailureKind::Unsupported(why) => write!(f, "unsupported: {why}"),
            FailureKind::Rejected(why) => write!(f, "rejected: {why}"),
            FailureKind::Mismatch { difference, .. } => write!(f, "behaviour changed: {difference}"),
        }?;
        if let Some(rewrite) = &self.rewrite {
            write!(f, "\nrewrite: {rewrite:?}")?;
        }
        write!(f, "\ninput of the step:\n{}", display(&self.input))
    }
}

/// What the passes did over all modes, to tell the tests are not vacuous.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Activity {
    pub programs: u64,
    pub pass_runs: u64,
    /// Pass runs whose rewrite was not the identity.
    pub changed: u64,
    pub deleted: u64,
    pub remats: u64,
    /// Vregs renamed to another vreg.
    pub renamed: u64,
    /// Original programs that ran out of fuel.
    pub out_of_fuel: u64,
    /// Original programs that branched on an undefined value (compared up
    /// to that branch only).
    pub undefined_branch: u64,
    /// Spill code instructions (stores, reloads, rematerializations).
    pub spill_ops: u64,
    /// Budget-mode runs that refused a program as not fitting (one
    /// instruction needs more registers of a class than the budget, or
    /// unspillable values do).
    pub did_not_fit: u64,
}

impl Activity {
    pub fn add(&mut self, other: &Activity) {
        self.programs += other.programs;
        self.pass_runs += other.pass_runs;
        self.changed += other.changed;
        self.deleted += other.deleted;
        self.remats += other.remats;
        self.renamed += other.renamed;
        self.out_of_fuel += other.out_of_fuel;
        self.undefined_branch += other.undefined_branch;
        self.spill_ops += other.spill_ops;
        self.did_not_fit += other.did_not_fit;
    }
}

/// Runs `modes` on `f` and requires, for every step, a `Verdict::Apply` whose
/// rewrite `checker::check` accepts and after which the program's outcome
/// (with `params`, `fuel`) is the original's. A budget-mode step must leave
/// at most its budget of registers per class, or refuse the program as not
/// fitting (which ends that mode).
pub fn check_modes(
    f: &Function,
    params: &[u64],
    fuel: u64,
    modes: &[Mode],
) -> Result<Activity, Box<Failure>> {
    let (expected, expected_reads) = run_with_reads(f, params, fuel);
    let mut activity = Activity {
        programs: 1,
        out_of_fuel: u64::from(expected.end == End::OutOfFuel),
        undefined_branch: u64::from(expected.end == End::UndefinedBranch),
        ..Activity::default()
    };
    'modes: for mode in modes {
        let mut current = f.clone();
        // What `current` reads, when it is not `f`.
        let mut current_reads: Option<Reads> = None;
        for (step, (pass, options)) in mode.steps.iter().enumerate() {
            let fail = |kind, input: &Function, rewrite: Option<Rewrite>| {
                Box::new(Failure {
                    mode: mode.name.clone(),
                    step,
                    pass: *pass,
                    kind,
                    input: input.clone(),
                    rewrite,
                })
            };
            activity.pass_runs += 1;
            // The driver's own verification is `checker::check` on every
            // rewrite that is not the identity, and `Verdict::Rejected` when
            // it fails; it is done here instead (on every rewrite), once.
            let unchecked = Options { verify: false, ..options.clone() };
            let rewrite = match driver::run(&current, &unchecked, *pass) {
                Verdict::Apply(outcome) => outcome.rewrite,
                Verdict::Unsupported(why)
                    if options.max_regs.is_some() && why.starts_with("does not fit") =>
                {
                    activity.did_not_fit += 1;
                    continue 'modes;
                }
                Verdict::Unsupported(why) => return Err(fail(FailureKind::Unsupported(why), &current, None)),
                Verdict::Rejected(why) => return Err(fail(FailureKind::Rejected(why), &current, None)),
            };
            let (next, _) = rewrite.apply(&current);
            if let Some(budget) = options.max_regs {
                let registers = registers_per_class(&next);
                if let Some(over) = registers.iter().position(|&n| n > budget as usize) {
                    let why = format!(
                        "{} registers of class {} exceed the budget {budget}",
                        registers[over], next.class_names[over]
                    );
                    return Err(fail(FailureKind::Rejected(why), &current, Some(rewrite)));
                }
            }
            let (got, got_reads) = run_with_reads(&next, params, fuel);
            // Behaviour is compared with the original; reads with the step's
            // input (instruction numbers change from step to step).
            let difference = expected.difference(&got).or_else(|| {
                reads_agree(&current, &rewrite, current_reads.as_ref().unwrap_or(&expected_reads), &got_reads)
                    .err()
            });
            if let Err(e) = checker::check(&current, &rewrite) {
                let why = format!("the checker rejected the rewrite: {e}");
                return Err(fail(FailureKind::Rejected(why), &current, Some(rewrite)));
            }
            if !rewrite.is_identity() {
                activity.changed += 1;
            }
            activity.deleted += rewrite.deleted.len() as u64;
            activity.remats += rewrite.remats.len() as u64;
            activity.spill_ops += rewrite.inserts.len() as u64;
            activity.renamed +=
                rewrite.rename.iter().enumerate().filter(|(v, r)| r.index() != *v).count() as u64;
            if let Some(difference) = difference {
                return Err(fail(
                    FailureKind::Mismatch { expected, got, difference },
                    &current,
                    Some(rewrite),
                ));
            }
            current = next;
            current_reads = Some(got_reads);
        }
    }
    Ok(activity)
}

/// Distinct registers each class's instructions name.
fn registers_per_class(f: &Function) -> Vec<usize> {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut count = vec![0; f.class_names.len()];
    for o in f.insts.iter().flat_map(|data| &data.operands) {
        if let Some(c) = f.class_of(o.vreg) {
            if seen.insert(o.vreg) {
                count[c.index()] += 1;
            }
        }
    }
    count
}

/// A readable listing of a function, one instruction a line.
pub fn display(f: &Function) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = write!(s, "function {} classes {:?}; vreg classes:", f.name, f.class_names);
    for (v, c) in f.vreg_class.iter().enumerate() {
        if let Some(c) = c {
            let _ = write!(s, " v{v}:{}", f.class_name(*c));
        }
    }
    s.push('\n');
    for b in f.block_ids() {
        let data = f.block(b);
        let _ =
            writeln!(s, "{b:?} (depth {}) preds {:?} succs {:?}:", data.loop_depth, data.preds, data.succs);
        for i in f.block_insts(b) {
            let inst = f.inst(i);
            let defs: Vec<String> =
                inst.operands.iter().filter(|o| o.is_def()).map(|o| format!("{:?}", o.vreg)).collect();
            let uses: Vec<String> = inst
                .operands
                .iter()
                .filter(|o| !o.is_def())
                .map(|o| if o.reads() { format!("{:?}", o.vreg) } else { format!("undef {:?}", o.vreg) })
                .collect();
            let opcode = match inst.opcode {
                OP_DEC => "dec".to_owned(),
                OP_IS_ZERO => "is_zero".to_owned(),
                op if (OP_PARAM..OP_PARAM + NUM_PARAM_OPCODES).contains(&op) => {
                    format!("param{}", op - OP_PARAM)
                }
                op => op.to_string(),
            };
            let flags = if inst.flags.is_empty() { String::new() } else { format!(" {:?}", inst.flags) };
            let _ = writeln!(
                s,
                "  {i:?}: {} = {:?}[{opcode}]{flags} {}",
                defs.join(", "),
                inst.kind,
                uses.join(", ")
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use nvregalloc::function::{FunctionBuilder, InstData, Operand, RegClass};

    fn imm(b: &mut FunctionBuilder, d: VReg, value: u32) {
        b.inst_with(InstData {
            kind: InstKind::MoveImm,
            flags: InstFlags::empty(),
            opcode: value,
            operands: vec![Operand::def(d)],
        });
    }

    fn store(b: &mut FunctionBuilder, uses: &[VReg]) {
        b.inst_with(InstData {
            kind: InstKind::Other,
            flags: InstFlags::MAY_STORE,
            opcode: 7,
            operands: uses.iter().map(|&v| Operand::use_of(v)).collect(),
        });
    }

    /// A stored undefined value matches anything in a rewritten run, but not
    /// the other way round; a branch on one ends the run, after which a
    /// rewritten run may do anything.
    #[test]
    fn undefined_values_match_anything_and_a_branch_on_one_ends_the_run() {
        let mut b = FunctionBuilder::new("undefined", &["B32"]);
        let c = RegClass(0);
        let (u, k) = (b.vreg(c), b.vreg(c));
        let entry = b.block(0);
        b.inst(InstKind::ImplicitDef, &[u], &[]);
        imm(&mut b, k, 5);
        store(&mut b, &[u, k]);
        b.inst(InstKind::Terminator, &[], &[u]);
        let (left, right) = (b.block(0), b.block(0));
        b.edge(entry, left);
        b.edge(entry, right);
        let f = b.finish();
        let out = run(&f, &[], 100);
        assert_eq!(out.trace, vec![Event { opcode: 7, values: vec![UNDEF, 5] }]);
        assert_eq!(out.end, End::UndefinedBranch);
        let with =
            |values: Vec<u64>, end| Outcome { trace: vec![Event { opcode: 7, values }], end, blocks: 2 };
        assert_eq!(out.difference(&with(vec![9, 5], End::Returned(vec![]))), None);
        assert!(out.difference(&with(vec![9, 6], End::Returned(vec![]))).is_some());
        let defined = with(vec![9, 5], End::Returned(vec![]));
        assert!(defined.difference(&with(vec![UNDEF, 5], End::Returned(vec![]))).is_some());
    }

    #[test]
    fn counts_down_a_loop_and_stores_each_iteration() {
        let mut b = FunctionBuilder::new("loop", &["B32"]);
        let c = RegClass(0);
        let (n, t, z) = (b.vreg(c), b.vreg(c), b.vreg(c));
        let entry = b.block(0);
        imm(&mut b, n, 3);
        let body = b.block(1);
        store(&mut b, &[n]);
        b.inst_with(InstData {
            kind: InstKind::Other,
            flags: InstFlags::empty(),
            opcode: OP_DEC,
            operands: vec![Operand::def(t), Operand::use_of(n)],
        });
        b.inst_with(InstData {
            kind: InstKind::Other,
            flags: InstFlags::empty(),
            opcode: OP_IS_ZERO,
            operands: vec![Operand::def(z), Operand::use_of(t)],
        });
        b.copy(n, t);
        b.inst(InstKind::Terminator, &[], &[z]);
        let exit = b.block(0);
        b.inst(InstKind::Terminator, &[], &[n]);
        b.edge(entry, body);
        b.edge(body, body);
        b.edge(body, exit);
        let f = b.finish();
        let out = run(&f, &[], 100);
        let stored: Vec<u64> = out.trace.iter().map(|e| e.values[0]).collect();
        assert_eq!(stored, vec![3, 2, 1]);
        assert_eq!(out.end, End::Returned(vec![0]));
        assert_eq!(out.blocks, 5);
        let starved = run(&f, &[], 2);
        assert_eq!(starved.end, End::OutOfFuel);
        assert_eq!(starved.trace.len(), 1);
    }
}

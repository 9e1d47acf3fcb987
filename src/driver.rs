//! One pass over one function: refuse what the passes do not support, run
//! the pass, and let nothing through that the checker has not approved.

use crate::checker;
use crate::function::{Function, InstFlags, InstKind, OperandFlags, VReg};
use crate::options::{CoalesceMode, ColorMode, Fault, Options, PressureMode};
use crate::pass::Pass;
use crate::rewrite::{PassOutcome, Rewrite};

#[derive(Debug)]
pub enum Verdict {
    /// Apply this outcome (its rewrite may be the identity).
    Apply(Box<PassOutcome>),
    /// The function is left as it is, for this reason.
    Unsupported(String),
    /// The checker refused the pass's rewrite; the function is left as it is.
    Rejected(String),
}

/// Why `pass` refuses `f`, if it does.
pub fn unsupported_reason(f: &Function, pass: Pass) -> Option<String> {
    if pass == Pass::Cssa {
        let mut defined = vec![false; f.num_vregs()];
        for v in f.insts.iter().flat_map(|data| data.operands.iter().filter(|o| o.is_def())) {
            if std::mem::replace(&mut defined[v.vreg.index()], true) {
                return Some(format!("{:?} has several defs (not SSA form)", v.vreg));
            }
        }
    }
    for data in &f.insts {
        if data.flags.contains(InstFlags::PHYS_REG) {
            return Some("a non-reserved physical register".into());
        }
        if data.kind == InstKind::Phi && pass != Pass::Cssa {
            return Some("PHI instructions (the passes run after PHI elimination)".into());
        }
        for o in &data.operands {
            if o.flags.contains(OperandFlags::SUBREG) {
                return Some("a sub-register operand".into());
            }
            if f.class_of(o.vreg).is_none() {
                return Some(format!("{:?} has no register class", o.vreg));
            }
        }
    }
    None
}

/// In replace-stock mode, why the coalesce pass will not take `f`, asked
/// before LLVM's RegisterCoalescer runs so that it can coalesce such a
/// function instead of no one: a refusal, or a graph past half the limit
/// (the scheduler runs in between and may lengthen live ranges).
pub fn coalesce_refusal(f: &Function, options: &Options) -> Option<String> {
    if let Some(reason) = unsupported_reason(f, Pass::Coalesce) {
        return Some(reason);
    }
    let liveness = crate::liveness::Liveness::compute(f);
    let census = crate::interference::Census::take(f, &liveness);
    let limit = options.graph_limit / 2;
    (census.graph_entries > limit).then(|| {
        format!(
            "its interference graph would take {} entries, over half of -nvregalloc-graph-limit={}",
            census.graph_entries, options.graph_limit
        )
    })
}

pub fn run(f: &Function, options: &Options, pass: Pass) -> Verdict {
    tracing::trace!(function = ?f, "input");
    if let Some(reason) = unsupported_reason(f, pass) {
        return Verdict::Unsupported(reason);
    }
    if options.fault == Fault::Panic {
        panic!("injected fault: panic while running {pass:?} on {}", f.name);
    }
    let (off, analyze) = match pass {
        Pass::Coalesce => {
            (options.coalesce_mode == CoalesceMode::Off, options.coalesce_mode == CoalesceMode::Analyze)
        }
        // A register budget is met by coloring, so it renames whatever the mode.
        Pass::Color => (
            options.color_mode == ColorMode::Off && options.max_regs.is_none(),
            options.color_mode == ColorMode::Analyze,
        ),
        // Off is the shim not running the pass at all.
        Pass::Cssa => (false, false),
        Pass::Pressure => {
            (options.pressure_mode == PressureMode::Off, options.pressure_mode == PressureMode::Analyze)
        }
    };
    if off {
        return Verdict::Apply(Box::new(PassOutcome {
            rewrite: Rewrite::identity(f.num_vregs()),
            ..Default::default()
        }));
    }
    let mut outcome = match pass {
        Pass::Coalesce => crate::coalesce::coalesce(f, options),
        Pass::Color => match options.max_regs {
            Some(budget) => match crate::budget::allocate(f, options, budget) {
                Ok(outcome) => outcome,
                Err(why) => return Verdict::Unsupported(why),
            },
            None => crate::rename::rename(f, options),
        },
        Pass::Cssa => crate::cssa::coalesce_phis(f, options),
        Pass::Pressure => crate::pressure::relieve(f, options),
    };
    if analyze {
        outcome.rewrite = Rewrite::identity(f.num_vregs());
    }
    if options.fault == Fault::MergeInterfering {
        merge_two_interfering(f, &mut outcome.rewrite);
    }
    if options.verify && !outcome.rewrite.is_identity() {
        if let Err(error) = outcome.phases.time("checker", || checker::check(f, &outcome.rewrite)) {
            return Verdict::Rejected(format!("the checker rejected the rewrite: {error}"));
        }
    }
    Verdict::Apply(Box::new(outcome))
}

/// The injected miscompile: give a register and one it interferes with (whose
/// value is read while the first is written) the same name.
fn merge_two_interfering(f: &Function, rewrite: &mut Rewrite) {
    let liveness = crate::liveness::Liveness::compute(f);
    let graph = crate::interference::InterferenceGraph::build(f, &liveness);
    let pair = (0..f.num_vregs()).map(VReg::new).find_map(|v| {
        graph
            .neighbors(v)
            .find(|&w| rewrite.renamed(v) != rewrite.renamed(w))
            .map(|w| (rewrite.renamed(v), rewrite.renamed(w)))
    });
    if let Some((keep, gone)) = pair {
        for target in &mut rewrite.rename {
            if *target == gone {
                *target = keep;
            }
        }
        rewrite.deleted = rewrite.redundant_after_renaming(f);
    }
}

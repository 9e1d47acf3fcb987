//! ptxsim: a deterministic interpreter for the PTX that LLVM 22's NVPTX
//! backend emits, used as an end-to-end oracle for nvregalloc. Two PTX files
//! built from one program (stock LLVM and LLVM + the plugin) run on the same
//! inputs must leave the same bytes in every buffer and variable.
//!
//! - `lexer`, `parser`: PTX text to the typed `ir`.
//! - `memory`: address windows per state space, bounds-checked regions.
//! - `exec`: one thread: registers, frames, instruction semantics.
//! - `sched`: blocks, barriers, warps and their collectives.
//! - `harness`: compiling with llc in each mode, launch specs, seeded inputs,
//!   csmith programs, and the comparison.

pub mod exec;
pub mod harness;
pub mod ir;
pub mod lexer;
pub mod memory;
pub mod parser;
pub mod sched;

use std::fmt;

pub use ir::Module;
pub use parser::parse;

#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// The PTX text could not be read.
    Parse(String),
    /// The run reached something the interpreter does not implement.
    Unsupported(String),
    /// The program did something undefined: out-of-bounds or misaligned
    /// access, deadlock, a call with the wrong arguments.
    Fault(String),
    /// The step limit was reached.
    Timeout(u64),
    /// Building or setting up the run failed (llc, clang, spec files).
    Harness(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Error::Parse(s) => write!(f, "parse error: {s}"),
            Error::Unsupported(s) => write!(f, "unsupported: {s}"),
            Error::Fault(s) => write!(f, "fault: {s}"),
            Error::Timeout(n) => write!(f, "timeout: more than {n} instructions"),
            Error::Harness(s) => write!(f, "harness: {s}"),
        }
    }
}

impl std::error::Error for Error {}

/// A kernel argument: a scalar's bytes, or a buffer in global memory whose
/// address is passed.
#[derive(Clone, Debug)]
pub enum Arg {
    Scalar(Vec<u8>),
    Buffer(Vec<u8>),
}

#[derive(Clone, Debug)]
pub struct Launch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared: usize,
    pub step_limit: u64,
    /// What a register holds before anything writes it (cut to its width).
    /// PTX leaves it undefined; running twice with different fills shows
    /// which outputs depend on such registers (`harness::judge`).
    pub register_fill: u64,
}

/// Everything a run leaves behind that a program could observe.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// Argument buffers after the run, in argument order.
    pub buffers: Vec<Vec<u8>>,
    /// Module `.global` variables after the run, by name.
    pub globals: Vec<(String, Vec<u8>)>,
    /// Return value bytes of thread 0 (for a `.func` run as entry).
    pub ret: Vec<u8>,
    pub steps: u64,
}

/// Runs `entry` (a `.entry` kernel, or a `.func` such as csmith's `main`)
/// over the grid.
pub fn run(module: &Module, entry: &str, args: &[Arg], launch: &Launch) -> Result<Outcome, Error> {
    let func = module.function(entry).ok_or_else(|| Error::Harness(format!("no function {entry}")))?;
    let f = &module.functions[func as usize];
    if args.len() != f.params.len() {
        return Err(Error::Harness(format!(
            "{entry} takes {} arguments, {} given",
            f.params.len(),
            args.len()
        )));
    }
    let mut m = exec::Machine {
        module,
        global: memory::GlobalMem::default(),
        global_addrs: vec![],
        shared_offsets: vec![],
        shared_size: 0,
        grid: launch.grid,
        block: launch.block,
        ctaid: [0; 3],
        steps: 0,
        step_limit: launch.step_limit,
        register_fill: launch.register_fill,
    };
    for v in &module.globals {
        let a = m.global.alloc(&v.name, v.init.clone(), v.align);
        m.global_addrs.push(a);
    }
    for v in &module.shared {
        let off = m.shared_size.next_multiple_of(v.align) as u64;
        m.shared_offsets.push(off);
        m.shared_size = off as usize + if v.dynamic { launch.dynamic_shared } else { v.size };
    }
    for (i, v) in module.globals.iter().enumerate() {
        for r in &v.relocs {
            let target = match r.sym {
                ir::Sym::Global(g) => m.global_addrs[g as usize],
                ir::Sym::Shared(s) => memory::SHARED_BASE + m.shared_offsets[s as usize],
                _ => {
                    return Err(Error::Unsupported(format!(
                        "{}: initializer holds a function address",
                        v.name
                    )))
                }
            };
            let mut val = target.wrapping_add(r.addend as u64);
            if let Some(mask) = r.mask {
                val = (val & mask) >> mask.trailing_zeros();
            }
            let base = m.global_addrs[i];
            memory::write_le(m.global.bytes(base + r.offset as u64, r.bytes)?, val);
        }
    }
    let mut params = vec![];
    let mut buffer_addrs = vec![];
    for (i, (arg, p)) in args.iter().zip(&f.params).enumerate() {
        let mut bytes = match arg {
            Arg::Scalar(b) => b.clone(),
            Arg::Buffer(data) => {
                let a = m.global.alloc(&format!("argument {i}"), data.clone(), 256);
                buffer_addrs.push(a);
                a.to_le_bytes().to_vec()
            }
        };
        bytes.resize(p.size, 0);
        params.push(bytes);
    }
    let mut ret = vec![];
    for z in 0..launch.grid[2] {
        for y in 0..launch.grid[1] {
            for x in 0..launch.grid[0] {
                m.ctaid = [x, y, z];
                let mut shared = vec![0u8; m.shared_size];
                let threads = sched::run_block(&mut m, func, &params, &mut shared)?;
                if (x, y, z) == (0, 0, 0) {
                    let t0 = threads[0].frame();
                    // The return slots only: the call sequences' own
                    // `.param` declarations that follow are scratch, laid
                    // out in whatever order the build emits its calls.
                    ret = t0.params[f.params.len()..f.params.len() + f.rets.len()].concat();
                }
            }
        }
    }
    let buffers = buffer_addrs
        .iter()
        .zip(args.iter().filter_map(|a| match a {
            Arg::Buffer(b) => Some(b.len()),
            Arg::Scalar(_) => None,
        }))
        .map(|(&a, len)| m.global.bytes(a, len).map(|b| b.to_vec()))
        .collect::<Result<_, _>>()?;
    let globals = module
        .globals
        .iter()
        .zip(&m.global_addrs)
        .map(|(v, &a)| Ok((v.name.clone(), m.global.bytes(a, v.size)?.to_vec())))
        .collect::<Result<_, Error>>()?;
    Ok(Outcome { buffers, globals, ret, steps: m.steps })
}

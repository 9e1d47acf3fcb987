//! Debugging front end for the interpreter and the differential harness.
//!
//!   ptxsim run FILE.ptx FUNCTION    run one kernel (its specs/kernels.txt
//!                                   line, or the default input rule) and
//!                                   print a digest of every buffer
//!   ptxsim corpus [--fault] [-I DIR]... [--include FILE]... [FILE.cu...]
//!                                   compare stock and every mode on kernels
//!                                   (--fault: the injected-fault build
//!                                   instead; -I and --include go to clang);
//!                                   a file that does not build is reported
//!                                   on one line and the run goes on
//!   ptxsim csmith FIRST COUNT       compare on csmith seeds FIRST..FIRST+COUNT

use ptxsim::harness::{self, cuda_modes, modes, Record, Toolchain, Verdict};
use ptxsim::{parse, run, Arg, Error, Launch};

fn digest(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

fn run_one(tc: &Toolchain, file: &str, function: &str) -> Result<(), Error> {
    let module = parse(&std::fs::read_to_string(file).map_err(|e| Error::Harness(e.to_string()))?)?;
    let specs = harness::load_specs(tc)?;
    let spec = specs.get(function).cloned().unwrap_or_else(|| harness::default_spec(&module, function));
    let args = harness::make_args(&module, function, &spec)?;
    let launch = Launch {
        grid: spec.grid,
        block: spec.block,
        dynamic_shared: spec.dynamic_shared,
        step_limit: harness::STEP_LIMIT,
        register_fill: 0,
    };
    let out = run(&module, function, &args, &launch)?;
    let inputs = args.iter().filter_map(|a| match a {
        Arg::Buffer(b) => Some(b),
        Arg::Scalar(_) => None,
    });
    for (i, (after, before)) in out.buffers.iter().zip(inputs).enumerate() {
        let changed = if after == before { "unchanged" } else { "written" };
        println!("buffer {i}: {} bytes, digest {:016x}, {changed}", after.len(), digest(after));
    }
    if !out.ret.is_empty() {
        println!("return value: {:02x?}", out.ret);
    }
    let globals: Vec<u8> = out.globals.iter().flat_map(|(_, b)| b.iter().copied()).collect();
    println!("globals digest {:016x}, steps {}", digest(&globals), out.steps);
    Ok(())
}

fn collect(results: Vec<Result<Vec<Record>, Error>>) -> Result<Vec<Record>, Error> {
    Ok(results.into_iter().collect::<Result<Vec<_>, _>>()?.into_iter().flatten().collect())
}

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut tc = Toolchain::from_env()?;
    let mut not_built = 0;
    let records = match args.first().map(String::as_str) {
        Some("run") if args.len() == 3 => return run_one(&tc, &args[1], &args[2]),
        Some("corpus") => {
            let options = harness::CorpusArgs::parse(&args[1..])?;
            tc.includes = options.includes;
            let chosen = |all: &[(&'static str, &'static [&'static str])]| -> Vec<(&str, &[&str])> {
                all.iter()
                    .copied()
                    .filter(|(m, _)| {
                        options.modes.is_empty() || options.modes.iter().any(|n| n.as_str() == *m)
                    })
                    .collect()
            };
            let (modes, cuda_modes) = if options.fault {
                (vec![harness::fault_mode()], vec![])
            } else {
                (chosen(modes()), chosen(cuda_modes()))
            };
            let files = if options.files.is_empty() { harness::corpus_files(&tc)? } else { options.files };
            let results = harness::run_parallel(&files, |cu, dir| {
                harness::corpus_file(&tc, cu, dir, &modes, &cuda_modes)
            });
            let (records, failed) = harness::split_failures(&files, results);
            for (file, why) in &failed {
                println!("{}: not compared: {why}", file.display());
            }
            not_built = failed.len();
            records
        }
        Some("csmith") if args.len() == 3 => {
            let first: u64 = args[1].parse().map_err(|_| Error::Harness("FIRST".into()))?;
            let count: u64 = args[2].parse().map_err(|_| Error::Harness("COUNT".into()))?;
            let seeds: Vec<u64> = (first..first + count).collect();
            collect(harness::run_parallel(&seeds, |&seed, dir| {
                harness::csmith_program(&tc, seed, dir, modes())
            }))?
        }
        _ => {
            return Err(Error::Harness(
                "usage: ptxsim run FILE.ptx FUNCTION | corpus [--fault] [-I DIR]... [--include FILE]... \
                 [FILE.cu...] | csmith FIRST COUNT"
                    .into(),
            ))
        }
    };
    for r in records.iter().filter(|r| !matches!(r.verdict, Verdict::Same | Verdict::SamePtx)) {
        println!("{r}");
    }
    print!("{}", harness::summarize(&records));
    if not_built > 0 {
        println!("{not_built} files not compared (clang or stock llc failed on them; listed above)");
    }
    Ok(())
}

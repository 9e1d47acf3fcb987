//! Debugging front end for the interpreter and the differential harness.
//!
//!   ptxsim run FILE.ptx KERNEL      run one kernel by the default input rule
//!                                   (or its specs/kernels.txt line); print a
//!                                   digest of every buffer
//!   ptxsim corpus [FILE.cu...]      compare stock and every mode on kernels
//!   ptxsim csmith FIRST COUNT       compare on csmith seeds FIRST..FIRST+COUNT

use std::path::PathBuf;

use ptxsim::harness::{self, Toolchain, MODES};
use ptxsim::{parse, run, Arg, Error, Launch};

fn digest(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let tc = Toolchain::from_env()?;
    let tmp = std::env::temp_dir().join(format!("ptxsim-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(|e| Error::Harness(e.to_string()))?;
    let records = match args.first().map(String::as_str) {
        Some("run") if args.len() == 3 => {
            let module =
                parse(&std::fs::read_to_string(&args[1]).map_err(|e| Error::Harness(e.to_string()))?)?;
            let specs = harness::load_specs(&tc)?;
            let spec =
                specs.get(&args[2]).cloned().unwrap_or_else(|| harness::default_spec(&module, &args[2]));
            let a = harness::make_args(&module, &args[2], &spec)?;
            let launch = Launch {
                grid: spec.grid,
                block: spec.block,
                dynamic_shared: spec.dynamic_shared,
                step_limit: harness::STEP_LIMIT,
            };
            let out = run(&module, &args[2], &a, &launch)?;
            for (i, (b, arg)) in
                out.buffers.iter().zip(a.iter().filter(|a| matches!(a, Arg::Buffer(_)))).enumerate()
            {
                let Arg::Buffer(before) = arg else { unreachable!() };
                println!(
                    "buffer {i}: {} bytes, digest {:016x}, changed: {}",
                    b.len(),
                    digest(b),
                    b != before
                );
            }
            println!("steps: {}", out.steps);
            return Ok(());
        }
        Some("corpus") => {
            let files: Vec<PathBuf> = if args.len() > 1 {
                args[1..].iter().map(PathBuf::from).collect()
            } else {
                let mut v: Vec<PathBuf> = std::fs::read_dir(tc.root.join("tests/kernels"))
                    .map_err(|e| Error::Harness(e.to_string()))?
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "cu"))
                    .collect();
                v.sort();
                v
            };
            let mut all = vec![];
            for f in files {
                all.extend(harness::corpus_file(&tc, &f, &tmp, MODES)?);
            }
            all
        }
        Some("csmith") if args.len() == 3 => {
            let first: u64 = args[1].parse().map_err(|_| Error::Harness("FIRST".into()))?;
            let count: u64 = args[2].parse().map_err(|_| Error::Harness("COUNT".into()))?;
            let mut all = vec![];
            for seed in first..first + count {
                all.extend(harness::csmith_program(&tc, seed, &tmp, MODES)?);
            }
            all
        }
        _ => {
            return Err(Error::Harness(
                "usage: ptxsim run FILE.ptx KERNEL | corpus [FILE.cu...] | csmith FIRST COUNT".into(),
            ))
        }
    };
    for r in
        records.iter().filter(|r| !matches!(r.verdict, harness::Verdict::Same | harness::Verdict::SamePtx))
    {
        println!("{r}");
    }
    print!("{}", harness::summarize(&records));
    let _ = std::fs::remove_dir_all(&tmp);
    Ok(())
}

//! `ptxas -v`: per function, registers, spills, stack frame and static
//! shared memory, as ptxas reports them on stderr.

use std::collections::BTreeMap;

use super::Figures;

/// The figures `ptxas -v` reports (on stderr), per function; SASS figures,
/// block size and occupancy are left at their defaults. Kernels have a
/// "Compiling entry function" line; called functions only "Function
/// properties for" lines, once per kernel that calls them (the same figures
/// each time). Only `ptxas info` lines and the indented lines under them are
/// read: a warning such as "Registers are spilled ... in function 'f', 8 bytes
/// spill stores" names its function itself and would be misread.
pub fn parse_ptxas(stderr: &str) -> BTreeMap<String, Figures> {
    let mut figures = BTreeMap::<String, Figures>::new();
    let mut current: Option<String> = None;
    for line in stderr.lines() {
        let indented = line.starts_with(char::is_whitespace);
        let info = line
            .strip_prefix("ptxas info")
            .and_then(|rest| rest.split_once(':'))
            .map(|(_, body)| body.trim());
        if let Some(body) = info {
            let named = body
                .strip_prefix("Compiling entry function '")
                .and_then(|rest| rest.split('\'').next())
                .or_else(|| {
                    body.strip_prefix("Function properties for ").map(|n| n.trim().trim_matches('\''))
                });
            if let Some(name) = named {
                figures.entry(name.to_string()).or_default();
                current = Some(name.to_string());
                continue;
            }
        }
        let Some(f) = current.as_ref().and_then(|name| figures.get_mut(name)) else { continue };
        match info {
            Some(body) if body.starts_with("Used ") => {
                for (n, what) in amounts(&body["Used ".len()..]) {
                    match what {
                        "registers" => f.registers = n,
                        "bytes smem" => f.shared = n,
                        _ => {}
                    }
                }
            }
            None if indented => {
                for (n, what) in amounts(line) {
                    match what {
                        "bytes stack frame" => f.frame = n,
                        "bytes spill stores" => f.spill_stores = n,
                        "bytes spill loads" => f.spill_loads = n,
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    figures
}

/// The "N what" items of a comma-separated ptxas line, as (N, what); an item
/// not led by a number is passed over. Older ptxas wrote static and
/// dynamic-at-launch shared memory as `3568+0 bytes smem`: the parts are
/// added.
fn amounts(line: &str) -> impl Iterator<Item = (u32, &str)> {
    line.split(',').filter_map(|item| {
        let (number, what) = item.trim().split_once(' ')?;
        let n = number.split('+').map(|part| part.parse::<u32>().ok()).sum::<Option<u32>>()?;
        Some((n, what.trim()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CUDA 13 ptxas -v on sm_90: a kernel calling functions it did not
    /// inline (whose properties follow, without registers), a kernel with a
    /// local array, one with shared memory and spills, and an sm_80 line
    /// with constant memory, and a spill warning for some other function.
    const PTXAS: &str = "\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'calls_kernel' for 'sm_90'
ptxas info    : Function properties for calls_kernel
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 27 registers, used 0 barriers
ptxas info    : Compile time = 16.956 ms
ptxas info    : Function properties for _Z10lerp_clampfffff
    8 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Compiling entry function 'local_ring_average' for 'sm_90'
ptxas info    : Function properties for local_ring_average
    64 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 28 registers, used 0 barriers, 64 bytes cumulative stack size
ptxas info    : Compile time = 14.163 ms
ptxas warning : Registers are spilled to local memory in function 'other', 99 bytes spill stores, 99 bytes spill loads
ptxas info    : Compiling entry function 'pressure' for 'sm_90'
ptxas info    : Function properties for pressure
    320 bytes stack frame, 772 bytes spill stores, 776 bytes spill loads
ptxas info    : Used 24 registers, used 1 barriers, 4096 bytes smem, 320 bytes cumulative stack size
ptxas info    : Compiling entry function 'bitonic_sort512' for 'sm_80'
ptxas info    : Function properties for bitonic_sort512
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 48 registers, used 1 barriers, 4096 bytes smem, 372 bytes cmem[0]
";

    #[test]
    fn ptxas_figures() {
        let figures = parse_ptxas(PTXAS);
        assert_eq!(
            figures.keys().collect::<Vec<_>>(),
            ["_Z10lerp_clampfffff", "bitonic_sort512", "calls_kernel", "local_ring_average", "pressure"]
        );
        let f = &figures["calls_kernel"];
        assert_eq!((f.registers, f.frame, f.spills(), f.shared), (27, 0, 0, 0));
        let f = &figures["_Z10lerp_clampfffff"];
        assert_eq!((f.registers, f.frame, f.spill_stores, f.spill_loads), (0, 8, 8, 4));
        let f = &figures["local_ring_average"];
        assert_eq!((f.registers, f.frame, f.spills(), f.shared), (28, 64, 0, 0));
        let f = &figures["pressure"];
        assert_eq!(
            (f.registers, f.frame, f.spill_stores, f.spill_loads, f.shared),
            (24, 320, 772, 776, 4096)
        );
        let f = &figures["bitonic_sort512"];
        assert_eq!((f.registers, f.shared), (48, 4096));
    }

    #[test]
    fn ptxas_older_formats() {
        let figures = parse_ptxas(
            "ptxas info    : Compiling entry function '_Z1kPi' for 'sm_20'\n\
             ptxas info    : Used 25 registers, 3568+0 bytes smem, 80 bytes cmem[0]\n\
             \x20   0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n",
        );
        assert_eq!((figures["_Z1kPi"].registers, figures["_Z1kPi"].shared), (25, 3568));
    }
}

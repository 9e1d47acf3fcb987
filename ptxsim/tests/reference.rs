//! The interpreter checked against itself: corpus kernels with known results,
//! built with stock llc, run on inputs whose answer a few lines of plain Rust
//! compute exactly (integers, or floats holding small integers so that any
//! summation order gives the same bits).

use std::sync::atomic::{AtomicUsize, Ordering};

use ptxsim::harness::{Rng, Toolchain};
use ptxsim::{parse, run, Arg, Launch, Module};

fn stock_module(file: &str) -> Module {
    let tc = Toolchain::from_env().expect("toolchain (source scripts/env.sh)");
    // Tests run in parallel and may build the same file: one directory per call.
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("ptxsim-ref-{}-{call}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (ll, ptx) = (dir.join("k.ll"), dir.join("k.ptx"));
    tc.cuda_to_ll(&tc.root.join("tests/kernels").join(file), &ll, None).unwrap();
    tc.llc(&ll, &ptx, &[], None).unwrap();
    let module = parse(&std::fs::read_to_string(&ptx).unwrap()).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    module
}

fn launch(grid: u32, block: [u32; 3]) -> Launch {
    Launch { grid: [grid, 1, 1], block, dynamic_shared: 0, step_limit: 50_000_000, register_fill: 0 }
}

fn bytes<T: Copy, const N: usize>(xs: &[T], to: impl Fn(T) -> [u8; N]) -> Arg {
    Arg::Buffer(xs.iter().flat_map(|&x| to(x)).collect())
}

fn words<const N: usize>(b: &[u8]) -> Vec<[u8; N]> {
    b.chunks(N).map(|c| c.try_into().unwrap()).collect()
}

fn int(x: i32) -> Arg {
    Arg::Scalar(x.to_le_bytes().to_vec())
}

fn small_ints(n: usize, seed: u64, range: i64) -> Vec<i64> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| (rng.next_u64() % (2 * range as u64 + 1)) as i64 - range).collect()
}

#[test]
fn reduction_min_max_sum() {
    let m = stock_module("reduce_shared_tree.cu");
    let (grid, n) = (3u32, 2000usize);
    let input: Vec<i32> = small_ints(n, 1, 1 << 30).iter().map(|&x| x as i32).collect();
    let args = [
        bytes(&input, i32::to_le_bytes),
        Arg::Buffer(vec![0; 4 * grid as usize]),
        Arg::Buffer(vec![0; 4 * grid as usize]),
        Arg::Buffer(vec![0; 8 * grid as usize]),
        int(n as i32),
    ];
    let out = run(&m, "reduce_minmax_tree", &args, &launch(grid, [256, 1, 1])).unwrap();
    for b in 0..grid as usize {
        // Block b takes the 256-element chunks b, b + grid, b + 2*grid, ...
        let mine: Vec<i32> = input
            .iter()
            .enumerate()
            .filter(|(i, _)| (i / 256) % grid as usize == b)
            .map(|(_, &v)| v)
            .collect();
        assert_eq!(i32::from_le_bytes(words(&out.buffers[1])[b]), *mine.iter().min().unwrap());
        assert_eq!(i32::from_le_bytes(words(&out.buffers[2])[b]), *mine.iter().max().unwrap());
        assert_eq!(
            i64::from_le_bytes(words(&out.buffers[3])[b]),
            mine.iter().map(|&v| v as i64).sum::<i64>()
        );
    }
}

#[test]
fn block_scan_hillis_steele() {
    let m = stock_module("scan_inclusive_hillis_steele.cu");
    let n = 700usize;
    let input: Vec<u32> = small_ints(n, 2, 1 << 30).iter().map(|&x| x as u32).collect();
    let args = [bytes(&input, u32::to_le_bytes), Arg::Buffer(vec![0; 4 * n]), int(n as i32)];
    let out = run(&m, "scan_inclusive_hs", &args, &launch(3, [256, 1, 1])).unwrap();
    let got: Vec<u32> = words(&out.buffers[1]).into_iter().map(u32::from_le_bytes).collect();
    let mut want = vec![];
    for chunk in input.chunks(256) {
        want.extend(chunk.iter().scan(0u32, |acc, &x| {
            *acc = acc.wrapping_add(x);
            Some(*acc)
        }));
    }
    assert_eq!(got, want);
}

#[test]
fn warp_shuffle_scan_and_sum() {
    let m = stock_module("scan_inclusive_hillis_steele.cu");
    let n = 200usize;
    let input: Vec<f32> = small_ints(n, 3, 50).iter().map(|&x| x as f32).collect();
    let args = [bytes(&input, f32::to_le_bytes), Arg::Buffer(vec![0; 4 * n]), int(n as i32)];
    let out = run(&m, "scan_inclusive_warp", &args, &launch(2, [128, 1, 1])).unwrap();
    let got: Vec<f32> = words(&out.buffers[1]).into_iter().map(f32::from_le_bytes).collect();
    let want: Vec<f32> = input
        .chunks(32)
        .flat_map(|c| {
            c.iter()
                .scan(0.0f32, |acc, &x| {
                    *acc += x;
                    Some(*acc)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(got, want);

    let m = stock_module("reduce_warp_shuffle.cu");
    let n = 1000usize;
    let input: Vec<f32> = small_ints(n, 4, 1000).iter().map(|&x| x as f32).collect();
    let args = [bytes(&input, f32::to_le_bytes), Arg::Buffer(vec![0; 16]), int(n as i32)];
    let out = run(&m, "warp_shuffle_sum", &args, &launch(4, [256, 1, 1])).unwrap();
    let got: Vec<f32> = words(&out.buffers[1]).into_iter().map(f32::from_le_bytes).collect();
    let want: Vec<f32> = input.chunks(256).map(|c| c.iter().sum()).collect();
    assert_eq!(got, want);
}

#[test]
fn small_gemm() {
    let m = stock_module("sgemm_tiled_reg4x4.cu");
    let (mm, nn, kk) = (64usize, 128usize, 24usize);
    let a: Vec<f32> = small_ints(mm * kk, 5, 3).iter().map(|&x| x as f32).collect();
    let b: Vec<f32> = small_ints(kk * nn, 6, 3).iter().map(|&x| x as f32).collect();
    let c: Vec<f32> = small_ints(mm * nn, 7, 3).iter().map(|&x| x as f32).collect();
    let f = |x: f32| Arg::Scalar(x.to_le_bytes().to_vec());
    let args = [
        bytes(&a, f32::to_le_bytes),
        bytes(&b, f32::to_le_bytes),
        bytes(&c, f32::to_le_bytes),
        int(mm as i32),
        int(nn as i32),
        int(kk as i32),
        f(2.0),
        f(-1.0),
    ];
    let out =
        run(&m, "sgemm_tiled_4x4", &args, &Launch { grid: [2, 1, 1], ..launch(1, [16, 16, 1]) }).unwrap();
    let got: Vec<f32> = words(&out.buffers[2]).into_iter().map(f32::from_le_bytes).collect();
    for i in 0..mm {
        for j in 0..nn {
            let dot: f32 = (0..kk).map(|k| a[i * kk + k] * b[k * nn + j]).sum();
            assert_eq!(got[i * nn + j], 2.0 * dot - c[i * nn + j], "C[{i}][{j}]");
        }
    }
}

#[test]
fn bitonic_sort_and_atomic_histogram() {
    let m = stock_module("bitonic_sort_shared.cu");
    let n = 1024usize;
    let keys: Vec<u32> = small_ints(n, 8, 1 << 20).iter().map(|&x| x as u32).collect();
    let vals: Vec<i32> = (0..n as i32).collect();
    let args = [bytes(&keys, u32::to_le_bytes), bytes(&vals, i32::to_le_bytes), int(n as i32)];
    let out = run(&m, "bitonic_sort512", &args, &launch(2, [256, 1, 1])).unwrap();
    let got_k: Vec<u32> = words(&out.buffers[0]).into_iter().map(u32::from_le_bytes).collect();
    let got_v: Vec<i32> = words(&out.buffers[1]).into_iter().map(i32::from_le_bytes).collect();
    for seg in 0..2 {
        let r = seg * 512..(seg + 1) * 512;
        let mut want = keys[r.clone()].to_vec();
        want.sort();
        assert_eq!(got_k[r.clone()], want[..]);
        // Each value still travels with its key.
        for (k, v) in got_k[r.clone()].iter().zip(&got_v[r]) {
            assert_eq!(keys[*v as usize], *k);
        }
    }

    let m = stock_module("histogram_atomic.cu");
    let data: Vec<u8> = small_ints(3000, 9, 127).iter().map(|&x| (x + 128) as u8).collect();
    let args = [Arg::Buffer(data.clone()), Arg::Buffer(vec![0; 1024]), int(data.len() as i32)];
    let out = run(&m, "histogram256", &args, &launch(3, [96, 1, 1])).unwrap();
    let got: Vec<u32> = words(&out.buffers[1]).into_iter().map(u32::from_le_bytes).collect();
    let mut want = vec![0u32; 256];
    for &d in &data {
        want[d as usize] += 1;
    }
    assert_eq!(got, want);
}

#[test]
fn tensor_core_gemm() {
    // D = alpha*A*B + beta*C over 16x16 tiles, one warp per tile; small
    // integers are exact in f16 and in every f32 partial sum.
    let m = stock_module("wmma_hgemm_16x16x16.cu");
    let (mm, nn, kk) = (32usize, 32usize, 32usize);
    let a: Vec<f32> = small_ints(mm * kk, 10, 3).iter().map(|&x| x as f32).collect();
    let b_colmajor: Vec<f32> = small_ints(kk * nn, 11, 3).iter().map(|&x| x as f32).collect();
    let c: Vec<f32> = small_ints(mm * nn, 12, 3).iter().map(|&x| x as f32).collect();
    let h = |x: f32| half::f16::from_f32(x).to_bits().to_le_bytes();
    let f = |x: f32| Arg::Scalar(x.to_le_bytes().to_vec());
    let args = [
        bytes(&a, h),
        bytes(&b_colmajor, h),
        bytes(&c, f32::to_le_bytes),
        Arg::Buffer(vec![0; 4 * mm * nn]),
        int(mm as i32),
        int(nn as i32),
        int(kk as i32),
        f(3.0),
        f(-2.0),
    ];
    let out = run(&m, "wmma_gemm_f16_f32", &args, &launch(2, [64, 1, 1])).unwrap();
    let got: Vec<f32> = words(&out.buffers[3]).into_iter().map(f32::from_le_bytes).collect();
    for i in 0..mm {
        for j in 0..nn {
            let dot: f32 = (0..kk).map(|k| a[i * kk + k] * b_colmajor[j * kk + k]).sum();
            assert_eq!(got[i * nn + j], 3.0 * dot - 2.0 * c[i * nn + j], "D[{i}][{j}]");
        }
    }
}

#[test]
fn runs_are_deterministic() {
    let m = stock_module("histogram_atomic.cu");
    let data: Vec<u8> = small_ints(5000, 13, 127).iter().map(|&x| (x + 128) as u8).collect();
    let args = [Arg::Buffer(data.clone()), Arg::Buffer(vec![0; 1024]), int(data.len() as i32)];
    let first = run(&m, "histogram256", &args, &launch(4, [128, 1, 1])).unwrap();
    for _ in 0..3 {
        assert_eq!(run(&m, "histogram256", &args, &launch(4, [128, 1, 1])).unwrap(), first);
    }
}

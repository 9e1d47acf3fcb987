//! `--measure CMD`: timings decide between the choices the static
//! objective keeps. Each candidate (stock, the plugin's default, then the
//! tuned choices) is
//! built with the compile command, then `CMD` runs `runs` times; stock is
//! built and run a second time at the end, a control that shows how much
//! two identical builds differ. A candidate wins only where its times beat
//! stock's by more than that control (and by at least 1%).
//!
//! Times are read off `CMD`'s output as `scripts/gpu-corpus` reads
//! HeCBench's: lines that mention a time or a rate, not host work, each
//! line's first number (a rate counts as its inverse, so that smaller is
//! faster). A `CMD` that prints none is timed whole.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::sync::LazyLock;
use std::time::Instant;

use regex::Regex;
use serde_json::json;

use crate::command::Compile;

static TIME_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)time|elapsed|throughput|bandwidth|flops|/s\b|\bms\b|\bus\b|sec")
        .expect("a valid pattern")
});
static HOST_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)cpu|host|wall|serial|offload|alloc|copy|memcpy").expect("a valid pattern")
});
static RATE_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)throughput|bandwidth|flops|/s\b").expect("a valid pattern"));
static NUMBER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?").expect("a valid pattern"));

pub struct Measure {
    /// Run by `sh -c`, with `NVREGALLOC_TUNE_CANDIDATE` naming the build.
    pub command: String,
    pub runs: usize,
}

/// {line with its numbers blanked: time} per line timing GPU work.
pub fn time_lines(text: &str) -> BTreeMap<String, f64> {
    let mut times = BTreeMap::new();
    for line in text.lines() {
        let Some(m) = NUMBER.find(line) else { continue };
        let Ok(value) = m.as_str().parse::<f64>() else { continue };
        if !TIME_LINE.is_match(line) || HOST_LINE.is_match(line) || value <= 0.0 {
            continue;
        }
        let key = NUMBER.replace_all(line, "#").trim().to_owned();
        // Lines alike but for their numbers, by order.
        let nth = times.keys().filter(|k: &&String| k.starts_with(&key)).count();
        times.insert(format!("{key} [{nth}]"), if RATE_LINE.is_match(line) { 1.0 / value } else { value });
    }
    times
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).expect("times are numbers"));
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

/// Per time line, the median over runs.
type Timings = BTreeMap<String, f64>;

/// The geometric mean over the lines both have of `a / b`.
fn ratio(a: &Timings, b: &Timings) -> Option<f64> {
    let logs: Vec<f64> = a.iter().filter_map(|(k, x)| b.get(k).map(|y| (x / y).ln())).collect();
    (!logs.is_empty()).then(|| (logs.iter().sum::<f64>() / logs.len() as f64).exp())
}

/// The verdict from medians: the winning label, and why.
pub fn verdict(
    stock: &Timings,
    control: &Timings,
    others: &[(&str, Timings)],
) -> (String, f64, Vec<(String, f64)>) {
    let noise = ratio(control, stock).map_or(0.0, |r| (r - 1.0).abs()).max(0.01);
    let ratios: Vec<(String, f64)> =
        others.iter().filter_map(|(label, t)| ratio(t, stock).map(|r| (label.to_string(), r))).collect();
    let best = ratios.iter().min_by(|a, b| a.1.partial_cmp(&b.1).expect("ratios are numbers"));
    let winner = match best {
        Some((label, r)) if *r < 1.0 - noise => label.clone(),
        _ => "stock".to_owned(),
    };
    (winner, noise, ratios)
}

impl Measure {
    fn timings(&self, label: &str) -> Result<Timings, String> {
        let mut runs: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        for _ in 0..self.runs.max(1) {
            let started = Instant::now();
            let out = Command::new("sh")
                .args(["-c", &self.command])
                .env("NVREGALLOC_TUNE_CANDIDATE", label)
                .output()
                .map_err(|e| format!("cannot run --measure's command: {e}"))?;
            if !out.status.success() {
                return Err(format!("--measure's command failed on the {label} build: {}", out.status));
            }
            let mut times = time_lines(&String::from_utf8_lossy(&out.stdout));
            if times.is_empty() {
                times.insert("whole run".to_owned(), started.elapsed().as_secs_f64());
            }
            for (k, v) in times {
                runs.entry(k).or_default().push(v);
            }
        }
        Ok(runs.into_iter().map(|(k, v)| (k, median(v))).collect())
    }

    /// Builds and times each candidate (`(label, options file)`, stock
    /// first), then stock again; returns the winner's label and the
    /// timings for the report.
    pub fn choose(
        &self,
        compile: &Compile,
        plugin: &Path,
        candidates: &[(&str, &Path)],
    ) -> Result<(String, serde_json::Value), String> {
        let mut timed = Vec::new();
        let order = candidates.iter().chain(candidates.first());
        for (n, (label, options)) in order.enumerate() {
            let status = compile.final_build(plugin, options).status().map_err(|e| e.to_string())?;
            if !status.success() {
                return Err(format!("the {label} build failed"));
            }
            let label = if n == candidates.len() { "stock (control)" } else { label };
            timed.push((label, self.timings(label)?));
        }
        let control = timed.pop().expect("stock's second run").1;
        let stock = timed.remove(0).1;
        let (winner, noise, ratios) = verdict(&stock, &control, &timed);
        let value = json!({
            "command": self.command,
            "runs": self.runs,
            "control_noise": noise,
            "ratios_to_stock": ratios.iter().cloned().collect::<BTreeMap<_, _>>(),
            "winner": winner,
        });
        Ok((winner, value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hecbench_timing_lines_are_read_and_host_lines_are_not() {
        let out = "Average kernel execution time: 12.5 (us)\nHost time 3 ms\nthroughput: 4 GB/s\nPASS\n";
        let times = time_lines(out);
        assert_eq!(times.len(), 2);
        assert_eq!(times["Average kernel execution time: # (us) [0]"], 12.5);
        assert_eq!(times["throughput: # GB/s [0]"], 0.25);
    }

    #[test]
    fn a_candidate_must_beat_the_control_noise() {
        let t = |x: f64| Timings::from([("k".to_owned(), x)]);
        let (winner, noise, _) = verdict(&t(100.0), &t(103.0), &[("tuned", t(95.0))]);
        assert_eq!((winner.as_str(), (noise * 100.0).round()), ("tuned", 3.0));
        assert_eq!(verdict(&t(100.0), &t(106.0), &[("tuned", t(95.0))]).0, "stock");
        assert_eq!(verdict(&t(100.0), &t(100.0), &[("tuned", t(99.5))]).0, "stock");
    }
}

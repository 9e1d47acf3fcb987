//! The generator's decisions as a tape of small numbers, so that a failing
//! program can be shrunk by editing its decisions instead of its IR: a
//! program is a pure function of its tape, and 0 is always the simplest
//! answer (no more statements, the first operand kind, the plainest type),
//! so shorter tapes and smaller numbers make smaller programs. This is the
//! approach of Hypothesis and of regalloc2's fuzz targets (which draw from
//! libFuzzer's bytes the same way).

use ptxsim::harness::Rng;

pub struct Choices {
    tape: Vec<u32>,
    pos: usize,
    /// Where the numbers past the tape's end come from: a seeded generator
    /// (recording them), or nothing (every further answer is 0).
    source: Option<Rng>,
}

impl Choices {
    pub fn random(seed: u64) -> Choices {
        Choices { tape: Vec::new(), pos: 0, source: Some(Rng::new(seed)) }
    }

    pub fn replay(tape: Vec<u32>) -> Choices {
        Choices { tape, pos: 0, source: None }
    }

    /// From a fuzzer's bytes: one decision per byte.
    pub fn from_bytes(bytes: &[u8]) -> Choices {
        Choices::replay(bytes.iter().map(|&b| u32::from(b)).collect())
    }

    /// A number in 0..n (n > 0).
    pub fn below(&mut self, n: u32) -> u32 {
        debug_assert!(n > 0);
        let v = match (self.tape.get(self.pos), &mut self.source) {
            (Some(&v), _) => v % n,
            (None, Some(rng)) => {
                let v = (rng.next_u64() % u64::from(n)) as u32;
                self.tape.push(v);
                v
            }
            (None, None) => 0,
        };
        self.pos += 1;
        v
    }

    pub fn chance(&mut self, one_in: u32) -> bool {
        self.below(one_in) == 0
    }

    /// The decisions made so far: replaying them rebuilds the same program.
    pub fn into_tape(mut self) -> Vec<u32> {
        self.tape.truncate(self.pos);
        self.tape
    }
}

/// Smaller tapes to try in place of `tape`, most promising first: whole
/// chunks deleted (fewer statements), then single decisions set to 0 and
/// halved (simpler choices).
pub fn shrink_candidates(tape: &[u32]) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    let mut chunk = (tape.len() / 2).max(1);
    loop {
        let mut start = 0;
        while start < tape.len() {
            let end = (start + chunk).min(tape.len());
            out.push([&tape[..start], &tape[end..]].concat());
            start += chunk;
        }
        if chunk == 1 {
            break;
        }
        chunk /= 2;
    }
    for (i, &v) in tape.iter().enumerate() {
        if v != 0 {
            let mut zero = tape.to_vec();
            zero[i] = 0;
            out.push(zero);
            if v > 1 {
                let mut half = tape.to_vec();
                half[i] = v / 2;
                out.push(half);
            }
        }
    }
    out
}

/// Shrinks `tape` while `still_fails` holds, trying at most `budget`
/// candidates; returns the smallest failing tape found.
pub fn shrink(mut tape: Vec<u32>, budget: usize, mut still_fails: impl FnMut(&[u32]) -> bool) -> Vec<u32> {
    let mut tries = 0;
    'improve: while tries < budget {
        for candidate in shrink_candidates(&tape) {
            if tries >= budget {
                break 'improve;
            }
            tries += 1;
            if still_fails(&candidate) {
                tape = candidate;
                continue 'improve;
            }
        }
        break;
    }
    tape
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_repeats_a_random_run() {
        let mut a = Choices::random(7);
        let first: Vec<u32> = (0..50).map(|i| a.below(3 + i)).collect();
        let mut b = Choices::replay(a.into_tape());
        let again: Vec<u32> = (0..50).map(|i| b.below(3 + i)).collect();
        assert_eq!(first, again);
        assert_eq!(b.below(9), 0, "past the tape every answer is 0");
    }

    #[test]
    fn shrink_finds_the_one_decision_that_matters() {
        let tape = vec![3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5];
        let small = shrink(tape, 1000, |t| t.contains(&9));
        assert_eq!(small, vec![9]);
    }
}

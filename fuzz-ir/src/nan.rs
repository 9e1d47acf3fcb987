//! NaN payloads in a kernel's outputs. LLVM promises no NaN's bits: constant
//! folding makes a half-precision NaN LLVM's 0x7E00 where the GPU computes
//! 0x7FFF, and stock LLVM's O3 folds as the plugin's full unrolling does.
//! Two builds that store a NaN each where the generator stored a float agree;
//! a NaN where the other stores a number, or two different numbers, still
//! differ.

use crate::generate::{Outputs, Ty, OUT_BYTES, THREADS};

/// A float format's bits: its exponent and mantissa masks.
#[derive(Clone, Copy)]
struct Format {
    bytes: usize,
    exponent: u64,
    mantissa: u64,
}

const F16: Format = Format { bytes: 2, exponent: 0x7c00, mantissa: 0x03ff };
const BF16: Format = Format { bytes: 2, exponent: 0x7f80, mantissa: 0x007f };
const F32: Format = Format { bytes: 4, exponent: 0x7f80_0000, mantissa: 0x007f_ffff };
const F64: Format = Format { bytes: 8, exponent: 0x7ff0_0000_0000_0000, mantissa: 0x000f_ffff_ffff_ffff };

/// The float lanes of a value of `ty`: their format and how many.
fn lanes(ty: Ty) -> Option<(Format, usize)> {
    match ty {
        Ty::F16 => Some((F16, 1)),
        Ty::BF16 => Some((BF16, 1)),
        Ty::F32 => Some((F32, 1)),
        Ty::F64 => Some((F64, 1)),
        Ty::V2F16 => Some((F16, 2)),
        Ty::V4F32 => Some((F32, 4)),
        _ => None,
    }
}

impl Format {
    fn read(self, bytes: &[u8]) -> u64 {
        bytes.iter().rev().fold(0, |v, &b| v << 8 | u64::from(b))
    }

    fn is_nan(self, bits: u64) -> bool {
        bits & self.exponent == self.exponent && bits & self.mantissa != 0
    }

    /// Every NaN is this one: the quiet NaN with no payload.
    fn canonical(self) -> u64 {
        self.exponent | (self.mantissa + 1) >> 1
    }
}

/// `out`, the kernel's output buffer, with each NaN the generator's float
/// outputs hold made the canonical NaN of its format; and how many bytes
/// that changed.
pub fn canonical_nans(out: &[u8], outputs: &Outputs) -> (Vec<u8>, usize) {
    let mut canonical = out.to_vec();
    let mut changed = 0;
    for thread in 0..THREADS as usize {
        for (k, &ty) in outputs.types.iter().enumerate() {
            let Some((format, count)) = lanes(ty) else { continue };
            for lane in 0..count {
                let at = thread * OUT_BYTES + k * 16 + lane * format.bytes;
                let Some(bytes) = canonical.get_mut(at..at + format.bytes) else { continue };
                if !format.is_nan(format.read(bytes)) {
                    continue;
                }
                let nan = format.canonical().to_le_bytes();
                changed += bytes.iter().zip(&nan).filter(|(b, n)| b != n).count();
                bytes.copy_from_slice(&nan[..format.bytes]);
            }
        }
    }
    (canonical, changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An output buffer of one half per thread, each `bits`.
    fn halves(bits: u16) -> Vec<u8> {
        let mut out = vec![0u8; OUT_BYTES * THREADS as usize];
        for thread in 0..THREADS as usize {
            out[thread * OUT_BYTES..][..2].copy_from_slice(&bits.to_le_bytes());
        }
        out
    }

    #[test]
    fn two_nans_agree_whatever_their_payloads() {
        let outputs = Outputs { types: vec![Ty::F16] };
        // LLVM's folded NaN and the GPU's.
        let (folded, _) = canonical_nans(&halves(0x7e00), &outputs);
        let (computed, changed) = canonical_nans(&halves(0x7fff), &outputs);
        assert_eq!(folded, computed);
        assert!(changed > 0);
    }

    #[test]
    fn a_nan_against_a_number_still_differs() {
        let outputs = Outputs { types: vec![Ty::F16] };
        let (nan, _) = canonical_nans(&halves(0x7fff), &outputs);
        let (one, _) = canonical_nans(&halves(0x3c00), &outputs);
        assert_ne!(nan, one);
        // Infinity is no NaN.
        let (inf, changed) = canonical_nans(&halves(0x7c00), &outputs);
        assert_eq!((inf, changed), (halves(0x7c00), 0));
    }

    #[test]
    fn integers_are_left_as_they_are() {
        let (out, changed) = canonical_nans(&halves(0x7fff), &Outputs { types: vec![Ty::I16] });
        assert_eq!((out, changed), (halves(0x7fff), 0));
        assert_eq!(canonical_nans(&halves(0x7fff), &Outputs::default()).1, 0);
    }

    #[test]
    fn each_format_has_its_canonical_nan() {
        assert_eq!(F16.canonical(), 0x7e00);
        assert_eq!(BF16.canonical(), 0x7fc0);
        assert_eq!(F32.canonical(), 0x7fc0_0000);
        assert_eq!(F64.canonical(), 0x7ff8_0000_0000_0000);
    }
}

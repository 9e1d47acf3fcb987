//! The backend passes the shim runs, by name: a leaf, so that the driver
//! that runs them and the report that records them need not know each other.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    Coalesce,
    Color,
    /// CSSA coalescing, on SSA form before PHI elimination.
    Cssa,
    /// Recomputing cheap values where register pressure costs warps.
    Pressure,
}

impl Pass {
    /// The name the JSON report files the pass's figures under.
    pub fn name(self) -> &'static str {
        match self {
            Self::Coalesce => "coalesce",
            Self::Color => "color",
            Self::Cssa => "cssa",
            Self::Pressure => "pressure",
        }
    }
}

//! Test support for nvregalloc's core, outside the plugin: `generate` makes
//! random but valid machine functions, `interp` runs them and checks that a
//! pass's rewrite leaves their behaviour unchanged. The semantic tests
//! (tests/semantics.rs), the fuzz corpus replay (tests/fuzz_corpus.rs) and
//! the cargo-fuzz target (fuzz/) are built on them.

pub mod generate;
pub mod interp;

//! The analyses of a parsed kernel, above the AST and below the emitters: the subset rules
//! (`check`), the types (`typeck`, with `exhaustive` for `match`), and the bounds prover
//! (`proof`) the C writer asks which checks it may leave out.

#[cfg(test)]
mod calls_tests;
pub mod check;
pub mod exhaustive;
pub mod proof;
pub mod typeck;

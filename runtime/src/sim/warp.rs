//! Warp collectives: what a lane waits with, the checks on arrival, and the results once
//! every lane of the mask has arrived, with CUDA's exact semantics.
//!
//! Shuffles follow the PTX definition of `shfl.sync` (which CUDA's `__shfl*_sync` use with
//! `c = ((32 - width) << 8) | clamp`): only the low 5 bits of the lane or delta operand
//! count, and a source lane outside the allowed range gives the lane its own value. A
//! source lane that is not in the mask is an error here (undefined on the GPU).

/// The kind of a warp collective; lanes of one mask must all wait at the same kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WarpOp {
    Sync,
    Ballot,
    All,
    Any,
    Shfl,
    ShflUp,
    ShflDown,
    ShflXor,
    MatchAny,
    /// `mma.sync`: every lane's fragments travel in its slot's wide payload.
    Mma(MmaSpec),
    /// `ldmatrix` of `num` 8 x 8 matrices: each addressing lane's row travels in its wide
    /// payload.
    LdMatrix {
        num: u32,
        trans: bool,
    },
    /// `stmatrix`: each lane's fragment in, each addressing lane's row out.
    StMatrix {
        num: u32,
        trans: bool,
    },
    /// `wgmma`: a collective of the warpgroup (the block's 128 threads 128 * g ..
    /// 128 * g + 127), released by the block once all of them wait at it (sim/wgmma.rs);
    /// each thread then reads its operands from shared memory itself.
    Wgmma,
    /// Before a `wgmma` whose A is a `FragmentA`: a warp collective that hands each lane
    /// the rows of A its accumulator elements need, through the wide payloads
    /// (sim/mma.rs, `wgmma_a_results`).
    WgmmaA,
    /// `setmaxnreg_inc` (`true`) or `setmaxnreg_dec`: a warpgroup collective that does
    /// nothing else here.
    SetMaxNReg(bool),
}

impl WarpOp {
    /// The kernel-language name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            WarpOp::Sync => "sync_warp",
            WarpOp::Ballot => "ballot_sync",
            WarpOp::All => "all_sync",
            WarpOp::Any => "any_sync",
            WarpOp::Shfl => "shfl_sync",
            WarpOp::ShflUp => "shfl_up_sync",
            WarpOp::ShflDown => "shfl_down_sync",
            WarpOp::ShflXor => "shfl_xor_sync",
            WarpOp::MatchAny => "match_any_sync",
            WarpOp::Mma(_) => "mma_sync",
            WarpOp::LdMatrix { trans: false, .. } => "ldmatrix",
            WarpOp::LdMatrix { trans: true, .. } => "ldmatrix_trans",
            WarpOp::StMatrix { trans: false, .. } => "stmatrix",
            WarpOp::StMatrix { trans: true, .. } => "stmatrix_trans",
            WarpOp::Wgmma | WarpOp::WgmmaA => "wgmma",
            WarpOp::SetMaxNReg(true) => "setmaxnreg_inc",
            WarpOp::SetMaxNReg(false) => "setmaxnreg_dec",
        }
    }

    /// Whether the lanes' operands and results travel in their wide payloads.
    pub(crate) fn is_wide(self) -> bool {
        matches!(
            self,
            WarpOp::Mma(_) | WarpOp::LdMatrix { .. } | WarpOp::StMatrix { .. } | WarpOp::WgmmaA
        )
    }

    /// Whether every thread of the warpgroup takes part, not only the warp's lanes.
    pub(crate) fn is_warpgroup(self) -> bool {
        matches!(self, WarpOp::Wgmma | WarpOp::SetMaxNReg(_))
    }

    fn is_shuffle(self) -> bool {
        matches!(
            self,
            WarpOp::Shfl | WarpOp::ShflUp | WarpOp::ShflDown | WarpOp::ShflXor
        )
    }
}

use super::mma::{ldmatrix_results, mma_results, stmatrix_results, wgmma_a_results, MmaSpec, WIDE};

/// What one lane waits at: the collective, its mask and site, its operands.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WarpWait {
    pub(crate) op: WarpOp,
    pub(crate) mask: u32,
    pub(crate) site: u32,
    /// The value's bits (shuffles, match), or the predicate (votes).
    pub(crate) value: u64,
    /// Source lane, delta or lane mask (shuffles).
    pub(crate) arg: u32,
    /// Segment width (shuffles).
    pub(crate) width: u32,
}

impl WarpWait {
    /// Whether two lanes wait at the same collective (kind and mask; sites may differ).
    pub(crate) fn matches(&self, other: &WarpWait) -> bool {
        self.op == other.op && self.mask == other.mask
    }
}

/// Checks a lane's call on arrival (lanes of the mask that do not exist, in a partial last
/// warp, are like exited ones: they take no part). Returns the problem in words.
pub(crate) fn check_arrival(op: WarpOp, lane: u32, mask: u32, width: u32) -> Result<(), String> {
    if mask & (1 << lane) == 0 {
        return Err(format!(
            "the mask {mask:#010x} does not name the calling lane {lane}"
        ));
    }
    if op.is_shuffle() && !(width.is_power_of_two() && width <= 32) {
        return Err(format!(
            "the width {width} is not a power of two between 1 and 32"
        ));
    }
    Ok(())
}

/// The lane a shuffle reads, as PTX's `shfl.sync` computes it.
pub(crate) fn shuffle_source(op: WarpOp, lane: u32, b: u32, width: u32) -> u32 {
    let bval = b & 31;
    let segmask = 32u32.wrapping_sub(width) & 31;
    let clamp = if op == WarpOp::ShflUp { 0 } else { 31 };
    let min_lane = lane & segmask;
    let max_lane = min_lane | (clamp & !segmask);
    let (j, in_range) = match op {
        WarpOp::ShflUp => {
            let j = lane as i32 - bval as i32;
            (j, j >= max_lane as i32)
        }
        WarpOp::ShflDown => {
            let j = lane + bval;
            (j as i32, j <= max_lane)
        }
        WarpOp::ShflXor => {
            let j = lane ^ bval;
            (j as i32, j <= max_lane)
        }
        _ => {
            let j = min_lane | (bval & !segmask);
            (j as i32, j <= max_lane)
        }
    };
    if in_range {
        j as u32
    } else {
        lane
    }
}

/// The result of every lane of `mask` (indexed by lane), from what each waits with (and,
/// for `mma.sync`, the lanes' wide payloads, replaced by their results).
/// `Err((lane, words))` when the result is undefined on the GPU.
pub(crate) fn results(
    mask: u32,
    waits: &[Option<WarpWait>; 32],
    out: &mut [u64; 32],
    wide: &mut [[u32; WIDE]; 32],
) -> Result<(), (u32, String)> {
    let lanes = || (0..32u32).filter(move |l| mask & (1 << l) != 0);
    let wait = |l: u32| waits[l as usize].expect("every lane of the mask waits");
    let op = wait(mask.trailing_zeros()).op;
    let ballot = || {
        lanes()
            .filter(|&l| wait(l).value != 0)
            .fold(0u32, |b, l| b | 1 << l)
    };
    match op {
        WarpOp::Mma(_)
        | WarpOp::LdMatrix { .. }
        | WarpOp::StMatrix { .. }
        | WarpOp::Wgmma
        | WarpOp::WgmmaA
        | WarpOp::SetMaxNReg(_) => {
            // `.aligned`: the whole warp executes it; a lane that exited (or that a
            // partial last warp lacks) has no fragments to give.
            if mask != u32::MAX {
                let missing = (!mask).trailing_zeros();
                return Err((
                    mask.trailing_zeros(),
                    format!(
                        "{} needs all 32 lanes of the warp, and lane {missing} has exited \
                         or does not exist (the block's size is not a multiple of 32)",
                        op.name()
                    ),
                ));
            }
            match op {
                WarpOp::Mma(spec) => mma_results(spec, wide),
                WarpOp::LdMatrix { num, trans } => ldmatrix_results(num, trans, wide),
                WarpOp::StMatrix { num, trans } => stmatrix_results(num, trans, wide),
                WarpOp::WgmmaA => wgmma_a_results(wide),
                _ => {}
            }
        }
        WarpOp::Sync => lanes().for_each(|l| out[l as usize] = 0),
        WarpOp::Ballot => {
            let b = u64::from(ballot());
            lanes().for_each(|l| out[l as usize] = b);
        }
        WarpOp::All => {
            let r = u64::from(ballot() == mask);
            lanes().for_each(|l| out[l as usize] = r);
        }
        WarpOp::Any => {
            let r = u64::from(ballot() != 0);
            lanes().for_each(|l| out[l as usize] = r);
        }
        WarpOp::MatchAny => {
            for l in lanes() {
                let v = wait(l).value;
                out[l as usize] = u64::from(
                    lanes()
                        .filter(|&o| wait(o).value == v)
                        .fold(0u32, |m, o| m | 1 << o),
                );
            }
        }
        WarpOp::Shfl | WarpOp::ShflUp | WarpOp::ShflDown | WarpOp::ShflXor => {
            for l in lanes() {
                let w = wait(l);
                let src = shuffle_source(op, l, w.arg, w.width);
                if mask & (1 << src) == 0 {
                    return Err((
                        l,
                        format!(
                            "{} reads from lane {src}, which is not in the mask {mask:#010x} \
                             (the result is undefined on the GPU)",
                            op.name()
                        ),
                    ));
                }
                out[l as usize] = wait(src).value;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CUDA's documented formulas, for comparison with the PTX-based one.
    fn reference(op: WarpOp, lane: u32, b: u32, width: u32) -> u32 {
        let b = b & 31;
        match op {
            WarpOp::Shfl => (lane & !(width - 1)) + (b % width),
            WarpOp::ShflUp => {
                if lane % width >= b {
                    lane - b
                } else {
                    lane
                }
            }
            WarpOp::ShflDown => {
                if lane % width + b < width {
                    lane + b
                } else {
                    lane
                }
            }
            _ => {
                let src = lane ^ b;
                if src >= ((lane + width) & !(width - 1)) {
                    lane
                } else {
                    src
                }
            }
        }
    }

    #[test]
    fn shuffle_sources_match_cuda() {
        for op in [
            WarpOp::Shfl,
            WarpOp::ShflUp,
            WarpOp::ShflDown,
            WarpOp::ShflXor,
        ] {
            for width in [1, 2, 4, 8, 16, 32] {
                for lane in 0..32 {
                    for b in 0..64 {
                        assert_eq!(
                            shuffle_source(op, lane, b, width),
                            reference(op, lane, b, width),
                            "{op:?} lane {lane} b {b} width {width}"
                        );
                    }
                }
            }
        }
        // xor may read an earlier segment, never a later one.
        assert_eq!(shuffle_source(WarpOp::ShflXor, 20, 16, 16), 4);
        assert_eq!(shuffle_source(WarpOp::ShflXor, 4, 16, 16), 4);
    }

    #[test]
    fn arrival_checks() {
        assert!(check_arrival(WarpOp::Sync, 3, 0xffff_ffff, 0).is_ok());
        assert!(check_arrival(WarpOp::Sync, 3, 0xf0, 0)
            .unwrap_err()
            .contains("does not name the calling lane 3"));
        // Lanes a partial warp lacks take no part, as exited ones.
        assert!(check_arrival(WarpOp::Ballot, 3, 0xffff_ffff, 0).is_ok());
        assert!(check_arrival(WarpOp::Shfl, 3, 0xff, 12)
            .unwrap_err()
            .contains("width 12"));
        assert!(check_arrival(WarpOp::Shfl, 3, 0xff, 0).is_err());
    }
}

//! Bounds checks proven at launch (docs/bounds.md, "Proven at launch"): the macro leaves,
//! for each check it could not prove, the conditions on launch-time values (sizes, slice
//! lengths, the block and grid) under which the index is below the length. Here a launch
//! evaluates them, exactly, in 128-bit arithmetic (an overflow proves nothing), and the
//! bits of the checks proven pick the CUDA variant compiled with them removed
//! (`WS_PROVEN`). The simulator ignores them: it checks every access.

use crate::config::LaunchConfig;
use crate::kernel_abi::{LaunchAtom, LaunchTerm, ProvableCheck};
use crate::scalar::Arg;

/// The checks of `sites` proven for a launch with `cfg` and `args`: bit `n` set when one
/// of site `n`'s conditions holds (sites past 64 are never proven).
pub(crate) fn proven_mask(sites: &[ProvableCheck], cfg: &LaunchConfig, args: &[Arg]) -> u64 {
    let mut mask = 0u64;
    for (n, site) in sites.iter().enumerate().take(64) {
        if site.any_of.iter().any(|terms| holds(terms, cfg, args)) {
            mask |= 1 << n;
        }
    }
    mask
}

/// Every site of `sites` proven (the variant a launch whose sizes agree gets).
pub(crate) fn all(sites: &[ProvableCheck]) -> u64 {
    match sites.len() {
        0 => 0,
        n if n >= 64 => u64::MAX,
        n => (1u64 << n) - 1,
    }
}

/// `sum of terms >= 0` on the launch's values; false when a value is missing or the sum
/// does not fit in an `i128`.
fn holds(terms: &[LaunchTerm], cfg: &LaunchConfig, args: &[Arg]) -> bool {
    let sum = terms.iter().try_fold(0i128, |sum, t| {
        let product = t
            .atoms
            .iter()
            .try_fold(t.coef, |p, a| p.checked_mul(value(*a, cfg, args)?))?;
        sum.checked_add(product)
    });
    sum.is_some_and(|s| s >= 0)
}

/// An atom's value at this launch.
fn value(atom: LaunchAtom, cfg: &LaunchConfig, args: &[Arg]) -> Option<i128> {
    let axis = |d: crate::dim::Dim3, a: u8| match a {
        0 => Some(d.x),
        1 => Some(d.y),
        2 => Some(d.z),
        _ => None,
    };
    match atom {
        LaunchAtom::Scalar(i) => match args.get(usize::from(i))? {
            // Unsigned parameters only: the low `size` bytes are the value.
            Arg::Scalar { bits, size } if *size <= 8 => {
                let mask = if *size == 8 {
                    u64::MAX as u128
                } else {
                    (1u128 << (8 * u32::from(*size))) - 1
                };
                Some((bits & mask) as i128)
            }
            _ => None,
        },
        LaunchAtom::Len(i) => match args.get(usize::from(i))? {
            Arg::Slice { len, .. } => Some(i128::from(*len)),
            _ => None,
        },
        LaunchAtom::Block(a) => axis(cfg.block, a).map(i128::from),
        LaunchAtom::Grid(a) => axis(cfg.grid, a).map(i128::from),
        LaunchAtom::Value(v) => Some(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::Arg;

    /// `u.len() - nx * ny >= 0` (heat's `u[i * nx + j]` under `i < ny && j < nx`) and
    /// `16 - block_dim().y >= 0` (a tile of 18 rows read at `ty + 2`).
    static SITES: [ProvableCheck; 2] = [
        ProvableCheck {
            any_of: &[&[
                LaunchTerm {
                    coef: 1,
                    atoms: &[LaunchAtom::Len(0)],
                },
                LaunchTerm {
                    coef: -1,
                    atoms: &[LaunchAtom::Scalar(1), LaunchAtom::Scalar(2)],
                },
            ]],
        },
        ProvableCheck {
            any_of: &[&[
                LaunchTerm {
                    coef: 16,
                    atoms: &[],
                },
                LaunchTerm {
                    coef: -1,
                    atoms: &[LaunchAtom::Block(1)],
                },
            ]],
        },
    ];

    fn args(len: u64, nx: u32, ny: u32) -> Vec<Arg> {
        vec![
            Arg::Slice { addr: 0, len },
            Arg::Scalar {
                bits: u128::from(nx),
                size: 4,
            },
            Arg::Scalar {
                bits: u128::from(ny),
                size: 4,
            },
        ]
    }

    #[test]
    fn a_site_is_proven_exactly_when_its_condition_holds() {
        let cfg = LaunchConfig::new((4u32, 4u32), (16u32, 16u32));
        assert_eq!(proven_mask(&SITES, &cfg, &args(64, 8, 8)), 0b11);
        assert_eq!(proven_mask(&SITES, &cfg, &args(63, 8, 8)), 0b10);
        let tall = LaunchConfig::new((4u32, 4u32), (16u32, 32u32));
        assert_eq!(proven_mask(&SITES, &tall, &args(64, 8, 8)), 0b01);
    }

    #[test]
    fn a_missing_or_mistyped_argument_proves_nothing() {
        let cfg = LaunchConfig::new((1u32, 1u32), (1u32, 1u32));
        assert_eq!(proven_mask(&SITES[..1], &cfg, &[]), 0);
        let swapped = vec![
            Arg::Scalar { bits: 64, size: 8 },
            Arg::Slice { addr: 0, len: 8 },
            Arg::Slice { addr: 0, len: 8 },
        ];
        assert_eq!(proven_mask(&SITES[..1], &cfg, &swapped), 0);
    }

    #[test]
    fn an_overflowing_condition_proves_nothing() {
        static HUGE: [ProvableCheck; 1] = [ProvableCheck {
            any_of: &[&[LaunchTerm {
                coef: i128::MAX,
                atoms: &[LaunchAtom::Len(0), LaunchAtom::Len(0)],
            }]],
        }];
        let cfg = LaunchConfig::new((1u32, 1u32), (1u32, 1u32));
        assert_eq!(proven_mask(&HUGE, &cfg, &args(u64::MAX, 1, 1)), 0);
    }
}

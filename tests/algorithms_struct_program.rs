//! Issue 22's "done when": a program written from the rustdoc alone that sorts, scans and
//! reduces its own struct type, correct on both backends. A `#[gpu_struct] Particle`; its
//! cell extracted into a key buffer by `map!`; the particles sorted by cell with
//! `sort::sort_pairs` (stable, so equal cells keep the input order); an `operator!` over
//! `Particle` (count, the heaviest mass, the total charge) used by `scan::inclusive` and
//! `reduce::reduce`; and every result against the same computation on the CPU (the
//! device functions run on the host too).

mod common;
use common::{devices, Rng};
use warpspeed::algorithms::{map, operator, reduce, scan, sort};
use warpspeed::prelude::*;

/// A particle: 16 bytes, so `sort_pairs` moves it by its sorted position.
#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Particle {
    id: u32,
    cell: u32,
    mass: f32,
    charge: i32,
}

/// The particle's cell: the key it is sorted by.
#[gpu_device]
fn cell_of(p: Particle) -> u32 {
    p.cell
}

map! {
    /// Every particle's cell.
    pub struct CellOf = fn cell_of(p: Particle) -> u32;
}

/// Two particles' summary as one: the count in `id`, the last cell, the heaviest mass, the
/// total charge. Associative and commutative, and exact (a max and integer sums), so any
/// order of combining gives the CPU's result.
#[gpu_device]
fn merge(a: Particle, b: Particle) -> Particle {
    Particle {
        id: a.id + b.id,
        cell: a.cell.max(b.cell),
        mass: a.mass.max(b.mass),
        charge: a.charge.wrapping_add(b.charge),
    }
}

/// `merge` of one particle counts it once.
#[gpu_device]
fn counted(p: Particle) -> Particle {
    Particle {
        id: 1,
        cell: p.cell,
        mass: p.mass,
        charge: p.charge,
    }
}

map! {
    /// Each particle as a summary of itself.
    pub struct Counted = fn counted(p: Particle) -> Particle;
}

operator! {
    /// Summaries merged.
    pub struct Merge {
        elem: Particle,
        combine: merge,
        identity: Particle { id: 0, cell: 0, mass: f32::NEG_INFINITY, charge: 0 },
    }
}

#[test]
fn a_users_struct_is_sorted_scanned_and_reduced() {
    let mut rng = Rng::new(71);
    let n = 5000;
    let particles: Vec<Particle> = (0..n)
        .map(|i| Particle {
            id: i as u32,
            cell: (rng.next_u64() % 64) as u32,
            mass: rng.range_f32(0.5, 20.0),
            charge: (rng.next_u64() % 7) as i32 - 3,
        })
        .collect();
    // The CPU: a stable sort by cell, then the running merge and the total.
    let mut sorted = particles.clone();
    sorted.sort_by_key(|p| p.cell);
    let summaries: Vec<Particle> = sorted.iter().map(|&p| counted(p)).collect();
    let identity = Particle {
        id: 0,
        cell: 0,
        mass: f32::NEG_INFINITY,
        charge: 0,
    };
    let running: Vec<Particle> = summaries
        .iter()
        .scan(identity, |acc, &p| {
            *acc = merge(*acc, p);
            Some(*acc)
        })
        .collect();
    let total = summaries.iter().fold(identity, |a, &p| merge(a, p));
    assert_eq!(total.id, n as u32);

    for dev in devices("a_users_struct_is_sorted_scanned_and_reduced") {
        let mut ps = dev.upload(&particles).unwrap();
        let mut cells = dev.zeros::<u32>(n).unwrap();
        CellOf::map(&dev, &ps, &mut cells).unwrap();
        sort::sort_pairs(&dev, &mut cells, &mut ps).unwrap();
        let want_cells: Vec<u32> = sorted.iter().map(|p| p.cell).collect();
        assert_eq!(cells.download().unwrap(), want_cells, "{:?}", dev.backend());
        assert_eq!(ps.download().unwrap(), sorted, "{:?}", dev.backend());

        let mut s = dev.zeros::<Particle>(n).unwrap();
        Counted::map(&dev, &ps, &mut s).unwrap();
        let mut out = dev.upload(&vec![identity; n]).unwrap();
        scan::inclusive::<Merge>(&dev, &s, &mut out).unwrap();
        assert_eq!(out.download().unwrap(), running, "{:?}", dev.backend());
        assert_eq!(reduce::reduce::<Merge>(&dev, &s).unwrap(), total);

        // Descending, on a stream: the heaviest cell first, equal cells in input order.
        let stream = dev.create_stream().unwrap();
        let mut ps = dev.upload(&particles).unwrap();
        CellOf::map(&stream, &ps, &mut cells).unwrap();
        sort::sort_pairs_descending(&stream, &mut cells, &mut ps).unwrap();
        stream.synchronize().unwrap();
        let mut want = particles.clone();
        want.sort_by_key(|p| std::cmp::Reverse(p.cell));
        assert_eq!(ps.download().unwrap(), want, "{:?}", dev.backend());
    }
}

//! Unit tests of `store/sparse.rs`.

use super::*;

#[test]
fn high_slot_allocates_one_page() {
    let mut s = SparsePages::default();
    s.try_set(10_000_000, 3).unwrap();
    assert_eq!(s.allocated_pages(), 1);
    assert_eq!(s.get(10_000_000), 3);
    assert_eq!(s.get(10_000_001), ABSENT);
    assert_eq!(s.get(5), ABSENT);
    assert_eq!(s.iter().collect::<Vec<_>>(), vec![(10_000_000, 3)]);
}

/// `clone_from` gives the source's entries whatever pages each side had: a page on both
/// sides (overwritten), only here (dropped), only there (copied), and a longer or shorter
/// page list.
#[test]
fn clone_from_matches_the_source_for_every_page_shape() {
    let page = PAGE_LEN as u32;
    let shapes: [&[u32]; 4] = [&[], &[1, page + 2], &[2 * page + 5], &[3, 3 * page + 1]];
    for mine in shapes {
        for theirs in shapes {
            let mut here = SparsePages::new();
            for (i, &slot) in mine.iter().enumerate() {
                here.try_set(slot, 100 + i as u32).unwrap();
            }
            let mut source = SparsePages::new();
            for (i, &slot) in theirs.iter().enumerate() {
                source.try_set(slot, i as u32).unwrap();
            }
            if let Some(&first) = theirs.first() {
                source.set_dead(first, 7);
            }
            here.clone_from(&source);
            let expected: Vec<_> = source.iter().collect();
            assert_eq!(
                here.iter().collect::<Vec<_>>(),
                expected,
                "{mine:?} ← {theirs:?}"
            );
            assert_eq!(here.allocated_pages(), source.allocated_pages());
            for slot in [0, 1, 3, page + 2, 2 * page + 5, 3 * page + 1] {
                assert_eq!(here.entry(slot), source.entry(slot), "slot {slot}");
            }
        }
    }
}

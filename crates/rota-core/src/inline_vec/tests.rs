//! Unit tests of `inline_vec.rs`.

use super::InlineVec;

#[test]
fn keeps_order_across_the_spill() {
    let mut list: InlineVec<u32, 2> = InlineVec::new();
    assert!(list.is_empty());
    for i in 0..5 {
        list.push(i);
        assert_eq!(*list, (0..=i).collect::<Vec<_>>()[..]);
    }
    list[4] = 9;
    assert_eq!(*list, [0, 1, 2, 3, 9]);
}

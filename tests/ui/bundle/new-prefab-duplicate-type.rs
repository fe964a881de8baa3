#![allow(dead_code)]

use rota::{Component, Prefab};

#[derive(Component, Clone)]
struct Hp(u32);

fn main() {
    let _goblin = Prefab::new("dup", (Hp(1), Hp(2)));
}

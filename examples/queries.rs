//! Queries: tuples, `Entity`, `Option`, filters, single-entity lookups — always in ascending
//! slot order.
//!
//! Run: `cargo run --example queries`

use rota::{Component, Entity, QueryGetError, With, Without, World};

#[derive(Component, Clone, Debug)]
struct Name(&'static str);
#[derive(Component, Clone, Debug)]
struct Hp(i32);
#[derive(Component, Clone, Debug)]
struct Armor(i32);
#[derive(Component, Clone)]
struct Player;

fn main() {
    let mut world = World::new();
    let hero = world.spawn_with((Name("hero"), Hp(30), Armor(5), Player));
    world.spawn_with((Name("slime"), Hp(8)));
    let golem = world.spawn_with((Name("golem"), Hp(50), Armor(20)));

    // A read-only query is an ordinary iterator.
    let total: i32 = world.query::<&Hp>().map(|hp| hp.0).sum();
    println!("total hp: {total}");

    // `Option<&T>` matches entities with or without a T.
    for (e, name, armor) in world.query::<(Entity, &Name, Option<&Armor>)>() {
        println!("{e}: {:<6} armor {:?}", name.0, armor.map(|a| a.0));
    }

    // Filters select without fetching.
    let monsters: Vec<&str> = world
        .query_filtered::<&Name, Without<Player>>()
        .map(|n| n.0)
        .collect();
    println!("monsters: {monsters:?}");

    // Mutable queries write in place; the filter keeps the player out.
    for (hp, armor) in world.query_filtered_mut::<(&mut Hp, &Armor), Without<Player>>() {
        hp.0 -= 10 - armor.0.min(10);
    }
    for hp in world.query_filtered_mut::<&mut Hp, With<Player>>() {
        hp.0 += 1;
    }

    // One entity, with a typed reason when it does not match.
    match world.query_one::<(&Name, &Armor)>(golem) {
        Ok((name, armor)) => println!("{} has armor {}", name.0, armor.0),
        Err(e) => println!("{e}"),
    }
    world.despawn(hero).expect("alive");
    match world.query_one::<&Name>(hero) {
        Err(QueryGetError::Dead(e)) => println!("{e}"),
        other => println!("unexpected: {other:?}"),
    }
}

#![no_implicit_prelude]

#[derive(::rota::Component, ::core::clone::Clone, ::rota::Scene)]
#[scene(key = "ui.Body", retired(3))]
struct Body {
    #[scene(id = 1)]
    x: f32,
    #[scene(id = 2)]
    target: ::core::option::Option<::rota::Entity>,
    #[scene(id = 4)]
    name: ::std::string::String,
}

#[derive(::rota::Component, ::core::clone::Clone, ::rota::Scene)]
#[scene(key = "ui.Tag")]
struct Tag;

#[derive(::rota::Component, ::core::clone::Clone, ::rota::Scene)]
#[scene(key = "ui.Pair")]
struct Pair(#[scene(id = 1)] u8, #[scene(id = 2)] i64);

pub fn main() {
    let mut world = ::rota::World::new();
    let e = world.spawn();
    world.spawn_with((
        Body {
            x: 1.0,
            target: ::core::option::Option::Some(e),
            name: ::std::string::String::new(),
        },
        Tag,
        Pair(1, -2),
    ));
    let text = ::rota::scene::save::<(Body, Tag, Pair)>(&world).unwrap();
    let mut fresh = ::rota::World::new();
    let report = ::rota::scene::load::<(Body, Tag, Pair)>(&mut fresh, &text).unwrap();
    ::std::assert_eq!(report.entities.len(), 2);
}

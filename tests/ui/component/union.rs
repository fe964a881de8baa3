use rota::Component;

#[derive(Component)]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}

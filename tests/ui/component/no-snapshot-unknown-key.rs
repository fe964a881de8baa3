use rota::Component;

#[derive(Component, Clone)]
#[component(no_snapshot, skip_checksum)]
struct Position(f32);

fn main() {}

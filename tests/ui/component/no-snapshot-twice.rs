use rota::Resource;

#[derive(Resource, Clone)]
#[resource(no_snapshot)]
#[resource(no_snapshot)]
struct Gravity(f32);

fn main() {}

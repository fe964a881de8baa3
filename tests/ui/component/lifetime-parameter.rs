use rota::Component;

#[derive(Component)]
struct Name<'a> {
    text: &'a str,
}

fn main() {}

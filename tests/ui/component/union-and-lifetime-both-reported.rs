use rota::Component;

#[derive(Component)]
union Raw<'a> {
    ptr: &'a u8,
    word: usize,
}

fn main() {}

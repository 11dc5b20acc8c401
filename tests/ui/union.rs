use poolable::Reset;

#[derive(Reset)]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}

use poolable::Poolable;

#[derive(Poolable, Default)]
#[poolable(max_retained = "64")]
#[poolable(skip)]
struct Request {
    #[poolable(skipp)]
    body: String,
    #[poolable(default, with = reset_count)]
    count: u32,
}

fn reset_count(count: &mut u32) {
    *count = 0;
}

fn main() {}

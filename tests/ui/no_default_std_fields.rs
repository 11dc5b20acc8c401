use poolable::Poolable;

// Fields of std types only: the derive writes no checks (see
// `is_std_only`), and the missing `Default` is reported at the derive.
#[derive(Poolable)]
struct Request {
    body: String,
}

fn main() {}

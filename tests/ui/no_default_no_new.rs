use poolable::Poolable;

#[derive(Poolable)]
struct Request {
    body: String,
    // A field the derive checks (not a std type by its spelling), so the
    // missing `Default` is checked with it, at the struct's name.
    timeout: std::time::Duration,
}

fn main() {}

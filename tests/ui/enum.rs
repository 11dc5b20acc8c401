use poolable::Poolable;

#[derive(Poolable)]
enum Message {
    Ping,
    Body(String),
}

fn main() {}

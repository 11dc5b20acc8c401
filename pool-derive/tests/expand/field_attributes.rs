//! Each field attribute.
use poolable::Poolable;

fn reset_to_seven(n: &mut u32) {
    *n = 7;
}

fn is_seven(n: &u32) -> bool {
    *n == 7
}

fn measure(table: &Table) -> usize {
    table.bytes()
}

#[derive(Poolable, Default)]
pub struct Fields {
    #[poolable(skip)]
    pub created: std::time::Instant,
    #[poolable(default)]
    pub state: State,
    #[poolable(with = reset_to_seven, check = is_seven)]
    pub seven: u32,
    #[poolable(max_capacity = 1024)]
    pub body: Vec<u8>,
    #[poolable(zeroize)]
    pub token: Vec<u8>,
    #[poolable(heap_bytes = measure, with = Table::clear)]
    pub table: Table,
}

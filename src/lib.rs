//! # poolable
//!
//! Object pooling that is safe by construction.
//!
//! ```
//! use poolable::Poolable;
//!
//! #[derive(Poolable, Default)]
//! struct Request {
//!     user: String,
//!     secret: Option<String>,
//!     body: Vec<u8>,
//! }
//!
//! let mut req = Request::pool().get();
//! req.user.push_str("ada");
//! req.secret = Some("hunter2".into());
//! drop(req); // reset field by field, capacity kept, returned to the pool
//!
//! let req = Request::pool().get();
//! assert_eq!(req.user, "");
//! assert_eq!(req.secret, None);
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use pool_derive::{Poolable, Reset};
pub use pool_runtime::*;

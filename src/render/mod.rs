//! Rendering public representations: rendered once per change and served from memory.

pub mod data;
pub mod markdown;
pub mod representation;

pub use data::PageData;
pub use representation::{CachePolicy, Representation};

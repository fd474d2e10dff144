//! Rendering public representations: rendered once per change and served from memory.

pub mod representation;

pub use representation::{CachePolicy, Representation};

//! Row structs and query functions, one file per table family.

pub mod users;

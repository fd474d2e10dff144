//! Row structs and query functions, one file per table family.

pub mod components;
pub mod incidents;
pub mod pages;
pub mod postmortems;
pub mod public;
pub mod seed;
pub mod users;

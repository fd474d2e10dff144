//! Row structs and query functions, one file per table family.

pub mod access;
pub mod audit;
pub mod components;
pub mod deadlines;
pub mod idempotency;
pub mod images;
pub mod imports;
pub mod incidents;
pub mod integrations;
pub mod mirrors;
pub mod notify;
pub mod page_admin;
pub mod page_webhooks;
pub mod pages;
pub mod postmortems;
pub mod public;
pub mod retention;
pub mod second_factors;
pub mod seed;
pub mod support;
pub mod templates;
pub mod tokens;
pub mod users;

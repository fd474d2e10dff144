//! Use cases as plain synchronous functions on a connection. They own their transactions and
//! enqueue jobs in the same transaction as the write.

pub mod access;
pub mod alerts;
pub mod audit;
pub mod auth;
pub mod brand;
pub mod components;
pub mod deadlines;
pub mod deliveries;
pub mod demo;
pub mod idempotency;
pub mod imports;
pub mod incidents;
pub mod integrations;
pub mod maintenance;
pub mod mirrors;
pub mod outbox;
pub mod page_admin;
pub mod page_webhooks;
pub mod pages;
pub mod postmortems;
pub mod public;
pub mod retention;
pub mod signing_key;
pub mod subscribers;
pub mod templates;
pub mod users;
pub mod write;

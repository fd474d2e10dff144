//! Integration tests: the real application over HTTP, on SQLite and on PostgreSQL (the server
//! `HERALD_TEST_POSTGRES_URL` names, or a throwaway cluster the suite starts: `pg_server`), each
//! test with a fresh database.

// Tests unwrap and expect (a panic is a failed assertion) and may print what they measured.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

#[macro_use]
mod helpers;
mod hung_db;
mod pg_server;

mod alerts;
mod api_v1;
mod auth;
pub(crate) mod backup;
mod branding;
mod browser;
mod cli;
mod console;
mod cost;
mod data_requests;
mod deadlines;
mod delivery;
mod deploy;
mod embed;
mod error_pages;
mod health;
mod held;
mod imports;
mod jobs;
mod languages;
mod lifecycle;
mod logs;
mod maintenance;
mod many_pages;
mod migrations;
mod mirrors;
mod model;
mod notify;
mod pool;
mod process;
mod public;
mod retention;
mod schemathesis;
mod second_factor;
mod statuspage_v1;
mod subscriber_imports;
mod support;
mod support_notices;
mod visibility;
mod write;

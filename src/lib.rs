//! Herald: a self-hosted status page and incident communications platform.
//!
//! Data flows one way: `http` -> `services` -> `domain` | `db` | `jobs`.

pub mod access;
pub mod allocator;
pub mod auth;
pub mod cli;
pub mod config;
pub mod cpu_pool;
pub mod db;
pub mod delivery;
pub mod domain;
pub mod error;
pub mod http;
pub mod importer;
pub mod jobs;
pub mod lifecycle;
pub mod notify;
pub mod passes;
pub mod render;
pub mod secret;
pub mod services;
pub mod startup;
pub mod state;
pub mod support;
pub mod telemetry;

//! Herald: a self-hosted status page and incident communications platform.
//!
//! Data flows one way: `http` -> `services` -> `domain` | `db` | `jobs`.

pub mod backup;
pub mod cli;
pub mod config;
pub mod db;
pub mod delivery;
pub mod domain;
pub mod error;
pub mod http;
pub mod jobs;
pub mod limits;
pub mod notify;
pub mod render;
pub mod runtime;
pub mod services;
pub mod startup;
pub mod state;
pub mod support;
pub mod telemetry;
pub mod workers;

//! Background work: a durable queue in the database (a write and its job commit together) and a
//! runner that claims jobs with a lease, runs them with bounded concurrency, retries with
//! backoff, dead-letters after the last attempt, and hands back what it holds at shutdown.

pub mod maintenance;
pub mod mirrors;
pub mod queue;
pub mod runner;

pub use queue::{Backoff, JobRow, NewJob, enqueue};
pub use runner::{JobContext, Registry, RunnerConfig};

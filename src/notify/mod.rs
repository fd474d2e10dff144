//! The notification fan-out worker: the durable engine that expands the outbox's events
//! ([`crate::services::outbox`]) into delivery rows and sends them through
//! [`crate::delivery`], per-destination lanes, the messages and their content, and reminders.
//! Subscribing is a use case ([`crate::services::subscribers`]).

pub mod clock;
pub mod content;
pub mod engine;
pub mod lanes;
pub mod message;
pub mod reminders;

pub use clock::EngineClock;
pub use engine::{EngineConfig, NotifyHandle};

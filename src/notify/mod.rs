//! Subscribers and the notification fan-out: subscribing (double opt-in for email, signed
//! webhooks), events written with the changes that cause them, and the durable engine that
//! expands events into delivery rows and sends them through [`crate::delivery`].

pub mod clock;
pub mod content;
pub mod engine;
pub mod events;
pub mod lanes;
pub mod limits;
pub mod message;
pub mod reminders;
pub mod subscribe;
pub mod token;

pub use clock::EngineClock;
pub use engine::{EngineConfig, NotifyHandle};

//! How much one client may ask: who the client is (`client`: its address, or its /64 for IPv6,
//! behind trusted proxies only), the bounded keyed rate limiter every limit is built on
//! (`bounded`), and the limits themselves: sign-in and readers' passwords (`sign_in`),
//! subscribing (`subscribe`). The support form's limit is its own (`support::Support`), on
//! the same limiter.

pub mod bounded;
pub mod client;
pub mod sign_in;
pub mod subscribe;

pub use bounded::BoundedLimiter;
pub use client::{ClientNet, client_ip, client_net};

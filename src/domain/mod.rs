//! Herald's domain: plain types and rules with no web framework or database in sight.
//!
//! Statuses and their vocabularies, the page status rollup, the incident and maintenance state
//! machines, "next update by" deadlines, human references, and parsed inputs (slugs, email
//! addresses, time zones, passwords, postmortem parts). Everything here is synchronous, pure and
//! unit-tested next to the code.

pub mod access;
pub mod alerts;
pub mod backoff;
pub mod brand;
pub mod deadline;
pub mod email;
pub mod embed;
pub mod hostname;
pub mod ids;
pub mod image;
pub mod imports;
pub mod lang;
pub mod maintenance_plan;
pub mod markdown;
pub mod metadata;
pub mod naming;
pub mod password;
pub mod postmortem;
pub mod punctuality;
pub mod reach;
pub mod reference;
pub mod rollup;
pub mod second_factor;
pub mod slug;
pub mod status;
pub mod timezone;
pub mod transitions;
pub mod translation;
pub mod uptime;
pub mod vendor;
pub mod waiting;

pub use deadline::*;
pub use email::*;
pub use ids::*;
pub use naming::*;
pub use password::*;
pub use postmortem::*;
pub use punctuality::*;
pub use reach::*;
pub use reference::*;
pub use rollup::*;
pub use slug::*;
pub use status::*;
pub use timezone::*;
pub use transitions::*;
pub use uptime::*;

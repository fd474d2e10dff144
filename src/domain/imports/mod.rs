//! What an import reads: a Statuspage page's public documents and how their words map to
//! Herald's (`statuspage`), and a subscriber file read into rows (`subscriber_csv`:
//! Statuspage's import template, or any headed export).

pub mod statuspage;
pub mod subscriber_csv;

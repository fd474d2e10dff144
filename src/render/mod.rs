//! Rendering public representations: rendered once per change and served from memory.

pub mod api_v2;
pub mod assets;
pub mod badge;
pub mod change;
pub mod embed;
pub mod feeds;
pub mod html;
pub mod i18n;
pub mod mail;
pub mod on_demand;
pub mod refresh;
pub mod representation;
pub mod site;

pub use representation::{CachePolicy, Representation};

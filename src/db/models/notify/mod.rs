//! Subscribers, notification events and their deliveries (`subscribers`,
//! `subscriber_components`, `notification_events`, `notification_event_components`,
//! `deliveries`).
//!
//! A delivery's id is made from its unique key (`{event}.{subscriber}.{channel}`), so expanding
//! an event twice inserts nothing new and a resend after a crash carries the same id.

mod delivery_queries;
mod event_queries;
mod subscriber_queries;

pub use delivery_queries::*;
pub use event_queries::*;
pub use subscriber_queries::*;

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Nullable, Text, Timestamp};

use crate::db::schema::{
    deliveries, notification_event_components, notification_events, subscriber_components,
    subscribers,
};
use crate::db::states::{Channel, DeliveryState, SubscriberState};
use crate::db::{DbConn, write_tx};
use crate::domain::{ComponentId, IncidentId, PageId, SubscriberId};

/// A subscriber as stored.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = subscribers)]
pub struct Subscriber {
    pub id: SubscriberId,
    pub page_id: PageId,
    pub kind: Channel,
    pub email: Option<String>,
    pub url: Option<String>,
    /// Webhooks: where failure notices go.
    pub contact_email: Option<String>,
    /// Webhooks: the `whsec_` signing secret.
    pub secret: Option<String>,
    /// `false` when the subscriber chose components (`subscriber_components`).
    pub whole_page: bool,
    /// Whether component status changes are sent too.
    pub component_updates: bool,
    pub state: SubscriberState,
    pub confirmed_at: Option<NaiveDateTime>,
    pub consecutive_failures: i32,
    pub first_failure_at: Option<NaiveDateTime>,
    /// Part of every manage/unsubscribe link; replacing it revokes the old links.
    pub manage_token_id: String,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
    /// The language its mails are written in; the page's default when `None`.
    pub language: Option<crate::domain::lang::Lang>,
}

/// A notification event as stored.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = notification_events)]
pub struct NotificationEvent {
    pub id: String,
    pub page_id: PageId,
    /// `incident.opened`, `incident.updated`, ..., or a notice to one subscriber
    /// (`subscriber.confirmation`, `subscriber.quarantined`).
    pub kind: String,
    pub incident_id: Option<IncidentId>,
    pub update_id: Option<String>,
    pub component_id: Option<ComponentId>,
    /// Set for a notice to one subscriber.
    pub subscriber_id: Option<SubscriberId>,
    pub impact: Option<String>,
    pub created_at: NaiveDateTime,
    pub expanded_at: Option<NaiveDateTime>,
}

/// A delivery of one event to one subscriber on one channel.
#[derive(Debug, Clone, PartialEq, Queryable, QueryableByName, Selectable)]
#[diesel(table_name = deliveries)]
pub struct Delivery {
    pub id: String,
    pub event_id: String,
    pub subscriber_id: SubscriberId,
    pub page_id: PageId,
    pub channel: Channel,
    pub state: DeliveryState,
    pub attempts: i32,
    pub next_attempt_at: NaiveDateTime,
    pub last_error: Option<String>,
    pub locked_by: Option<String>,
    pub locked_until: Option<NaiveDateTime>,
    pub delivered_at: Option<NaiveDateTime>,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
    /// What it waits for when it was last put off without an attempt
    /// ([`crate::domain::waiting::Waiting::as_str`]); `None` once attempted.
    pub waiting_for: Option<String>,
}

/// What the engine needs of a claimed delivery (no timestamps: they are not read, and parsing
/// them is a good part of a claim's cost).
#[derive(Debug, Clone, PartialEq, QueryableByName)]
#[diesel(table_name = deliveries)]
pub struct ClaimedDelivery {
    pub id: String,
    pub event_id: String,
    pub subscriber_id: SubscriberId,
    pub channel: Channel,
    pub attempts: i32,
    pub last_error: Option<String>,
}

//! A subscriber's data on request (the GDPR's rights of access and erasure): everything Herald
//! holds about an address, across pages, and forgetting it. Forgetting removes the address's
//! subscriptions (with their deliveries), clears the sender of its support submissions, and
//! replaces every other mention of it, in any table, with `[forgotten]`; an account of the
//! same address is not a subscriber's data and stays (as does the audit log's record of what
//! that account did).

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::list::SubscriberView;
use crate::db::models::notify::{self as rows, Delivery};
use crate::db::models::{pages, support};
use crate::db::states::Channel;
use crate::db::states::DeliveryState;
use crate::db::{DbConn, archive, read_snapshot, write_tx};
use crate::domain::{EmailAddress, PageId};
use crate::error::{AppError, AppResult};

/// The columns that keep the address when it is forgotten: an account's own, and who did what
/// in the audit log.
const KEPT: &[(&str, &str)] = &[("users", "email"), ("audit_log", "actor_email")];

/// Everything Herald holds about one address.
#[derive(Debug, Clone, Serialize)]
pub struct Held {
    pub email: String,
    pub subscriptions: Vec<HeldSubscription>,
    pub support_submissions: Vec<HeldSubmission>,
}

/// A subscription of the address, on one page, with what was sent to it.
#[derive(Debug, Clone, Serialize)]
pub struct HeldSubscription {
    pub page: String,
    #[serde(flatten)]
    pub subscriber: SubscriberView,
    pub deliveries: Vec<HeldDelivery>,
}

/// One notification sent, or being sent, to a subscription.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HeldDelivery {
    pub id: String,
    pub channel: Channel,
    pub state: DeliveryState,
    pub attempts: i32,
    pub created_at: DateTime<Utc>,
    pub delivered_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
}

/// A message the address sent through a page's support form.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HeldSubmission {
    pub page: String,
    pub reference: String,
    pub name: String,
    pub topic: String,
    pub account: Option<String>,
    pub message: String,
    pub status: String,
    pub client_ip: Option<String>,
    pub submitted_at: DateTime<Utc>,
    pub handled_at: Option<DateTime<Utc>>,
}

/// What forgetting an address removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Forgotten {
    /// Subscriptions deleted (their deliveries with them).
    pub subscriptions: usize,
    /// Support submissions whose sender was cleared.
    pub support_submissions: usize,
    /// Other rows in which a mention of the address was replaced, by table.
    pub mentions: Vec<(String, usize)>,
}

/// The address as given, checked: a 422 on `email` when it is not one.
pub fn address(given: &str) -> AppResult<EmailAddress> {
    EmailAddress::parse(given).map_err(|e| AppError::field("email", e.to_string()))
}

/// Everything held about `email`, read in one snapshot.
pub fn export(conn: &mut DbConn, email: &EmailAddress) -> AppResult<Held> {
    read_snapshot(conn, |c| {
        let mut slugs = Slugs::default();
        let mut subscriptions = Vec::new();
        for s in rows::by_address(c, email.as_str())? {
            let components = rows::components_of(c, &s.id)?;
            let deliveries = rows::deliveries_of(c, &s.id)?;
            subscriptions.push(HeldSubscription {
                page: slugs.of(c, &s.page_id)?,
                subscriber: SubscriberView::new(&s, components),
                deliveries: deliveries.iter().map(held_delivery).collect(),
            });
        }
        let mut support_submissions = Vec::new();
        for s in support::by_email(c, email.as_str())? {
            support_submissions.push(HeldSubmission {
                page: slugs.of(c, &PageId::from(s.page_id.as_str()))?,
                reference: s.reference,
                name: s.name,
                topic: s.topic,
                account: s.account,
                message: s.message,
                status: s.status,
                client_ip: s.client_ip,
                submitted_at: s.submitted_at.and_utc(),
                handled_at: s.handled_at.map(|at| at.and_utc()),
            });
        }
        Ok(Held {
            email: email.as_str().to_owned(),
            subscriptions,
            support_submissions,
        })
    })
}

fn held_delivery(d: &Delivery) -> HeldDelivery {
    HeldDelivery {
        id: d.id.clone(),
        channel: d.channel,
        state: d.state,
        attempts: d.attempts,
        created_at: d.created_at.and_utc(),
        delivered_at: d.delivered_at.map(|at| at.and_utc()),
        last_error: d.last_error.clone(),
    }
}

/// Forgets `email`, in one transaction (the caller's, when it has one: its audit row goes
/// with it and names no address).
pub fn forget(conn: &mut DbConn, email: &EmailAddress, at: DateTime<Utc>) -> AppResult<Forgotten> {
    write_tx(conn, |c| {
        let subscriptions = rows::by_address(c, email.as_str())?;
        for s in &subscriptions {
            rows::delete_subscriber(c, &s.page_id, &s.id)?;
        }
        let at = crate::services::pages::row_time(at);
        let support_submissions = support::forget_sender(c, email.as_str(), at)?;
        let mentions = archive::scrub(c, email.as_str(), KEPT).map_err(anyhow::Error::from)?;
        Ok(Forgotten {
            subscriptions: subscriptions.len(),
            support_submissions,
            mentions,
        })
    })
}

/// Page slugs by id, each read once.
#[derive(Default)]
struct Slugs(HashMap<PageId, String>);

impl Slugs {
    fn of(&mut self, conn: &mut DbConn, id: &PageId) -> AppResult<String> {
        if let Some(slug) = self.0.get(id) {
            return Ok(slug.clone());
        }
        let slug = pages::find(conn, id)?.slug;
        self.0.insert(id.clone(), slug.clone());
        Ok(slug)
    }
}

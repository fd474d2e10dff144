//! Subscribers, notification events and their deliveries (`subscribers`,
//! `subscriber_components`, `notification_events`, `notification_event_components`,
//! `deliveries`).
//!
//! A delivery's id is made from its unique key (`{event}.{subscriber}.{channel}`), so expanding
//! an event twice inserts nothing new and a resend after a crash carries the same id.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Nullable, Text, Timestamp};

use crate::db::schema::{
    deliveries, notification_event_components, notification_events, subscriber_components,
    subscribers,
};
use crate::db::states::{Channel, DeliveryState, SubscriberState};
use crate::db::{DbConn, write_tx};

/// A subscriber as stored.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = subscribers)]
pub struct Subscriber {
    pub id: String,
    pub page_id: String,
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
}

/// A notification event as stored.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = notification_events)]
pub struct NotificationEvent {
    pub id: String,
    pub page_id: String,
    /// `incident.opened`, `incident.updated`, ..., or a notice to one subscriber
    /// (`subscriber.confirmation`, `subscriber.quarantined`).
    pub kind: String,
    pub incident_id: Option<String>,
    pub update_id: Option<String>,
    pub component_id: Option<String>,
    /// Set for a notice to one subscriber.
    pub subscriber_id: Option<String>,
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
    pub subscriber_id: String,
    pub page_id: String,
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
    /// ([`crate::delivery::Waiting::as_str`]); `None` once attempted.
    pub waiting_for: Option<String>,
}

/// What the engine needs of a claimed delivery (no timestamps: they are not read, and parsing
/// them is a good part of a claim's cost).
#[derive(Debug, Clone, PartialEq, QueryableByName)]
#[diesel(table_name = deliveries)]
pub struct ClaimedDelivery {
    pub id: String,
    pub event_id: String,
    pub subscriber_id: String,
    pub channel: Channel,
    pub attempts: i32,
    pub last_error: Option<String>,
}

// --- subscribers ---

/// Adds a subscriber and its chosen components.
pub fn insert_subscriber(
    conn: &mut DbConn,
    subscriber: &Subscriber,
    components: &[String],
) -> QueryResult<()> {
    diesel::insert_into(subscribers::table)
        .values(subscriber)
        .execute(conn)?;
    set_components(conn, &subscriber.id, components)
}

/// Replaces a subscriber's chosen components.
pub fn set_components(conn: &mut DbConn, id: &str, components: &[String]) -> QueryResult<()> {
    diesel::delete(
        subscriber_components::table.filter(subscriber_components::subscriber_id.eq(id)),
    )
    .execute(conn)?;
    for component in components {
        diesel::insert_into(subscriber_components::table)
            .values((
                subscriber_components::subscriber_id.eq(id),
                subscriber_components::component_id.eq(component),
            ))
            .execute(conn)?;
    }
    Ok(())
}

/// The components a subscriber chose.
pub fn components_of(conn: &mut DbConn, id: &str) -> QueryResult<Vec<String>> {
    subscriber_components::table
        .filter(subscriber_components::subscriber_id.eq(id))
        .select(subscriber_components::component_id)
        .order(subscriber_components::component_id)
        .load(conn)
}

/// A subscriber by id.
pub fn find_subscriber(conn: &mut DbConn, id: &str) -> QueryResult<Option<Subscriber>> {
    subscribers::table
        .find(id)
        .select(Subscriber::as_select())
        .first(conn)
        .optional()
}

/// What sending to a subscriber needs: where, how, and whether it still should (the engine
/// loads a batch's recipients this way, without the timestamps it does not read).
#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = subscribers)]
pub struct Addressee {
    pub id: String,
    pub kind: Channel,
    pub email: Option<String>,
    pub url: Option<String>,
    pub contact_email: Option<String>,
    pub secret: Option<String>,
    pub state: SubscriberState,
    pub consecutive_failures: i32,
    pub manage_token_id: String,
}

/// Subscribers by id, as addressees (the engine loads a batch's recipients at once).
pub fn addressees_by_ids(conn: &mut DbConn, ids: &[String]) -> QueryResult<Vec<Addressee>> {
    subscribers::table
        .filter(subscribers::id.eq_any(ids))
        .select(Addressee::as_select())
        .load(conn)
}

/// The email subscriber of a page with this address, whatever its state.
pub fn find_by_email(
    conn: &mut DbConn,
    page_id: &str,
    email: &str,
) -> QueryResult<Option<Subscriber>> {
    subscribers::table
        .filter(subscribers::page_id.eq(page_id))
        .filter(subscribers::email.eq(email))
        .select(Subscriber::as_select())
        .first(conn)
        .optional()
}

/// A page's subscribers (unsubscribed ones excluded), oldest first.
pub fn list_subscribers(conn: &mut DbConn, page_id: &str) -> QueryResult<Vec<Subscriber>> {
    subscribers::table
        .filter(subscribers::page_id.eq(page_id))
        .filter(subscribers::state.ne(SubscriberState::Unsubscribed))
        .order((subscribers::created_at, subscribers::id))
        .select(Subscriber::as_select())
        .load(conn)
}

/// Every chosen component of a page's subscribers: (subscriber id, component id).
pub fn page_subscriber_components(
    conn: &mut DbConn,
    page_id: &str,
) -> QueryResult<Vec<(String, String)>> {
    subscriber_components::table
        .inner_join(subscribers::table)
        .filter(subscribers::page_id.eq(page_id))
        .select((
            subscriber_components::subscriber_id,
            subscriber_components::component_id,
        ))
        .load(conn)
}

/// Replaces a subscriber's manage token id: every link made with the old one stops working.
pub fn rotate_manage_token(
    conn: &mut DbConn,
    id: &str,
    token_id: &str,
    at: NaiveDateTime,
) -> QueryResult<usize> {
    diesel::update(subscribers::table.find(id))
        .set((
            subscribers::manage_token_id.eq(token_id),
            subscribers::updated_at.eq(at),
        ))
        .execute(conn)
}

/// Moves a subscriber to `state`; confirming also sets `confirmed_at` and clears its failures.
pub fn set_state(
    conn: &mut DbConn,
    id: &str,
    state: SubscriberState,
    at: NaiveDateTime,
) -> QueryResult<usize> {
    let target = subscribers::table.find(id);
    if state == SubscriberState::Confirmed {
        diesel::update(target)
            .set((
                subscribers::state.eq(state),
                subscribers::confirmed_at.eq(Some(at)),
                subscribers::consecutive_failures.eq(0),
                subscribers::first_failure_at.eq(None::<NaiveDateTime>),
                subscribers::updated_at.eq(at),
            ))
            .execute(conn)
    } else {
        diesel::update(target)
            .set((subscribers::state.eq(state), subscribers::updated_at.eq(at)))
            .execute(conn)
    }
}

/// Changes the subscription options of an existing subscriber.
pub fn set_options(
    conn: &mut DbConn,
    id: &str,
    whole_page: bool,
    component_updates: bool,
    at: NaiveDateTime,
) -> QueryResult<usize> {
    diesel::update(subscribers::table.find(id))
        .set((
            subscribers::whole_page.eq(whole_page),
            subscribers::component_updates.eq(component_updates),
            subscribers::updated_at.eq(at),
        ))
        .execute(conn)
}

/// Deletes a subscriber of a page; answers whether one was deleted.
pub fn delete_subscriber(conn: &mut DbConn, page_id: &str, id: &str) -> QueryResult<bool> {
    let deleted = diesel::delete(
        subscribers::table
            .filter(subscribers::id.eq(id))
            .filter(subscribers::page_id.eq(page_id)),
    )
    .execute(conn)?;
    Ok(deleted > 0)
}

/// Clears the failure counters of subscribers that just received something.
pub fn reset_failures(conn: &mut DbConn, ids: &[String]) -> QueryResult<usize> {
    diesel::update(
        subscribers::table
            .filter(subscribers::id.eq_any(ids))
            .filter(subscribers::consecutive_failures.gt(0)),
    )
    .set((
        subscribers::consecutive_failures.eq(0),
        subscribers::first_failure_at.eq(None::<NaiveDateTime>),
    ))
    .execute(conn)
}

/// Counts one more failed attempt; answers the subscriber as it now is.
pub fn count_failure(
    conn: &mut DbConn,
    id: &str,
    at: NaiveDateTime,
) -> QueryResult<Option<Subscriber>> {
    diesel::update(subscribers::table.find(id))
        .set(subscribers::consecutive_failures.eq(subscribers::consecutive_failures + 1))
        .execute(conn)?;
    diesel::update(
        subscribers::table
            .find(id)
            .filter(subscribers::first_failure_at.is_null()),
    )
    .set(subscribers::first_failure_at.eq(Some(at)))
    .execute(conn)?;
    find_subscriber(conn, id)
}

// --- events ---

/// Records an event and the components it concerns, in the caller's transaction.
pub fn insert_event(
    conn: &mut DbConn,
    event: &NotificationEvent,
    components: &[String],
) -> QueryResult<()> {
    diesel::insert_into(notification_events::table)
        .values(event)
        .execute(conn)?;
    let mut seen = std::collections::BTreeSet::new();
    for component in components.iter().filter(|c| seen.insert(c.as_str())) {
        diesel::insert_into(notification_event_components::table)
            .values((
                notification_event_components::event_id.eq(&event.id),
                notification_event_components::component_id.eq(component),
            ))
            .execute(conn)?;
    }
    Ok(())
}

/// An event by id.
pub fn find_event(conn: &mut DbConn, id: &str) -> QueryResult<Option<NotificationEvent>> {
    notification_events::table
        .find(id)
        .select(NotificationEvent::as_select())
        .first(conn)
        .optional()
}

/// The first event of an incident (every later email of the incident threads under it).
pub fn first_incident_event(conn: &mut DbConn, incident_id: &str) -> QueryResult<Option<String>> {
    notification_events::table
        .filter(notification_events::incident_id.eq(incident_id))
        .filter(notification_events::subscriber_id.is_null())
        .order((notification_events::created_at, notification_events::id))
        .select(notification_events::id)
        .first(conn)
        .optional()
}

/// Events not yet expanded into deliveries, oldest first.
pub fn unexpanded_events(conn: &mut DbConn, limit: i64) -> QueryResult<Vec<NotificationEvent>> {
    notification_events::table
        .filter(notification_events::expanded_at.is_null())
        .order((notification_events::created_at, notification_events::id))
        .limit(limit)
        .select(NotificationEvent::as_select())
        .load(conn)
}

/// How an event selects its recipients.
#[derive(Debug, Clone, Copy)]
pub struct Audience {
    /// Every confirmed subscriber of the page, whatever their component filter.
    pub everyone: bool,
    /// Only subscribers who asked for component status changes.
    pub component_updates_only: bool,
}

/// Deliveries an expansion step leases to the expanding worker as it writes them, as a claim
/// would, so the engine starts them at once instead of claiming them in a second statement
/// that rewrites every row. The rest of the chunk is written due, for any process to claim.
#[derive(Debug, Clone, Copy)]
pub struct Lease<'a> {
    pub worker: &'a str,
    pub until: NaiveDateTime,
    /// Webhook deliveries leased at most (the first of the chunk in subscriber id order).
    pub webhooks: i64,
    /// Email deliveries leased at most.
    pub emails: i64,
}

/// What one expansion step did.
#[derive(Debug, Clone, PartialEq)]
pub struct Expanded {
    /// Delivery rows inserted.
    pub inserted: usize,
    /// Whether the event is now wholly expanded.
    pub done: bool,
    /// The rows inserted leased to the worker (see [`Lease`]).
    pub leased: Vec<ClaimedDelivery>,
}

/// Expands the next chunk of an event (up to `chunk` subscribers, in subscriber id order, after
/// those already expanded) into delivery rows, in one transaction with the event's progress;
/// marks the event expanded when no subscriber is left. Rows that already exist are left alone,
/// so repeating a step is harmless; two processes expanding one event take turns (the event's
/// row is locked). With a `lease`, the first rows of the chunk are leased to its worker and
/// answered (a notice to one subscriber is written due, as without).
pub fn expand_event(
    conn: &mut DbConn,
    event: &NotificationEvent,
    audience: Audience,
    at: NaiveDateTime,
    chunk: i64,
    lease: Option<Lease<'_>>,
) -> QueryResult<Expanded> {
    let lock = match conn {
        DbConn::Postgres(_) => " FOR UPDATE",
        DbConn::Sqlite(_) => "",
    };
    write_tx(conn, |c| {
        #[derive(QueryableByName)]
        struct Progress {
            #[diesel(sql_type = Nullable<Timestamp>)]
            expanded_at: Option<NaiveDateTime>,
            #[diesel(sql_type = Nullable<Text>)]
            expanded_through: Option<String>,
        }
        let progress = diesel::sql_query(format!(
            "SELECT expanded_at, expanded_through FROM notification_events WHERE id = $1{lock}"
        ))
        .bind::<Text, _>(&event.id)
        .get_result::<Progress>(c)
        .optional()?;
        let Some(progress) = progress.filter(|p| p.expanded_at.is_none()) else {
            return Ok(Expanded {
                inserted: 0,
                done: true,
                leased: Vec::new(),
            });
        };
        let finish = |c: &mut DbConn| {
            diesel::update(notification_events::table.find(&event.id))
                .set(notification_events::expanded_at.eq(Some(at)))
                .execute(c)
        };
        if let Some(subscriber_id) = &event.subscriber_id {
            // A notice to one subscriber (confirmation, quarantine) always goes by email.
            let inserted = diesel::sql_query(format!(
                "INSERT INTO deliveries (id, event_id, subscriber_id, page_id, channel, state, \
                 attempts, next_attempt_at, created_at, updated_at) \
                 SELECT $1 || '.' || s.id || '.email', $1, s.id, s.page_id, 'email', '{pending}', \
                 0, $2, $2, $2 FROM subscribers s WHERE s.id = $3 \
                 ON CONFLICT DO NOTHING",
                pending = DeliveryState::Pending.as_str(),
            ))
            .bind::<Text, _>(&event.id)
            .bind::<Timestamp, _>(at)
            .bind::<Text, _>(subscriber_id)
            .execute(c)?;
            finish(c)?;
            return Ok(Expanded {
                inserted,
                done: true,
                leased: Vec::new(),
            });
        }
        // The chunk: the next `chunk` confirmed subscribers of the page after the last one
        // expanded (an index range of subscribers_page_state).
        let after = progress.expanded_through.unwrap_or_default();
        #[derive(QueryableByName)]
        struct Upto {
            #[diesel(sql_type = Nullable<Text>)]
            upto: Option<String>,
        }
        let upto = diesel::sql_query(format!(
            "SELECT MAX(id) AS upto FROM (SELECT s.id FROM subscribers s \
             WHERE s.page_id = $1 AND s.state = '{confirmed}' AND s.id > $2 \
             ORDER BY s.id LIMIT $3) chunk",
            confirmed = SubscriberState::Confirmed.as_str(),
        ))
        .bind::<Text, _>(&event.page_id)
        .bind::<Text, _>(&after)
        .bind::<BigInt, _>(chunk.max(1))
        .get_result::<Upto>(c)?
        .upto;
        let Some(upto) = upto else {
            finish(c)?;
            return Ok(Expanded {
                inserted: 0,
                done: true,
                leased: Vec::new(),
            });
        };
        // Each subscriber of the chunk the filters select, numbered per channel in id order:
        // the first ones of each channel, up to the lease's room, are leased (their next
        // attempt is the lease's end, as a claim writes it), the others are due now.
        let (worker, until, webhooks, emails) = match lease {
            Some(l) => (l.worker, l.until, l.webhooks.max(0), l.emails.max(0)),
            None => ("", at, 0, 0),
        };
        let returning = webhooks > 0 || emails > 0;
        // Parameters are numbered in the order they first appear: SQLite takes `$n` for a
        // name, numbered by first appearance, and diesel binds by position.
        let sql = format!(
            "INSERT INTO deliveries (id, event_id, subscriber_id, page_id, channel, state, \
             attempts, next_attempt_at, locked_by, locked_until, created_at, updated_at) \
             SELECT $1 || '.' || r.id || '.' || r.kind, $1, r.id, r.page_id, r.kind, '{pending}', \
             0, CASE WHEN r.leased THEN $2 ELSE $3 END, CASE WHEN r.leased THEN $4 END, \
             CASE WHEN r.leased THEN $2 END, $3, $3 \
             FROM (SELECT s.id, s.page_id, s.kind, \
               ROW_NUMBER() OVER (PARTITION BY s.kind ORDER BY s.id) \
                 <= CASE WHEN s.kind = 'webhook' THEN $5 ELSE $6 END AS leased \
               FROM subscribers s \
               WHERE s.page_id = $7 AND s.state = '{confirmed}' \
               AND ($8 = FALSE OR s.component_updates = TRUE) \
               AND ($9 = TRUE OR s.whole_page = TRUE OR EXISTS ( \
                 SELECT 1 FROM subscriber_components sc \
                 JOIN notification_event_components ec ON ec.component_id = sc.component_id \
                 WHERE sc.subscriber_id = s.id AND ec.event_id = $1)) \
               AND s.id > $10 AND s.id <= $11) r \
             WHERE TRUE \
             ON CONFLICT DO NOTHING{returning}",
            pending = DeliveryState::Pending.as_str(),
            confirmed = SubscriberState::Confirmed.as_str(),
            returning = if returning {
                " RETURNING id, event_id, subscriber_id, channel, attempts, last_error, locked_by"
            } else {
                ""
            }
        );
        let query = diesel::sql_query(sql)
            .bind::<Text, _>(&event.id)
            .bind::<Timestamp, _>(until)
            .bind::<Timestamp, _>(at)
            .bind::<Text, _>(worker)
            .bind::<BigInt, _>(webhooks)
            .bind::<BigInt, _>(emails)
            .bind::<Text, _>(&event.page_id)
            .bind::<Bool, _>(audience.component_updates_only)
            .bind::<Bool, _>(audience.everyone)
            .bind::<Text, _>(&after)
            .bind::<Text, _>(&upto);
        let (inserted, leased) = if returning {
            let rows = query.load::<Inserted>(c)?;
            let inserted = rows.len();
            let leased = rows
                .into_iter()
                .filter(|r| r.locked_by.is_some())
                .map(|r| ClaimedDelivery {
                    id: r.id,
                    event_id: r.event_id,
                    subscriber_id: r.subscriber_id,
                    channel: r.channel,
                    attempts: r.attempts,
                    last_error: r.last_error,
                })
                .collect();
            (inserted, leased)
        } else {
            (query.execute(c)?, Vec::new())
        };
        diesel::update(notification_events::table.find(&event.id))
            .set(notification_events::expanded_through.eq(Some(&upto)))
            .execute(c)?;
        Ok(Expanded {
            inserted,
            done: false,
            leased,
        })
    })
}

/// A row an expansion step inserted, and whether it is leased.
#[derive(QueryableByName)]
#[diesel(table_name = deliveries)]
struct Inserted {
    id: String,
    event_id: String,
    subscriber_id: String,
    channel: Channel,
    attempts: i32,
    last_error: Option<String>,
    locked_by: Option<String>,
}

/// The components an event concerns.
pub fn event_components(conn: &mut DbConn, event_id: &str) -> QueryResult<Vec<String>> {
    notification_event_components::table
        .filter(notification_event_components::event_id.eq(event_id))
        .select(notification_event_components::component_id)
        .load(conn)
}

// --- deliveries ---

/// Claims up to `limit` due deliveries of `channel` for `worker` until `lease_until`. PostgreSQL skips rows
/// other processes hold (`FOR UPDATE SKIP LOCKED`); SQLite serialises claimers with an
/// immediate transaction. A claim whose lease ran out (a crashed process) is taken over.
pub fn claim_deliveries(
    conn: &mut DbConn,
    worker: &str,
    channel: &str,
    limit: i64,
    at: NaiveDateTime,
    lease_until: NaiveDateTime,
) -> QueryResult<Vec<ClaimedDelivery>> {
    // One statement: the due ids are chosen, leased and answered (what the engine reads) at
    // once (in an immediate transaction on SQLite, so it waits its turn to write instead of
    // failing).
    // The next attempt moves to the lease's end: a held delivery leaves the due range of the
    // due index (pending deliveries by channel and next_attempt_at), so the next claim does not
    // walk past every delivery in flight, and comes back into it when the lease runs out (its
    // holder crashed).
    let lock = match conn {
        DbConn::Postgres(_) => "FOR UPDATE SKIP LOCKED",
        DbConn::Sqlite(_) => "",
    };
    let sql = format!(
        "UPDATE deliveries SET locked_by = $1, locked_until = $2, next_attempt_at = $2 \
         WHERE id IN (SELECT id FROM deliveries WHERE state = '{pending}' AND channel = $3 \
           AND next_attempt_at <= $4 AND (locked_until IS NULL OR locked_until < $4) \
           ORDER BY next_attempt_at LIMIT $5 {lock}) \
         RETURNING id, event_id, subscriber_id, channel, attempts, last_error",
        pending = DeliveryState::Pending.as_str(),
    );
    write_tx(conn, |conn| {
        diesel::sql_query(sql)
            .bind::<Text, _>(worker)
            .bind::<Timestamp, _>(lease_until)
            .bind::<Text, _>(channel)
            .bind::<Timestamp, _>(at)
            .bind::<BigInt, _>(limit)
            .load::<ClaimedDelivery>(conn)
    })
}

/// `state = 'pending'`, written so that SQLite's planner cannot use the due index (the
/// partial index of pending deliveries) for it: beside `id IN (...)` it would (it guesses an
/// index matches about ten rows), and every statement on a batch of ids would walk all pending
/// deliveries (O(n) per batch at 100,000 subscribers; `EXPLAIN QUERY PLAN` shows the primary
/// key used this way).
fn still_pending() -> diesel::dsl::not<diesel::dsl::EqAny<deliveries::state, [DeliveryState; 4]>> {
    diesel::dsl::not(deliveries::state.eq_any(DeliveryState::FINAL))
}

/// Marks deliveries delivered (each one attempt more).
pub fn mark_delivered(conn: &mut DbConn, ids: &[String], at: NaiveDateTime) -> QueryResult<usize> {
    diesel::update(
        deliveries::table
            .filter(deliveries::id.eq_any(ids))
            .filter(still_pending()),
    )
    .set((
        deliveries::state.eq(DeliveryState::Delivered),
        deliveries::attempts.eq(deliveries::attempts + 1),
        deliveries::delivered_at.eq(Some(at)),
        deliveries::last_error.eq(None::<String>),
        deliveries::waiting_for.eq(None::<String>),
        deliveries::locked_by.eq(None::<String>),
        deliveries::locked_until.eq(None::<NaiveDateTime>),
        deliveries::updated_at.eq(at),
    ))
    .execute(conn)
}

/// What happens to a delivery after an attempt that did not deliver it.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// `Pending` (tried again at `next_attempt_at`), `Dead`, `Failed` or `Skipped`.
    pub state: DeliveryState,
    pub next_attempt_at: NaiveDateTime,
    /// Whether the attempt counts (a deferral does not).
    pub counted: bool,
    pub error: Option<String>,
    /// What a deferred delivery waits for.
    pub waiting: Option<crate::delivery::Waiting>,
}

/// Records an outcome other than delivered and releases the claim.
pub fn record_outcome(
    conn: &mut DbConn,
    id: &str,
    outcome: &Outcome,
    at: NaiveDateTime,
) -> QueryResult<usize> {
    let error = outcome
        .error
        .as_ref()
        .map(|e| e.chars().take(2000).collect::<String>());
    diesel::update(
        deliveries::table
            .filter(deliveries::id.eq(id))
            .filter(deliveries::state.eq(DeliveryState::Pending)),
    )
    .set((
        deliveries::state.eq(outcome.state),
        deliveries::attempts.eq(deliveries::attempts + i32::from(outcome.counted)),
        deliveries::next_attempt_at.eq(outcome.next_attempt_at),
        deliveries::last_error.eq(error),
        deliveries::waiting_for.eq(outcome.waiting.map(|w| w.as_str())),
        deliveries::locked_by.eq(None::<String>),
        deliveries::locked_until.eq(None::<NaiveDateTime>),
        deliveries::updated_at.eq(at),
    ))
    .execute(conn)
}

/// Notes why held deliveries wait (their destination cannot be reached), and the error that
/// says so, without releasing them: the console and the API show it while the engine holds them.
pub fn note_waiting(
    conn: &mut DbConn,
    ids: &[String],
    waiting: &str,
    error: &str,
    worker: &str,
) -> QueryResult<usize> {
    let error: String = error.chars().take(2000).collect();
    diesel::update(
        deliveries::table
            .filter(deliveries::id.eq_any(ids))
            .filter(deliveries::locked_by.eq(worker))
            .filter(still_pending()),
    )
    .set((
        deliveries::waiting_for.eq(waiting),
        deliveries::last_error.eq(error),
    ))
    .execute(conn)
}

/// Makes deliveries that wait unclaimed due at `at` (their host answers again).
pub fn due_now(conn: &mut DbConn, ids: &[String], at: NaiveDateTime) -> QueryResult<usize> {
    diesel::update(
        deliveries::table
            .filter(deliveries::id.eq_any(ids))
            .filter(deliveries::locked_by.is_null())
            .filter(still_pending()),
    )
    .set(deliveries::next_attempt_at.eq(at))
    .execute(conn)
}

/// Hands claims back, due at once, without counting an attempt (shutdown).
pub fn release(conn: &mut DbConn, ids: &[String], worker: &str) -> QueryResult<usize> {
    diesel::update(
        deliveries::table
            .filter(deliveries::id.eq_any(ids))
            .filter(deliveries::locked_by.eq(worker))
            .filter(still_pending()),
    )
    .set((
        deliveries::locked_by.eq(None::<String>),
        deliveries::locked_until.eq(None::<NaiveDateTime>),
        deliveries::next_attempt_at.eq(crate::db::now()),
    ))
    .execute(conn)
}

/// Which deliveries of a page to list, newest first.
#[derive(Debug, Clone, Default)]
pub struct DeliveryQuery<'a> {
    pub page_id: &'a str,
    pub state: Option<DeliveryState>,
    pub limit: i64,
    pub offset: i64,
}

/// A page's deliveries, newest first.
pub fn list_deliveries(conn: &mut DbConn, q: &DeliveryQuery<'_>) -> QueryResult<Vec<Delivery>> {
    let mut query = deliveries::table
        .filter(deliveries::page_id.eq(q.page_id))
        .into_boxed();
    if let Some(state) = q.state {
        query = query.filter(deliveries::state.eq(state));
    }
    query
        .order((deliveries::created_at.desc(), deliveries::id.desc()))
        .limit(q.limit)
        .offset(q.offset)
        .select(Delivery::as_select())
        .load(conn)
}

/// A delivery of a page by id.
pub fn find_delivery(conn: &mut DbConn, page_id: &str, id: &str) -> QueryResult<Option<Delivery>> {
    deliveries::table
        .filter(deliveries::id.eq(id))
        .filter(deliveries::page_id.eq(page_id))
        .select(Delivery::as_select())
        .first(conn)
        .optional()
}

/// Puts a dead or failed delivery back in the queue with a fresh count of attempts.
pub fn requeue(conn: &mut DbConn, id: &str, at: NaiveDateTime) -> QueryResult<usize> {
    diesel::update(
        deliveries::table
            .filter(deliveries::id.eq(id))
            .filter(deliveries::state.eq_any([DeliveryState::Dead, DeliveryState::Failed])),
    )
    .set((
        deliveries::state.eq(DeliveryState::Pending),
        deliveries::attempts.eq(0),
        deliveries::next_attempt_at.eq(at),
        deliveries::locked_by.eq(None::<String>),
        deliveries::locked_until.eq(None::<NaiveDateTime>),
        deliveries::updated_at.eq(at),
    ))
    .execute(conn)
}

/// Skips the pending deliveries of a subscriber that stopped receiving (unsubscribed,
/// quarantined, deleted).
pub fn skip_pending_of(
    conn: &mut DbConn,
    subscriber_id: &str,
    at: NaiveDateTime,
) -> QueryResult<usize> {
    diesel::update(
        deliveries::table
            .filter(deliveries::subscriber_id.eq(subscriber_id))
            .filter(deliveries::state.eq(DeliveryState::Pending)),
    )
    .set((
        deliveries::state.eq(DeliveryState::Skipped),
        deliveries::locked_by.eq(None::<String>),
        deliveries::locked_until.eq(None::<NaiveDateTime>),
        deliveries::updated_at.eq(at),
    ))
    .execute(conn)
}

/// Extends the lease on deliveries `worker` still holds.
pub fn renew(
    conn: &mut DbConn,
    ids: &[String],
    worker: &str,
    lease_until: NaiveDateTime,
) -> QueryResult<usize> {
    diesel::update(
        deliveries::table
            .filter(deliveries::id.eq_any(ids))
            .filter(deliveries::locked_by.eq(worker))
            .filter(still_pending()),
    )
    .set((
        deliveries::locked_until.eq(Some(lease_until)),
        deliveries::next_attempt_at.eq(lease_until),
    ))
    .execute(conn)
}

/// Records that the `kind` reminder of an incident's `deadline` is being sent; `false` when it
/// already was (by this or another process).
pub fn claim_reminder(
    conn: &mut DbConn,
    incident_id: &str,
    deadline: NaiveDateTime,
    kind: &str,
    at: NaiveDateTime,
) -> QueryResult<bool> {
    let inserted = diesel::sql_query(
        "INSERT INTO responder_reminders (incident_id, deadline, kind, created_at) \
         VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
    )
    .bind::<Text, _>(incident_id)
    .bind::<Timestamp, _>(deadline)
    .bind::<Text, _>(kind)
    .bind::<Timestamp, _>(at)
    .execute(conn)?;
    Ok(inserted == 1)
}

/// Pending deliveries per channel, with the creation time of the oldest (for `/metrics`).
pub fn pending_by_channel(
    conn: &mut DbConn,
) -> QueryResult<Vec<(String, i64, Option<NaiveDateTime>)>> {
    use diesel::dsl::{count_star, min};
    deliveries::table
        .filter(deliveries::state.eq(DeliveryState::Pending))
        .group_by(deliveries::channel)
        .select((
            deliveries::channel,
            count_star(),
            min(deliveries::created_at),
        ))
        .load(conn)
}

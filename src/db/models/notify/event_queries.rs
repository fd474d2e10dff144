//! Notification events, and expanding one into a delivery per recipient (a chunk at a time).

use super::*;
use crate::domain::{ComponentId, IncidentId, SubscriberId};

/// Records an event and the components it concerns, in the caller's transaction.
pub fn insert_event(
    conn: &mut DbConn,
    event: &NotificationEvent,
    components: &[ComponentId],
) -> QueryResult<()> {
    diesel::insert_into(notification_events::table)
        .values(event)
        .execute(conn)?;
    crate::db::pending::notifications();
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
pub fn first_incident_event(
    conn: &mut DbConn,
    incident_id: &IncidentId,
) -> QueryResult<Option<String>> {
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
    /// Only subscribers who chose one of the event's components themselves (a whole-page
    /// subscription does not count): a vendor's change reaches those who opted in to it.
    pub chosen_only: bool,
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
                 <= CASE WHEN s.kind = '{webhook}' THEN $5 ELSE $6 END AS leased \
               FROM subscribers s \
               WHERE s.page_id = $7 AND s.state = '{confirmed}' \
               AND ($8 = FALSE OR s.component_updates = TRUE) \
               AND ($9 = TRUE OR (s.whole_page = TRUE AND $10 = FALSE) OR EXISTS ( \
                 SELECT 1 FROM subscriber_components sc \
                 JOIN notification_event_components ec ON ec.component_id = sc.component_id \
                 WHERE sc.subscriber_id = s.id AND ec.event_id = $1)) \
               AND s.id > $11 AND s.id <= $12) r \
             WHERE TRUE \
             ON CONFLICT DO NOTHING{returning}",
            pending = DeliveryState::Pending.as_str(),
            confirmed = SubscriberState::Confirmed.as_str(),
            webhook = Channel::Webhook.as_str(),
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
            .bind::<Bool, _>(audience.chosen_only)
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
    subscriber_id: SubscriberId,
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

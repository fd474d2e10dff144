//! Subscribers: adding, finding, their chosen components, state, options and failure counts.

use super::*;
use crate::domain::{PageId, SubscriberId};

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
pub fn set_components(
    conn: &mut DbConn,
    id: &SubscriberId,
    components: &[String],
) -> QueryResult<()> {
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
pub fn components_of(conn: &mut DbConn, id: &SubscriberId) -> QueryResult<Vec<String>> {
    subscriber_components::table
        .filter(subscriber_components::subscriber_id.eq(id))
        .select(subscriber_components::component_id)
        .order(subscriber_components::component_id)
        .load(conn)
}

/// A subscriber by id.
pub fn find_subscriber(conn: &mut DbConn, id: &SubscriberId) -> QueryResult<Option<Subscriber>> {
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
    pub id: SubscriberId,
    pub kind: Channel,
    pub email: Option<String>,
    pub url: Option<String>,
    pub contact_email: Option<String>,
    pub secret: Option<String>,
    pub state: SubscriberState,
    pub consecutive_failures: i32,
    pub manage_token_id: String,
    /// The language its mails are written in; the page's default when `None`.
    pub language: Option<crate::domain::lang::Lang>,
}

/// Subscribers by id, as addressees (the engine loads a batch's recipients at once).
pub fn addressees_by_ids(conn: &mut DbConn, ids: &[SubscriberId]) -> QueryResult<Vec<Addressee>> {
    subscribers::table
        .filter(subscribers::id.eq_any(ids))
        .select(Addressee::as_select())
        .load(conn)
}

/// The email subscriber of a page with this address, whatever its state.
pub fn find_by_email(
    conn: &mut DbConn,
    page_id: &PageId,
    email: &str,
) -> QueryResult<Option<Subscriber>> {
    subscribers::table
        .filter(subscribers::page_id.eq(page_id))
        .filter(subscribers::email.eq(email))
        .select(Subscriber::as_select())
        .first(conn)
        .optional()
}

/// The webhook subscriber of a page with this URL, whatever its state.
pub fn find_by_url(
    conn: &mut DbConn,
    page_id: &PageId,
    url: &str,
) -> QueryResult<Option<Subscriber>> {
    subscribers::table
        .filter(subscribers::page_id.eq(page_id))
        .filter(subscribers::url.eq(url))
        .select(Subscriber::as_select())
        .first(conn)
        .optional()
}

/// A page's subscribers (unsubscribed ones excluded), oldest first.
pub fn list_subscribers(conn: &mut DbConn, page_id: &PageId) -> QueryResult<Vec<Subscriber>> {
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
    page_id: &PageId,
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
    id: &SubscriberId,
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
    id: &SubscriberId,
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
    id: &SubscriberId,
    whole_page: bool,
    component_updates: bool,
    language: Option<crate::domain::lang::Lang>,
    at: NaiveDateTime,
) -> QueryResult<usize> {
    diesel::update(subscribers::table.find(id))
        .set((
            subscribers::whole_page.eq(whole_page),
            subscribers::component_updates.eq(component_updates),
            subscribers::language.eq(language),
            subscribers::updated_at.eq(at),
        ))
        .execute(conn)
}

/// Deletes a subscriber of a page; answers whether one was deleted.
pub fn delete_subscriber(
    conn: &mut DbConn,
    page_id: &PageId,
    id: &SubscriberId,
) -> QueryResult<bool> {
    let deleted = diesel::delete(
        subscribers::table
            .filter(subscribers::id.eq(id))
            .filter(subscribers::page_id.eq(page_id)),
    )
    .execute(conn)?;
    Ok(deleted > 0)
}

/// Clears the failure counters of subscribers that just received something.
pub fn reset_failures(conn: &mut DbConn, ids: &[SubscriberId]) -> QueryResult<usize> {
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
    id: &SubscriberId,
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

/// Every subscription, on any page, of `email`: as its address, or as its webhook's contact.
pub fn by_address(conn: &mut DbConn, email: &str) -> QueryResult<Vec<Subscriber>> {
    subscribers::table
        .filter(
            subscribers::email
                .eq(email)
                .or(subscribers::contact_email.eq(email)),
        )
        .order((subscribers::created_at.asc(), subscribers::id.asc()))
        .select(Subscriber::as_select())
        .load(conn)
}

/// The deliveries made for a subscriber, oldest first.
pub fn deliveries_of(conn: &mut DbConn, id: &SubscriberId) -> QueryResult<Vec<super::Delivery>> {
    use crate::db::schema::deliveries;
    deliveries::table
        .filter(deliveries::subscriber_id.eq(id))
        .order((deliveries::created_at.asc(), deliveries::id.asc()))
        .select(super::Delivery::as_select())
        .load(conn)
}

/// The order of a subscriber search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SearchOrder {
    /// By address (the mail address, else the webhook's URL).
    #[default]
    Address,
    Created,
    /// By the last change of state (a quarantine's time for the quarantined).
    Changed,
}

/// Which of a page's subscribers a search returns.
#[derive(Debug, Clone, Default)]
pub struct Search {
    pub kind: Option<Channel>,
    /// Any of these states (every state when empty).
    pub states: Vec<SubscriberState>,
    /// Only those whose address or URL holds this (any case).
    pub text: Option<String>,
    pub order: SearchOrder,
    pub descending: bool,
    pub limit: i64,
    pub offset: i64,
}

/// A page's subscribers that `search` selects, in its order.
pub fn search(
    conn: &mut DbConn,
    page_id: &PageId,
    search: &Search,
) -> QueryResult<Vec<Subscriber>> {
    use crate::db::models::incidents::{holding, lower};
    let mut query = subscribers::table
        .filter(subscribers::page_id.eq(page_id))
        .into_boxed();
    if let Some(kind) = search.kind {
        query = query.filter(subscribers::kind.eq(kind));
    }
    if !search.states.is_empty() {
        query = query.filter(subscribers::state.eq_any(search.states.clone()));
    }
    if let Some(text) = search.text.as_deref().filter(|t| !t.trim().is_empty()) {
        let pattern = holding(text.trim());
        query = query.filter(
            lower(subscribers::email.assume_not_null())
                .like(pattern.clone())
                .escape('\\')
                .or(lower(subscribers::url.assume_not_null())
                    .like(pattern)
                    .escape('\\')),
        );
    }
    let address = diesel::dsl::sql::<Text>("coalesce(subscribers.email, subscribers.url, '')");
    query = match (search.order, search.descending) {
        (SearchOrder::Address, false) => query.order((address.asc(), subscribers::id.asc())),
        (SearchOrder::Address, true) => query.order((address.desc(), subscribers::id.desc())),
        (SearchOrder::Created, false) => {
            query.order((subscribers::created_at.asc(), subscribers::id.asc()))
        }
        (SearchOrder::Created, true) => {
            query.order((subscribers::created_at.desc(), subscribers::id.desc()))
        }
        (SearchOrder::Changed, false) => {
            query.order((subscribers::updated_at.asc(), subscribers::id.asc()))
        }
        (SearchOrder::Changed, true) => {
            query.order((subscribers::updated_at.desc(), subscribers::id.desc()))
        }
    };
    query
        .limit(search.limit)
        .offset(search.offset)
        .select(Subscriber::as_select())
        .load(conn)
}

/// How many subscribers a page has of each kind in each state.
pub fn count_by_kind_and_state(
    conn: &mut DbConn,
    page_id: &PageId,
) -> QueryResult<Vec<(Channel, SubscriberState, i64)>> {
    subscribers::table
        .filter(subscribers::page_id.eq(page_id))
        .group_by((subscribers::kind, subscribers::state))
        .select((
            subscribers::kind,
            subscribers::state,
            diesel::dsl::count_star(),
        ))
        .load(conn)
}

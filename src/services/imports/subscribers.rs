//! Moving subscribers (`herald import subscribers`, `POST /api/v1/imports/subscribers`): the
//! rows of a subscriber file (`domain::imports::subscriber_csv`) become the page's subscribers, in one
//! transaction, with the components they chose.
//!
//! - An email address is pending until its owner confirms, and gets one mail saying the page
//!   moved (`subscriber.moved_confirmation`); with `confirmed` it counts as confirmed at once
//!   (the operator vouches that the list was confirmed where it came from) and gets nothing,
//!   except a row the file itself marks pending (Herald's export), which stays pending.
//! - A webhook is subscribed at once with a new signing secret and component updates on, as a
//!   Statuspage webhook was; its URL was checked against the outbound rules before.
//! - An address or URL the page already has, in any state, is skipped: a re-import changes
//!   nothing, and an address that unsubscribed is never subscribed again by a file.
//! - A row that cannot be taken (bad address, unknown component, a second row for one address)
//!   is refused alone, with its line and the reason.

use std::collections::HashMap;

use super::{Report, kind as record};
use crate::db::models::components::{self as component_rows, Component};
use crate::db::models::imports;
use crate::db::models::notify::{self as rows, Subscriber};
use crate::db::models::pages;
use crate::db::states::{Channel, SubscriberState};
use crate::db::{DbConn, new_id, now, write_tx};
use crate::domain::imports::subscriber_csv::{Entry, Row};
use crate::domain::{EmailAddress, PageId, SubscriberId};
use crate::error::{AppError, AppResult};
use crate::services::outbox::{self as events, kind};
use crate::services::subscribers::MAX_URL_LEN;

/// How the report counts subscribers.
const EMAIL: &str = "email subscribers";
const WEBHOOK: &str = "webhook subscribers";
const ROWS: &str = "rows";

/// How many rows one transaction takes: a file of any size is written a transaction at a
/// time, so other writers (responders, the engine) get the database between them, and a
/// failure loses one transaction's rows, never the file's.
pub const ROWS_PER_TRANSACTION: usize = 1_000;

/// A subscriber file on its way into a page, [`ROWS_PER_TRANSACTION`] rows at a time.
pub struct SubscriberImport {
    slug: String,
    rows: Vec<Row>,
    confirmed: bool,
    /// Rows written (committed) so far.
    done: usize,
    /// The line of each address met so far: a second row for one address is refused,
    /// whichever transaction the first was in.
    seen: HashMap<String, u64>,
}

impl SubscriberImport {
    pub fn new(slug: &str, rows: Vec<Row>, confirmed: bool) -> Self {
        Self {
            slug: slug.to_owned(),
            rows,
            confirmed,
            done: 0,
            seen: HashMap::new(),
        }
    }

    /// Rows written so far, of [`SubscriberImport::total`].
    pub fn done(&self) -> usize {
        self.done
    }

    pub fn total(&self) -> usize {
        self.rows.len()
    }

    pub fn finished(&self) -> bool {
        self.done == self.rows.len()
    }

    /// Writes the next rows in one transaction, with `also` (the audit row of this part) in
    /// it; answers what they did. On an error nothing of them is written, and the import
    /// stays where it was.
    pub fn next_part(
        &mut self,
        conn: &mut DbConn,
        secret: &mut dyn FnMut() -> String,
        also: &mut dyn FnMut(&mut DbConn, &Part) -> AppResult<()>,
    ) -> AppResult<Report> {
        let end = (self.done + ROWS_PER_TRANSACTION).min(self.rows.len());
        let (report, seen) = write_tx(conn, |conn| {
            let page = pages::find_by_slug(conn, &self.slug)?.ok_or_else(|| {
                AppError::field("page", format!("there is no page '{}'", self.slug))
            })?;
            let mut report = Report {
                page: self.slug.clone(),
                ..Report::default()
            };
            let names = Components::of(conn, &page.id)?;
            let mut seen = Seen {
                before: &self.seen,
                now: HashMap::new(),
            };
            let at = now();
            for row in &self.rows[self.done..end] {
                let line = format!("line {}", row.line);
                match take(conn, &page.id, row, &names, &mut seen) {
                    Ok(Taken::Skip(counted)) => report.skipped(counted),
                    Ok(Taken::New(subscriber, chosen, unconfirmed)) => {
                        let counted = match subscriber.kind {
                            Channel::Email => EMAIL,
                            Channel::Webhook => WEBHOOK,
                        };
                        // The operator vouches for the list, not for the rows it says never
                        // confirmed: those confirm as anyone subscribing does.
                        let confirmed = self.confirmed && !unconfirmed;
                        add(conn, &page.id, *subscriber, &chosen, confirmed, secret, at)?;
                        report.created(counted);
                    }
                    Err((shown, reason)) => report.refused(ROWS, &line, &shown, reason),
                }
            }
            let part = Part {
                page_id: page.id.clone(),
                first: self.done + 1,
                last: end,
                total: self.rows.len(),
                confirmed: self.confirmed,
                report: &report,
            };
            also(conn, &part)?;
            Ok::<_, AppError>((report, seen.now))
        })?;
        self.seen.extend(seen);
        self.done = end;
        Ok(report)
    }
}

/// One transaction's rows of an import, for its audit row.
pub struct Part<'a> {
    pub page_id: PageId,
    /// Its first and last row (1-based) of `total`.
    pub first: usize,
    pub last: usize,
    pub total: usize,
    pub confirmed: bool,
    pub report: &'a Report,
}

/// Addresses met in earlier transactions, and in this one.
struct Seen<'a> {
    before: &'a HashMap<String, u64>,
    now: HashMap<String, u64>,
}

impl Seen<'_> {
    fn get(&self, address: &str) -> Option<&u64> {
        self.before.get(address).or_else(|| self.now.get(address))
    }

    fn insert(&mut self, address: String, line: u64) {
        self.now.insert(address, line);
    }
}

/// Imports `rows` into the page `slug` (which must exist), [`ROWS_PER_TRANSACTION`] at a
/// time; `progress` hears after each transaction. An error stops it: the transactions before
/// it stay written (a second run skips their rows).
pub fn import_subscribers(
    conn: &mut DbConn,
    slug: &str,
    rows: Vec<Row>,
    confirmed: bool,
    secret: &mut dyn FnMut() -> String,
    progress: &mut dyn FnMut(&str),
) -> AppResult<Report> {
    let mut import = SubscriberImport::new(slug, rows, confirmed);
    let mut report = Report {
        page: slug.to_owned(),
        ..Report::default()
    };
    while !import.finished() {
        report.merge(import.next_part(conn, secret, &mut |_, _| Ok(()))?);
        progress(&format!(
            "subscribers: {}/{}",
            import.done(),
            import.total()
        ));
    }
    Ok(report)
}

/// What became of a row.
enum Taken {
    /// Already the page's (the report's heading).
    Skip(&'static str),
    /// A new subscriber (state and secret still to set) with its chosen components, and
    /// whether the file says it never confirmed.
    New(Box<Subscriber>, Vec<String>, bool),
}

type Refusal = (String, String);

fn take(
    conn: &mut DbConn,
    page_id: &PageId,
    row: &Row,
    names: &Components,
    seen: &mut Seen<'_>,
) -> Result<Taken, Refusal> {
    let (channel, address, contact, components, unconfirmed) = match &row.entry {
        Entry::Refused { shown, reason } => return Err((shown.clone(), reason.clone())),
        Entry::Email {
            address,
            components,
            unconfirmed,
        } => {
            let email =
                EmailAddress::parse(address).map_err(|e| (clip(address), format!("email {e}")))?;
            (
                Channel::Email,
                String::from(email.as_str()),
                None,
                components,
                *unconfirmed,
            )
        }
        Entry::Webhook {
            url,
            contact_email,
            components,
        } => {
            if url.len() > MAX_URL_LEN {
                return Err((
                    clip(url),
                    format!("endpoint: use at most {MAX_URL_LEN} characters"),
                ));
            }
            let contact = match contact_email {
                Some(raw) => Some(
                    EmailAddress::parse(raw)
                        .map_err(|e| (clip(url), format!("contact email {e}")))?,
                ),
                None => None,
            };
            (Channel::Webhook, url.clone(), contact, components, false)
        }
    };
    if let Some(first) = seen.get(&address) {
        return Err((
            clip(&address),
            format!("the same subscriber as line {first}"),
        ));
    }
    seen.insert(address.clone(), row.line);
    let chosen = names
        .resolve(components)
        .map_err(|reason| (clip(&address), reason))?;
    let existing = match channel {
        Channel::Email => rows::find_by_email(conn, page_id, &address),
        Channel::Webhook => rows::find_by_url(conn, page_id, &address),
    }
    .map_err(|e| (clip(&address), format!("cannot be looked up: {e}")))?;
    if let Some(existing) = existing {
        return match existing.state {
            SubscriberState::Unsubscribed => Err((
                clip(&address),
                "unsubscribed from this page: a file does not subscribe it again".to_owned(),
            )),
            _ => Ok(Taken::Skip(match channel {
                Channel::Email => EMAIL,
                Channel::Webhook => WEBHOOK,
            })),
        };
    }
    let at = now();
    let subscriber = Subscriber {
        id: SubscriberId::new(),
        page_id: page_id.clone(),
        kind: channel,
        email: (channel == Channel::Email).then(|| address.clone()),
        url: (channel == Channel::Webhook).then(|| address.clone()),
        contact_email: contact.map(|c| c.as_str().to_owned()),
        secret: None,
        whole_page: chosen.is_empty(),
        // Statuspage sends component changes to webhooks, and to email only by incident.
        component_updates: channel == Channel::Webhook,
        state: SubscriberState::Pending,
        confirmed_at: None,
        consecutive_failures: 0,
        first_failure_at: None,
        manage_token_id: new_id(),
        created_at: at,
        updated_at: at,
        language: None,
    };
    Ok(Taken::New(Box::new(subscriber), chosen, unconfirmed))
}

fn add(
    conn: &mut DbConn,
    page_id: &PageId,
    subscriber: Subscriber,
    chosen: &[String],
    confirmed: bool,
    secret: &mut dyn FnMut() -> String,
    at: chrono::NaiveDateTime,
) -> AppResult<()> {
    let webhook = subscriber.kind == Channel::Webhook;
    let confirmed = confirmed || webhook;
    let subscriber = Subscriber {
        secret: webhook.then(&mut *secret),
        state: if confirmed {
            SubscriberState::Confirmed
        } else {
            SubscriberState::Pending
        },
        confirmed_at: confirmed.then_some(at),
        ..subscriber
    };
    rows::insert_subscriber(conn, &subscriber, chosen)?;
    if !confirmed {
        events::subscriber_notice(conn, page_id, &subscriber.id, kind::SUBSCRIBER_MOVED)?;
    }
    Ok(())
}

fn clip(text: &str) -> String {
    text.chars().take(200).collect()
}

/// The page's components, found by a Statuspage id an import remembered, by Herald id, or by
/// name (`Name` or `Name (region)`, any case).
struct Components {
    by_id: HashMap<String, String>,
    by_name: HashMap<String, Vec<String>>,
}

impl Components {
    fn of(conn: &mut DbConn, page_id: &PageId) -> AppResult<Self> {
        let list: Vec<Component> = component_rows::list_for_page(conn, page_id)?;
        let mut by_id: HashMap<String, String> = list
            .iter()
            .map(|c| (c.id.to_string(), c.id.to_string()))
            .collect();
        for (source, local) in imports::all_of_kind(conn, page_id, record::COMPONENT)? {
            if by_id.contains_key(&local) {
                by_id.entry(source).or_insert(local);
            }
        }
        let mut by_name: HashMap<String, Vec<String>> = HashMap::new();
        for c in &list {
            let id = c.id.to_string();
            by_name
                .entry(c.name.trim().to_lowercase())
                .or_default()
                .push(id.clone());
            if let Some(region) = c.region.as_deref().filter(|r| !r.trim().is_empty()) {
                by_name
                    .entry(crate::domain::component_label(&c.name, Some(region)).to_lowercase())
                    .or_default()
                    .push(id);
            }
        }
        Ok(Self { by_id, by_name })
    }

    fn one(&self, reference: &str) -> Result<Option<String>, String> {
        if let Some(id) = self.by_id.get(reference) {
            return Ok(Some(id.clone()));
        }
        match self
            .by_name
            .get(&reference.to_lowercase())
            .map(Vec::as_slice)
        {
            Some([id]) => Ok(Some(id.clone())),
            Some(ids) if ids.len() > 1 => Err(format!(
                "{} components are called '{}': name it by id or as 'Name (region)'",
                ids.len(),
                clip(reference)
            )),
            _ => Ok(None),
        }
    }

    /// The component ids of `references` (none: the whole page). A reference that is not
    /// one component, and not a list of ids separated by spaces (Herald's own export), refuses
    /// the row: a subscriber is never quietly given fewer components than it chose.
    fn resolve(&self, references: &[String]) -> Result<Vec<String>, String> {
        let mut ids: Vec<String> = Vec::new();
        for reference in references {
            let found = match self.one(reference)? {
                Some(id) => vec![id],
                None => {
                    let words: Vec<&str> = reference.split_whitespace().collect();
                    let each: Option<Vec<String>> = (words.len() > 1)
                        .then(|| words.iter().map(|w| self.by_id.get(*w).cloned()).collect())
                        .flatten();
                    each.ok_or_else(|| format!("no component '{}' on this page", clip(reference)))?
                }
            };
            for id in found {
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
        }
        ids.sort();
        Ok(ids)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn components() -> Components {
        let by_id = [("c1", "c1"), ("c2", "c2"), ("c3", "c3"), ("sp9", "c1")]
            .iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect();
        let by_name = [
            ("api", vec!["c1"]),
            ("web", vec!["c2", "c3"]),
            ("web (eu)", vec!["c2"]),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.into_iter().map(str::to_owned).collect()))
        .collect();
        Components { by_id, by_name }
    }

    fn refs(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn references_are_ids_remembered_ids_or_names() {
        let c = components();
        assert_eq!(
            c.resolve(&refs(&["sp9", "API", "Web (EU)"])).unwrap(),
            ["c1", "c2"]
        );
        assert_eq!(c.resolve(&refs(&["c3 c1"])).unwrap(), ["c1", "c3"]);
        assert!(c.resolve(&[]).unwrap().is_empty());
    }

    #[test]
    fn an_unknown_or_ambiguous_reference_refuses_the_row() {
        let c = components();
        let err = c.resolve(&refs(&["API", "Billing"])).unwrap_err();
        assert_eq!(err, "no component 'Billing' on this page");
        let err = c.resolve(&refs(&["web"])).unwrap_err();
        assert!(err.starts_with("2 components are called 'web'"), "{err}");
        let err = c.resolve(&refs(&["c1 nope"])).unwrap_err();
        assert_eq!(err, "no component 'c1 nope' on this page");
    }
}

//! An event is expanded into deliveries a chunk of subscribers at a time: every recipient the
//! filters select gets exactly one delivery, whatever the chunk size, and repeating a step
//! (a crash after it, a second process) adds nothing.

use std::collections::HashSet;
use std::time::Duration;

use herald::config::DatabaseUrl;
use herald::db::Db;
use herald::db::models::notify::{self as rows, Audience, NotificationEvent};
use herald::domain::SubscriberId;
use herald::services::subscribers::{self as subscribe, Origin, SubscribeInput};
use serde_json::json;

use crate::helpers::TestDb;

on_both_backends!(an_event_is_expanded_chunk_by_chunk_into_one_delivery_per_recipient);

async fn an_event_is_expanded_chunk_by_chunk_into_one_delivery_per_recipient(db: TestDb) {
    let db = connect(&db);
    let expected = seven_subscribers(&db).await;

    let audience = Audience {
        everyone: false,
        component_updates_only: false,
        chosen_only: false,
    };
    let steps = db
        .run(move |c| {
            let event = rows::find_event(c, "evt_chunks")?.unwrap();
            let mut steps = Vec::new();
            loop {
                let step = rows::expand_event(c, &event, audience, herald::db::now(), 2, None)?;
                steps.push((step.inserted, step.done));
                if step.done {
                    break;
                }
                assert!(steps.len() < 10, "expansion does not end: {steps:?}");
            }
            // Done: a further step adds nothing, and the event is no longer unexpanded.
            let again = rows::expand_event(c, &event, audience, herald::db::now(), 2, None)?;
            assert_eq!((again.inserted, again.done), (0, true));
            assert!(rows::unexpanded_events(c, 10)?.is_empty());
            Ok(steps)
        })
        .await
        .unwrap();
    // Chunks of two subscribers (seven in all: four chunks), then the step that finds none left.
    assert_eq!(steps.len(), 5, "{steps:?}");
    assert!(
        steps[..4].iter().all(|(n, done)| *n <= 2 && !done),
        "{steps:?}"
    );
    assert_eq!(steps[4], (0, true));
    assert_eq!(steps.iter().map(|(n, _)| n).sum::<usize>(), 5);

    let delivered_to: Vec<SubscriberId> = db
        .run(|c| {
            let listed = acme_deliveries(c)?;
            Ok(listed.into_iter().map(|d| d.subscriber_id).collect())
        })
        .await
        .unwrap();
    assert_eq!(delivered_to.len(), 5, "one delivery per recipient");
    assert_eq!(
        delivered_to.iter().collect::<HashSet<_>>(),
        expected.iter().collect::<HashSet<_>>()
    );
}

on_both_backends!(an_expansion_step_leases_its_first_deliveries_to_the_expanding_worker);

/// The engine has room for one webhook and two emails: an expansion step leases those to it
/// as it writes them (in subscriber id order), and leaves the others due for any process.
async fn an_expansion_step_leases_its_first_deliveries_to_the_expanding_worker(db: TestDb) {
    let db = connect(&db);
    let mut expected = seven_subscribers(&db).await;
    expected.sort();
    let audience = Audience {
        everyone: false,
        component_updates_only: false,
        chosen_only: false,
    };
    let (step, listed, claimed, until) = db
        .run(move |c| {
            let event = rows::find_event(c, "evt_chunks")?.unwrap();
            let at = herald::db::now();
            let until = at + chrono::Duration::seconds(30);
            let lease = rows::Lease {
                worker: "engine-a",
                until,
                webhooks: 1,
                emails: 2,
            };
            let step = rows::expand_event(c, &event, audience, at, 100, Some(lease))?;
            let listed = acme_deliveries(c)?;
            // Another engine claims what is due: only what was not leased.
            let mut claimed = rows::claim_deliveries(c, "engine-b", "webhook", 10, at, until)?;
            claimed.extend(rows::claim_deliveries(
                c, "engine-b", "email", 10, at, until,
            )?);
            Ok((step, listed, claimed, until))
        })
        .await
        .unwrap();
    assert_eq!(step.inserted, 5);
    assert_eq!(listed.len(), 5);
    let channel_of = |id: &SubscriberId| {
        let found = listed.iter().find(|d| d.subscriber_id == id);
        found.expect("a delivery per recipient").channel
    };
    let (mut webhooks, mut emails, mut first) = (0, 0, HashSet::new());
    for id in &expected {
        let room = match channel_of(id).as_str() {
            "webhook" => &mut webhooks,
            _ => &mut emails,
        };
        if *room
            < if channel_of(id) == herald::db::states::Channel::Webhook {
                1
            } else {
                2
            }
        {
            *room += 1;
            first.insert(id.clone());
        }
    }
    let leased: HashSet<SubscriberId> = step
        .leased
        .iter()
        .map(|d| d.subscriber_id.clone())
        .collect();
    assert_eq!(leased.len(), 3, "{:?}", step.leased);
    assert_eq!(leased, first);
    for d in &listed {
        if leased.contains(&d.subscriber_id) {
            assert_eq!(d.locked_by.as_deref(), Some("engine-a"), "{d:?}");
            assert_eq!(d.locked_until, Some(until), "{d:?}");
            assert_eq!(
                d.next_attempt_at, until,
                "leased: not due until the lease ends"
            );
        } else {
            assert_eq!(d.locked_by, None, "{d:?}");
        }
    }
    let claimed: HashSet<SubscriberId> = claimed.into_iter().map(|d| d.subscriber_id).collect();
    let rest: HashSet<SubscriberId> = expected
        .into_iter()
        .filter(|id| !leased.contains(id))
        .collect();
    assert_eq!(
        claimed, rest,
        "the other engine claims only what was left due"
    );
}

/// The deliveries of page "acme".
fn acme_deliveries(c: &mut herald::db::DbConn) -> herald::error::AppResult<Vec<rows::Delivery>> {
    let page = herald::db::models::pages::find_by_slug(c, "acme")?.unwrap();
    let query = rows::DeliveryQuery {
        page_id: &page.id,
        state: None,
        limit: 100,
        offset: 0,
    };
    Ok(rows::list_deliveries(c, &query)?)
}

/// A migrated database of its own.
fn connect(db: &TestDb) -> Db {
    Db::connect_url(
        &DatabaseUrl::parse(&db.url()).unwrap(),
        2,
        Duration::from_secs(10),
    )
    .unwrap()
}

/// Page "acme" with seven subscribers (whole page, the API only, the Website only; email and
/// webhook in turn) and an unexpanded incident on the API, "evt_chunks": answers the five it
/// reaches, in subscriber id order (three emails, two webhooks).
async fn seven_subscribers(db: &Db) -> Vec<SubscriberId> {
    let expected = db
        .run(|c| {
            herald::db::migrations::run_pending(c).map_err(herald::error::AppError::Internal)?;
            let input: herald::services::pages::NewPageInput =
                serde_json::from_value(json!({"slug": "acme", "name": "Acme"})).unwrap();
            let page = herald::services::pages::create_page(c, &input)?;
            let mut components = Vec::new();
            for name in ["API", "Website"] {
                let input: herald::services::components::NewComponentInput =
                    serde_json::from_value(json!({ "name": name })).unwrap();
                components
                    .push(herald::services::components::create_component(c, &page.id, &input)?.id);
            }
            // Seven subscribers: whole page (email and webhook), the API only, the Website only.
            let mut expected = Vec::new();
            for i in 0..7 {
                let chosen = match i % 3 {
                    0 => None,
                    1 => Some(vec![components[0].to_string()]),
                    _ => Some(vec![components[1].to_string()]),
                };
                let input = if i % 2 == 0 {
                    SubscribeInput {
                        kind: Some("email".into()),
                        email: Some(format!("reader{i}@example.com")),
                        components: chosen.clone(),
                        ..SubscribeInput::default()
                    }
                } else {
                    SubscribeInput {
                        kind: Some("webhook".into()),
                        url: Some(format!("https://hooks.example.com/{i}")),
                        components: chosen.clone(),
                        ..SubscribeInput::default()
                    }
                };
                let subscribed = subscribe::subscribe(
                    c,
                    &page.id,
                    &input.check()?,
                    Origin::Responder,
                    herald::delivery::signature::new_secret,
                )?;
                let (subscribe::Subscribed::Email(subscriber)
                | subscribe::Subscribed::Webhook(subscriber)) = subscribed;
                if chosen.is_none_or(|chosen| components[0] == chosen[0].as_str()) {
                    expected.push(subscriber.id);
                }
            }
            // An incident on the API: the whole-page and API subscribers get it.
            let event = NotificationEvent {
                id: "evt_chunks".into(),
                page_id: page.id.clone(),
                kind: "incident.opened".into(),
                incident_id: None,
                update_id: None,
                component_id: None,
                subscriber_id: None,
                impact: Some("minor".into()),
                created_at: herald::db::now(),
                expanded_at: None,
            };
            rows::insert_event(c, &event, &components[..1])?;
            Ok(expected)
        })
        .await
        .unwrap();
    assert_eq!(expected.len(), 5);
    expected
}

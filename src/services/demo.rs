//! `herald demo`: a realistic page with slug `demo`, modelled on real outages: component groups
//! and regions, 90 days of status history, resolved incidents (one with a published postmortem
//! after Atlassian's 2025 sign-in outage), an open incident with a "next update by" deadline and an
//! upcoming maintenance. Seeding twice changes nothing.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};

use super::components::{self as comps, GroupInput, NewComponentInput};
use super::incidents::{self, OpenIncidentInput, PostUpdateInput};
use super::pages::{self, NewPageInput};
use super::postmortems::{self, FollowUpInput, PostmortemInput};
use crate::db::models::{pages as page_rows, seed};
use crate::db::{DbConn, write_tx};
use crate::domain::{
    ComponentId, ComponentStatus as S, FollowUpState, Impact, IncidentId, IncidentKind, PageId,
    ScopeFigure, TimelineEntry,
};
use crate::error::AppResult;

/// The demo page's slug.
pub const DEMO_SLUG: &str = "demo";

/// What seeding did.
#[derive(Debug, PartialEq, Eq)]
pub enum Seeded {
    Created,
    AlreadyThere,
}

/// Component ids by short name.
type Ids = BTreeMap<&'static str, ComponentId>;

/// A component of the layout: short key, name, region.
type Member = (&'static str, &'static str, Option<&'static str>);

/// Seeds the demo page unless it exists; everything in one transaction.
pub fn seed(conn: &mut DbConn, now: DateTime<Utc>) -> AppResult<Seeded> {
    write_tx(conn, |c| {
        if page_rows::find_by_slug(c, DEMO_SLUG)?.is_some() {
            return Ok(Seeded::AlreadyThere);
        }
        let page = pages::create_page(c, &page_input())?;
        let ids = components(c, &page.id, now)?;
        history(c, &page.id, &ids, now)?;
        open_incident(c, &page.id, &ids, now)?;
        maintenance(c, &page.id, &ids, now)?;
        Ok(Seeded::Created)
    })
}

fn page_input() -> NewPageInput {
    NewPageInput {
        slug: DEMO_SLUG.into(),
        name: "Herald Demo".into(),
        description: Some(
            "The status of the Herald demo services: web app, API, voice and messaging.".into(),
        ),
        public_url: None,
        custom_domain: None,
        time_zone: Some("Europe/London".into()),
        support_email: Some("support@example.com".into()),
        next_update_intervals: None,
        is_default: false,
        visibility: Some(crate::domain::Visibility::Public),
        is_public: None,
    }
}

fn components(c: &mut DbConn, page_id: &PageId, now: DateTime<Utc>) -> AppResult<Ids> {
    let layout: [(&str, &[Member]); 3] = [
        (
            "Platform",
            &[
                ("web", "Web application", None),
                ("api", "REST API", None),
                ("signin", "Sign-in and SSO", None),
            ],
        ),
        (
            "Voice",
            &[
                ("sip-eu", "SIP trunking", Some("eu-central-1")),
                ("sip-us", "SIP trunking", Some("us-east-1")),
            ],
        ),
        (
            "Messaging",
            &[
                ("email", "Email notifications", None),
                ("webhooks", "Webhooks", None),
            ],
        ),
    ];
    let since = (now - Duration::days(120)).naive_utc();
    let mut ids = Ids::new();
    for (group, members) in layout {
        let group = comps::create_group(
            c,
            page_id,
            &GroupInput {
                name: group.into(),
                description: None,
                position: None,
            },
        )?;
        for (key, name, region) in members {
            let input = NewComponentInput {
                name: (*name).into(),
                description: None,
                group_id: Some(group.id.to_string()),
                region: region.map(Into::into),
                position: None,
                status: None,
                showcase: None,
            };
            let component = comps::create_component(c, page_id, &input)?;
            seed::backdate_component(c, &component.id, since)?;
            ids.insert(key, component.id);
        }
    }
    Ok(ids)
}

/// Opens an incident at `start` and posts `steps` (minutes after start, status, body), all
/// back-dated; the last step should resolve it.
fn past_incident(
    c: &mut DbConn,
    page_id: &PageId,
    start: DateTime<Utc>,
    open: OpenIncidentInput,
    steps: &[(i64, &str, &str)],
) -> AppResult<IncidentId> {
    let incident = incidents::open_incident(c, page_id, &open, None, start)?.incident;
    for (minutes, status, body) in steps {
        let input = PostUpdateInput {
            status: Some((*status).into()),
            body: (*body).into(),
            components: BTreeMap::new(),
            next_update_by: None,
            reopen: false,
            notify: Some(false),
            deliver_notifications: None,
            translations: None,
        };
        incidents::post_update(
            c,
            &incident.id,
            &input,
            None,
            start + Duration::minutes(*minutes),
        )?;
    }
    Ok(incident.id)
}

fn opening(
    name: &str,
    impact: Impact,
    body: &str,
    changes: &[(&ComponentId, S)],
) -> OpenIncidentInput {
    OpenIncidentInput {
        name: name.into(),
        kind: Some(IncidentKind::Incident),
        impact: Some(impact),
        status: Some("investigating".into()),
        body: body.into(),
        components: changes.iter().map(|(id, s)| (id.to_string(), *s)).collect(),
        next_update_by: None,
        user_impact: None,
        scope: None,
        root_cause: None,
        started_at: None,
        scheduled_for: None,
        scheduled_until: None,
        auto_transition: false,
        notify: Some(false),
        deliver_notifications: None,
        translations: None,
    }
}

fn history(c: &mut DbConn, page_id: &PageId, ids: &Ids, now: DateTime<Utc>) -> AppResult<()> {
    let day = |d: i64, h: i64| {
        (now - Duration::days(d))
            .date_naive()
            .and_hms_opt(0, 0, 0)
            .map(|t| t.and_utc() + Duration::hours(h))
    };
    let at = |d, h| day(d, h).unwrap_or(now);
    let signin = past_incident(
        c,
        page_id,
        at(62, 14),
        OpenIncidentInput {
            user_impact: Some("Customers could not sign in to the web app or the API; signed-in sessions kept working.".into()),
            scope: Some("All regions; about 38 % of sign-in attempts failed.".into()),
            root_cause: Some("A rate-limit rule deployed to the identity service was far stricter than intended.".into()),
            ..opening(
                "Customers unable to sign in",
                Impact::Critical,
                "We are investigating reports that customers cannot sign in. Signed-in sessions are not affected.",
                &[(&ids["signin"], S::MajorOutage), (&ids["web"], S::PartialOutage)],
            )
        },
        &[
            (45, "identified", "A rate-limit change deployed at 14:05 UTC throttles legitimate sign-ins. Client retries are multiplying the load. We are rolling the change back."),
            (150, "monitoring", "The rollback is complete and sign-in success rates are back to normal. We are monitoring."),
            (210, "resolved", "Sign-in has been working normally for an hour. This incident is resolved; a postmortem will follow."),
        ],
    )?;
    postmortem(c, &signin, at(62, 14))?;
    past_incident(
        c,
        page_id,
        at(35, 9),
        opening(
            "Dropped calls during SIP server maintenance (EU)",
            Impact::Major,
            "Some active calls in the EU region were dropped. We are investigating.",
            &[(&ids["sip-eu"], S::PartialOutage)],
        ),
        &[
            (
                20,
                "identified",
                "Servers were taken out of service before their calls had drained. We have paused the maintenance.",
            ),
            (
                40,
                "resolved",
                "Calls are being placed and held normally. The drain step will now wait for every call to end.",
            ),
        ],
    )?;
    past_incident(
        c,
        page_id,
        at(12, 7),
        opening(
            "Delayed email notifications",
            Impact::Minor,
            "Email notifications are arriving up to 20 minutes late.",
            &[(&ids["email"], S::DegradedPerformance)],
        ),
        &[(
            70,
            "resolved",
            "The mail queue has drained and notifications are on time again.",
        )],
    )?;
    past_incident(
        c,
        page_id,
        at(5, 16),
        opening(
            "Elevated API latency in the US region",
            Impact::Major,
            "API requests in the US region are slow or time out.",
            &[
                (&ids["api"], S::PartialOutage),
                (&ids["sip-us"], S::DegradedPerformance),
            ],
        ),
        &[
            (
                35,
                "identified",
                "A synchronous call inside an asynchronous request path is holding worker threads until none are left. We are deploying a fix.",
            ),
            (
                95,
                "monitoring",
                "The fix is deployed and latency is back to normal.",
            ),
            (
                125,
                "resolved",
                "Latency has stayed normal. This incident is resolved.",
            ),
        ],
    )?;
    Ok(())
}

fn postmortem(c: &mut DbConn, incident_id: &IncidentId, start: DateTime<Utc>) -> AppResult<()> {
    let t = |m: i64| start + Duration::minutes(m);
    let entry = |m, d: &str| TimelineEntry {
        at: t(m),
        description: d.into(),
    };
    let follow_up = |d: &str, owner: &str, state| FollowUpInput {
        description: d.into(),
        owner: Some(owner.into()),
        state: Some(state),
    };
    let input = PostmortemInput {
        summary: "For 3 hours 30 minutes customers could not sign in. Sessions already signed in kept working, \
                  but customers who were signed out could not reach support either, because the support form \
                  needed a signed-in account."
            .into(),
        root_cause: "A change to the identity service's rate limits was meant to apply per client but applied \
                     per region. Legitimate sign-ins were throttled, and **client retries multiplied the load**, \
                     which kept the limiter saturated after the first wave."
            .into(),
        scope_figures: vec![
            ScopeFigure { label: "Duration".into(), value: "3 h 30 min".into() },
            ScopeFigure { label: "Failed sign-ins".into(), value: "38 % at peak".into() },
            ScopeFigure { label: "Regions".into(), value: "All".into() },
        ],
        timeline: vec![
            entry(-10, "Rate-limit change deployed to the identity service."),
            entry(0, "Sign-in error rate alert fires; investigation starts."),
            entry(45, "Cause identified: the new rule throttles by region, not by client."),
            entry(90, "Rollback started; retries keep the limiter saturated."),
            entry(150, "Rollback complete; sign-in success back to normal."),
            entry(210, "Incident resolved after an hour of normal operation."),
        ],
        follow_ups: vec![
            follow_up("Offer a support contact form that works without signing in.", "Support engineering", FollowUpState::Done),
            follow_up("Send status notifications within 10 minutes of detection.", "Incident management", FollowUpState::InProgress),
            follow_up("Notify every subscriber for critical incidents, whatever their filters.", "Incident management", FollowUpState::Done),
            follow_up("Stage rate-limit changes behind a canary with automatic rollback.", "Identity team", FollowUpState::Open),
        ],
        translations: None,
    };
    postmortems::save_postmortem(c, incident_id, &input)?;
    postmortems::publish_postmortem(c, incident_id, t(60 * 24 * 3))?;
    Ok(())
}

fn open_incident(c: &mut DbConn, page_id: &PageId, ids: &Ids, now: DateTime<Utc>) -> AppResult<()> {
    let started = now - Duration::minutes(50);
    let input = OpenIncidentInput {
        user_impact: Some("Webhook deliveries arrive 5 to 15 minutes late. No deliveries are lost.".into()),
        scope: Some("Webhooks to receivers in all regions; email is not affected.".into()),
        root_cause: Some("Preliminary: a slow receiver is holding delivery workers longer than the timeout intends.".into()),
        ..opening(
            "Intermittent webhook delivery delays",
            Impact::Minor,
            "We are investigating delays in webhook deliveries.",
            &[(&ids["webhooks"], S::DegradedPerformance)],
        )
    };
    let incident = incidents::open_incident(c, page_id, &input, None, started)?.incident;
    let update = PostUpdateInput {
        status: Some("identified".into()),
        body: "We have identified a receiver that answers slowly and holds delivery workers. We are isolating it.".into(),
        components: BTreeMap::new(),
        next_update_by: Some(now + Duration::minutes(45)),
        reopen: false,
        notify: Some(false),
        deliver_notifications: None,
        translations: None,
    };
    incidents::post_update(c, &incident.id, &update, None, now - Duration::minutes(15))?;
    Ok(())
}

fn maintenance(c: &mut DbConn, page_id: &PageId, ids: &Ids, now: DateTime<Utc>) -> AppResult<()> {
    let start = (now + Duration::days(3))
        .date_naive()
        .and_hms_opt(6, 0, 0)
        .map(|t| t.and_utc())
        .unwrap_or(now);
    let input = OpenIncidentInput {
        kind: Some(IncidentKind::Maintenance),
        impact: Some(Impact::None),
        status: Some("scheduled".into()),
        scheduled_for: Some(start),
        scheduled_until: Some(start + Duration::hours(2)),
        auto_transition: true,
        ..opening(
            "Database failover drill",
            Impact::None,
            "We will fail the primary database over to its replica and back. The web app and API may answer slowly for a few seconds twice during the window.",
            &[
                (&ids["web"], S::UnderMaintenance),
                (&ids["api"], S::UnderMaintenance),
            ],
        )
    };
    incidents::open_incident(c, page_id, &input, None, now)?;
    Ok(())
}

//! Opening incidents, advisories and maintenances: references, component changes, deadlines and
//! what is refused.

use chrono::{Datelike, Duration};
use herald::domain::{
    ComponentStatus::*, Impact, IncidentKind, IncidentStatus, LifecycleStatus, MaintenanceStatus,
    NextUpdateIntervals,
};
use herald::services::incidents::{self, IncidentFilter, OpenIncidentInput, PostUpdateInput};
use herald::services::pages::{self, NewPageInput};

use super::{
    Clock, changes, component, detail, field_errors, history, incident, open, page, post, run,
    status_of, try_open, update,
};
use crate::helpers::{TestApp, TestDb};

on_both_backends!(
    opening_incidents_allocates_references_per_page_kind_and_year,
    incidents_opened_at_once_on_one_page_all_open_with_references_in_turn,
    opening_an_incident_records_component_changes_and_their_history,
    an_incident_without_a_chosen_deadline_gets_the_pages_interval_for_its_impact,
    a_bad_incident_input_answers_field_errors_and_writes_nothing,
    a_maintenance_needs_its_window_and_starts_when_it_goes_in_progress,
    a_scheduled_maintenance_changes_its_components_only_when_it_starts,
);

async fn opening_incidents_allocates_references_per_page_kind_and_year(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let clock = Clock::new();
    let (acme, beta) = (page(&app, "acme").await, page(&app, "beta").await);
    let year = clock.now().year();
    let first = open(&app, &acme.id, incident("Slow API"), clock.now()).await;
    let second = open(&app, &acme.id, incident("Login errors"), clock.at(1)).await;
    let maintenance = OpenIncidentInput {
        kind: Some(IncidentKind::Maintenance),
        scheduled_for: Some(clock.at(60)),
        scheduled_until: Some(clock.at(120)),
        ..incident("Database upgrade")
    };
    let maintenance = open(&app, &acme.id, maintenance, clock.at(2)).await;
    let other_page = open(&app, &beta.id, incident("Beta outage"), clock.at(3)).await;
    let references =
        [&first, &second, &maintenance, &other_page].map(|p| p.incident.reference.clone());
    let expected = [
        "INC-{y}-0001",
        "INC-{y}-0002",
        "MNT-{y}-0001",
        "INC-{y}-0001",
    ];
    assert_eq!(
        references,
        expected.map(|r| r.replace("{y}", &year.to_string()))
    );

    let (acme_id, reference) = (acme.id.clone(), format!("inc-{year}-0002"));
    let found = run(&app, move |c| {
        incidents::get_incident_by_reference(c, &acme_id, &reference)
    });
    assert_eq!(
        found.await.unwrap(),
        second.incident,
        "references match in any case"
    );
    let acme_id = acme.id.clone();
    let filter = IncidentFilter {
        kind: Some(IncidentKind::Incident),
        ..Default::default()
    };
    let listed = run(&app, move |c| {
        incidents::list_incidents(c, &acme_id, &filter)
    });
    let listed = listed.await.unwrap();
    let names: Vec<&str> = listed.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(
        names,
        ["Login errors", "Slow API"],
        "newest first, only incidents"
    );
}

/// Openings racing on one page (an on-call bot and a monitoring bridge at once): every one
/// opens, none refused for a reference another took, and the references run without a gap.
async fn incidents_opened_at_once_on_one_page_all_open_with_references_in_turn(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let clock = Clock::new();
    let acme = page(&app, "acme").await;
    let year = clock.now().year();
    let openings = (0..12i64).map(|i| {
        try_open(
            &app,
            &acme.id,
            incident(&format!("Racing {i}")),
            clock.at(i),
        )
    });
    let mut references: Vec<String> = futures_util::future::join_all(openings)
        .await
        .into_iter()
        .map(|opened| opened.expect("every opening opens").incident.reference)
        .collect();
    references.sort();
    let expected: Vec<String> = (1..=12).map(|n| format!("INC-{year}-{n:04}")).collect();
    assert_eq!(references, expected);
}

async fn opening_an_incident_records_component_changes_and_their_history(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let page = page(&app, "acme").await;
    let api = component(&app, &page.id, "API").await;
    let web = component(&app, &page.id, "Website").await;
    // After the components exist, so their creation rows come first in the history.
    let clock = Clock::new();
    let input = OpenIncidentInput {
        components: changes(&[(&api, PartialOutage), (&web, Operational)]),
        user_impact: Some("Requests to the API fail for some customers.".into()),
        scope: Some("EU customers".into()),
        root_cause: Some("A bad deploy".into()),
        ..incident("API errors")
    };
    let opened = open(&app, &page.id, input, clock.now()).await;
    let incident = &opened.incident;
    assert_eq!(
        incident.impact,
        Impact::Major,
        "inferred from the partial outage"
    );
    let investigating = LifecycleStatus::Incident(IncidentStatus::Investigating);
    assert_eq!(incident.status, investigating);
    assert_eq!(incident.started_at, clock.now().naive_utc());
    assert_eq!(
        incident.user_impact.as_deref(),
        Some("Requests to the API fail for some customers.")
    );
    assert_eq!(
        (incident.scope.as_deref(), incident.root_cause.as_deref()),
        (Some("EU customers"), Some("A bad deploy"))
    );
    assert_eq!(opened.update.body, "We are looking into API errors.");
    let steps: Vec<_> = opened
        .changes
        .iter()
        .map(|c| (c.component_id.clone(), c.old_status, c.new_status))
        .collect();
    let mut expected = vec![
        (api.id.clone(), Operational, PartialOutage),
        (web.id.clone(), Operational, Operational),
    ];
    expected.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(steps, expected, "old → new per named component");
    assert_eq!(status_of(&app, &api).await, PartialOutage);

    let caused = Some(incident.id.clone());
    assert_eq!(
        history(&app, &api, clock).await,
        [
            (None, Operational, None),
            (Some(Operational), PartialOutage, caused)
        ]
    );
    assert_eq!(
        history(&app, &web, clock).await,
        [(None, Operational, None)],
        "no row without a change"
    );
    let detail = detail(&app, &incident.id).await;
    let affected: Vec<&str> = detail.affected.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(affected, ["API", "Website"]);
    assert_eq!(detail.updates.len(), 1);
    assert_eq!(detail.updates[0].changes, opened.changes);
}

async fn an_incident_without_a_chosen_deadline_gets_the_pages_interval_for_its_impact(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let clock = Clock::new();
    let intervals = NextUpdateIntervals {
        major: Some(45),
        ..NextUpdateIntervals::default()
    };
    let input = NewPageInput {
        slug: "acme".into(),
        name: "Acme".into(),
        next_update_intervals: Some(intervals),
        ..Default::default()
    };
    let page = run(&app, move |c| pages::create_page(c, &input))
        .await
        .unwrap();
    let major = OpenIncidentInput {
        impact: Some(Impact::Major),
        ..incident("API errors")
    };
    let opened = open(&app, &page.id, major, clock.now()).await;
    let deadline = (clock.now() + Duration::minutes(45)).naive_utc();
    assert_eq!(
        opened.update.next_update_by,
        Some(deadline),
        "the page's interval for major"
    );
    assert_eq!(
        opened.incident.next_update_by,
        Some(deadline),
        "the incident mirrors its latest update"
    );
    let quiet = OpenIncidentInput {
        impact: Some(Impact::None),
        ..incident("Docs typo")
    };
    let quiet = open(&app, &page.id, quiet, clock.now()).await;
    assert_eq!(
        quiet.incident.next_update_by,
        Some((clock.now() + chrono::Duration::minutes(240)).naive_utc()),
        "even an incident without impact promises its next update, by default within 4 h"
    );

    let id = opened.incident.id.clone();
    let chosen = PostUpdateInput {
        next_update_by: Some(clock.at(20)),
        ..update("identified")
    };
    let posted = post(&app, &id, chosen, clock.at(5)).await.unwrap().incident;
    assert_eq!(
        posted.next_update_by,
        Some(clock.at(20).naive_utc()),
        "a chosen deadline wins"
    );
    assert_eq!(posted.identified_at, Some(clock.at(5).naive_utc()));
    let past = PostUpdateInput {
        next_update_by: Some(clock.at(1)),
        ..update("monitoring")
    };
    let fields = field_errors(post(&app, &id, past, clock.at(6)).await);
    assert!(
        fields["next_update_by"][0].contains("not in the future"),
        "{fields:?}"
    );
    let statuses: Vec<&str> = detail(&app, &id)
        .await
        .updates
        .into_iter()
        .map(|u| u.update.status.as_str())
        .collect();
    assert_eq!(
        statuses,
        ["identified", "investigating"],
        "newest first; the refused update left nothing"
    );
}

async fn a_bad_incident_input_answers_field_errors_and_writes_nothing(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let clock = Clock::new();
    let (acme, beta) = (page(&app, "acme").await, page(&app, "beta").await);
    let foreign = component(&app, &beta.id, "Beta API").await;
    let input = OpenIncidentInput {
        name: " ".into(),
        status: Some("scheduled".into()),
        components: changes(&[(&foreign, MajorOutage)]),
        ..incident("x")
    };
    let fields = field_errors(try_open(&app, &acme.id, input, clock.now()).await);
    let keys: Vec<&str> = fields.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            format!("components.{}", foreign.id).as_str(),
            "name",
            "status"
        ]
    );
    assert!(
        fields["status"][0].contains("'scheduled' is not a valid incident status"),
        "{fields:?}"
    );
    let postmortem = OpenIncidentInput {
        status: Some("postmortem".into()),
        ..incident("x")
    };
    let fields = field_errors(try_open(&app, &acme.id, postmortem, clock.now()).await);
    assert!(
        fields["status"][0].contains("cannot open as postmortem"),
        "{fields:?}"
    );

    let acme_id = acme.id.clone();
    let listed = run(&app, move |c| {
        incidents::list_incidents(c, &acme_id, &IncidentFilter::default())
    });
    assert!(listed.await.unwrap().is_empty(), "nothing was written");
    assert_eq!(status_of(&app, &foreign).await, Operational);
}

async fn a_maintenance_needs_its_window_and_starts_when_it_goes_in_progress(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let clock = Clock::new();
    let page = page(&app, "acme").await;
    let database = component(&app, &page.id, "Database").await;
    let maintenance = |from: Option<i64>, until: Option<i64>| OpenIncidentInput {
        kind: Some(IncidentKind::Maintenance),
        scheduled_for: from.map(|m| clock.at(m)),
        scheduled_until: until.map(|m| clock.at(m)),
        ..incident("Database upgrade")
    };
    let not_maintenance = OpenIncidentInput {
        scheduled_for: Some(clock.at(60)),
        ..incident("Outage")
    };
    let cases = [
        (
            maintenance(None, None),
            vec!["scheduled_for", "scheduled_until"],
        ),
        (maintenance(Some(60), None), vec!["scheduled_until"]),
        (maintenance(Some(60), Some(30)), vec!["scheduled_until"]),
        (not_maintenance, vec!["scheduled_for"]),
    ];
    for (input, expected) in cases {
        let fields = field_errors(try_open(&app, &page.id, input, clock.now()).await);
        assert_eq!(fields.keys().collect::<Vec<_>>(), expected, "{fields:?}");
    }
    let input = OpenIncidentInput {
        auto_transition: true,
        ..maintenance(Some(60), Some(120))
    };
    let opened = open(&app, &page.id, input, clock.now()).await.incident;
    assert_eq!(
        opened.reference,
        format!("MNT-{}-0001", clock.now().year()),
        "refused openings used no number"
    );
    assert_eq!(
        opened.status,
        LifecycleStatus::Maintenance(MaintenanceStatus::Scheduled)
    );
    let window = (
        Some(clock.at(60).naive_utc()),
        Some(clock.at(120).naive_utc()),
    );
    assert_eq!((opened.scheduled_for, opened.scheduled_until), window);
    assert_eq!(
        opened.started_at,
        clock.at(60).naive_utc(),
        "a scheduled maintenance starts with its window"
    );
    assert!(opened.auto_transition);
    assert_eq!(
        opened.next_update_by, None,
        "maintenances promise no update by default"
    );

    let fields = field_errors(post(&app, &opened.id, update("verifying"), clock.at(55)).await);
    assert!(fields["status"][0].contains("start it first"), "{fields:?}");
    let start = PostUpdateInput {
        components: changes(&[(&database, UnderMaintenance)]),
        ..update("in_progress")
    };
    let started = post(&app, &opened.id, start, clock.at(58))
        .await
        .unwrap()
        .incident;
    assert_eq!(
        started.started_at,
        clock.at(58).naive_utc(),
        "started early"
    );
    assert_eq!(status_of(&app, &database).await, UnderMaintenance);
    let done = post(&app, &opened.id, update("completed"), clock.at(90))
        .await
        .unwrap()
        .incident;
    assert_eq!(done.resolved_at, Some(clock.at(90).naive_utc()));
    assert_eq!(
        status_of(&app, &database).await,
        Operational,
        "completing restores the component"
    );
}

async fn a_scheduled_maintenance_changes_its_components_only_when_it_starts(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let clock = Clock::new();
    let page = page(&app, "acme").await;
    let database = component(&app, &page.id, "Database").await;
    let input = OpenIncidentInput {
        kind: Some(IncidentKind::Maintenance),
        scheduled_for: Some(clock.at(60)),
        scheduled_until: Some(clock.at(120)),
        components: changes(&[(&database, UnderMaintenance)]),
        ..incident("Database upgrade")
    };
    let opened = open(&app, &page.id, input, clock.now()).await;
    assert!(
        opened.changes.is_empty(),
        "nothing changes days ahead of the window"
    );
    assert_eq!(status_of(&app, &database).await, Operational);
    let started = post(
        &app,
        &opened.incident.id,
        update("in_progress"),
        clock.at(60),
    )
    .await
    .unwrap();
    assert_eq!(
        started.changes.len(),
        1,
        "the named components go under maintenance at the start"
    );
    assert_eq!(status_of(&app, &database).await, UnderMaintenance);
    post(
        &app,
        &opened.incident.id,
        update("completed"),
        clock.at(120),
    )
    .await
    .unwrap();
    assert_eq!(status_of(&app, &database).await, Operational);
}

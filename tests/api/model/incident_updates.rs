//! Updates of open incidents: resolving, the state machine, reopening, and the page overview.

use herald::domain::{
    ComponentStatus::*, Impact, IncidentKind, IncidentStatus, Indicator, LifecycleStatus,
};
use herald::services::components;
use herald::services::incidents::{
    self, IncidentFilter, OpenIncidentInput, PageOverview, PostUpdateInput,
};

use super::{
    Clock, changes, component, detail, field_errors, incident, open, page, post, run, status_of,
    update,
};
use crate::helpers::{TestApp, TestDb};

on_both_backends!(
    resolving_restores_components_unless_another_open_incident_still_affects_them,
    a_refused_transition_writes_nothing_and_an_explicit_reopen_works,
    the_page_overview_indicator_follows_components_and_open_incidents,
);

async fn resolving_restores_components_unless_another_open_incident_still_affects_them(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let clock = Clock::new();
    let page = page(&app, "acme").await;
    let api = component(&app, &page.id, "API").await;
    let database = component(&app, &page.id, "Database").await;
    let outage = OpenIncidentInput {
        components: changes(&[(&api, MajorOutage), (&database, MajorOutage)]),
        ..incident("Outage")
    };
    let outage = open(&app, &page.id, outage, clock.now()).await.incident;
    let slow = OpenIncidentInput {
        components: changes(&[(&database, DegradedPerformance)]),
        ..incident("Slow queries")
    };
    open(&app, &page.id, slow, clock.at(1)).await;
    post(&app, &outage.id, update("monitoring"), clock.at(10))
        .await
        .unwrap();

    let resolved = post(&app, &outage.id, update("resolved"), clock.at(20))
        .await
        .unwrap();
    let incident = &resolved.incident;
    assert_eq!(
        incident.status,
        LifecycleStatus::Incident(IncidentStatus::Resolved)
    );
    assert_eq!(incident.resolved_at, Some(clock.at(20).naive_utc()));
    assert_eq!(incident.monitoring_at, Some(clock.at(10).naive_utc()));
    assert_eq!(incident.identified_at, None, "identified was never reached");
    assert_eq!(incident.next_update_by, None, "no deadline once resolved");
    let restored: Vec<_> = resolved
        .changes
        .iter()
        .map(|c| {
            (
                c.component_id.as_str(),
                c.old_status.as_str(),
                c.new_status.as_str(),
            )
        })
        .collect();
    assert_eq!(
        restored,
        [(api.id.as_str(), "major_outage", "operational")],
        "recorded on the resolving update"
    );
    assert_eq!(status_of(&app, &api).await, Operational);
    assert_eq!(
        status_of(&app, &database).await,
        DegradedPerformance,
        "still affected by the other incident"
    );
    let page_id = page.id.clone();
    let open_only = IncidentFilter {
        open_only: true,
        ..Default::default()
    };
    let still_open = run(&app, move |c| {
        incidents::list_incidents(c, &page_id, &open_only)
    })
    .await
    .unwrap();
    assert_eq!(
        still_open
            .iter()
            .map(|i| i.name.as_str())
            .collect::<Vec<_>>(),
        ["Slow queries"]
    );
}

async fn a_refused_transition_writes_nothing_and_an_explicit_reopen_works(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let clock = Clock::new();
    let page = page(&app, "acme").await;
    let api = component(&app, &page.id, "API").await;
    let opened = OpenIncidentInput {
        impact: Some(Impact::Critical),
        components: changes(&[(&api, MajorOutage)]),
        ..incident("Outage")
    };
    let id = open(&app, &page.id, opened, clock.now()).await.incident.id;
    post(&app, &id, update("identified"), clock.at(5))
        .await
        .unwrap();
    let resolved = post(&app, &id, update("resolved"), clock.at(10))
        .await
        .unwrap()
        .incident;

    let refused = PostUpdateInput {
        components: changes(&[(&api, MajorOutage)]),
        ..update("investigating")
    };
    let fields = field_errors(post(&app, &id, refused, clock.at(15)).await);
    assert!(
        fields["status"][0].contains("without reopening it; reopen the incident explicitly"),
        "{fields:?}"
    );
    let fields = field_errors(post(&app, &id, update("postmortem"), clock.at(15)).await);
    assert!(
        fields["status"][0].contains("publish the postmortem"),
        "{fields:?}"
    );
    let after = detail(&app, &id).await;
    assert_eq!(
        after.incident, resolved,
        "the refused updates changed nothing"
    );
    assert_eq!(after.updates.len(), 3);
    assert_eq!(status_of(&app, &api).await, Operational);

    let reopen = PostUpdateInput {
        reopen: true,
        components: changes(&[(&api, PartialOutage)]),
        ..update("investigating")
    };
    let reopened = post(&app, &id, reopen, clock.at(30))
        .await
        .unwrap()
        .incident;
    assert_eq!(
        reopened.status,
        LifecycleStatus::Incident(IncidentStatus::Investigating)
    );
    assert_eq!(reopened.resolved_at, None, "reopening clears resolved_at");
    assert_eq!(
        reopened.identified_at,
        Some(clock.at(5).naive_utc()),
        "the first identification stays"
    );
    assert_eq!(
        reopened.next_update_by,
        Some(clock.at(60).naive_utc()),
        "critical: 30 minutes"
    );
    assert_eq!(status_of(&app, &api).await, PartialOutage);
    let again = post(&app, &id, update("resolved"), clock.at(40))
        .await
        .unwrap()
        .incident;
    assert_eq!(again.resolved_at, Some(clock.at(40).naive_utc()));
    assert_eq!(status_of(&app, &api).await, Operational);
}

async fn the_page_overview_indicator_follows_components_and_open_incidents(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let clock = Clock::new();
    let page = page(&app, "acme").await;
    let api = component(&app, &page.id, "API").await;
    let overview = |minutes: i64| {
        let (page_id, now) = (page.id.clone(), clock.at(minutes));
        let app = &app;
        async move {
            run(app, move |c| incidents::page_overview(c, &page_id, now))
                .await
                .unwrap()
        }
    };
    let indicator = |o: PageOverview| o.status.indicator;
    let first = overview(0).await;
    assert_eq!(
        (first.status.indicator, first.status.description),
        (Indicator::None, "All Systems Operational")
    );

    let id = api.id.clone();
    run(&app, move |c| {
        components::set_component_status(c, &id, DegradedPerformance, None)
    })
    .await
    .unwrap();
    assert_eq!(indicator(overview(0).await), Indicator::Minor);
    let critical = OpenIncidentInput {
        impact: Some(Impact::Critical),
        ..incident("Outage")
    };
    let critical = open(&app, &page.id, critical, clock.now()).await.incident;
    let seen = overview(1).await;
    assert_eq!(seen.status.indicator, Indicator::Critical);
    assert_eq!(seen.open_incidents, vec![critical.clone()]);
    post(&app, &critical.id, update("resolved"), clock.at(2))
        .await
        .unwrap();
    assert_eq!(
        indicator(overview(3).await),
        Indicator::Minor,
        "the resolved incident no longer counts"
    );

    let id = api.id.clone();
    run(&app, move |c| {
        components::set_component_status(c, &id, Operational, None)
    })
    .await
    .unwrap();
    let window = OpenIncidentInput {
        kind: Some(IncidentKind::Maintenance),
        scheduled_for: Some(clock.at(10)),
        scheduled_until: Some(clock.at(70)),
        auto_transition: true,
        ..incident("Upgrade")
    };
    let maintenance = open(&app, &page.id, window, clock.at(3)).await.incident;
    assert_eq!(
        indicator(overview(5).await),
        Indicator::None,
        "scheduled, not yet under way"
    );
    assert_eq!(
        indicator(overview(15).await),
        Indicator::Maintenance,
        "inside an auto-transitioning window"
    );
    post(&app, &maintenance.id, update("in_progress"), clock.at(16))
        .await
        .unwrap();
    assert_eq!(
        indicator(overview(80).await),
        Indicator::Maintenance,
        "in progress until completed"
    );
    post(&app, &maintenance.id, update("completed"), clock.at(81))
        .await
        .unwrap();
    let last = overview(82).await;
    assert_eq!(last.status.indicator, Indicator::None);
    assert!(last.open_incidents.is_empty());
    assert_eq!(last.components.statuses().unwrap(), [Operational]);
}

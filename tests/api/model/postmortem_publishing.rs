//! Postmortems: saving, publishing, and what they refuse.

use herald::domain::{FollowUpState, IncidentStatus, LifecycleStatus, ScopeFigure, TimelineEntry};
use herald::error::AppError;
use herald::services::incidents::OpenIncidentInput;
use herald::services::postmortems::{self, FollowUpInput, PostmortemInput};

use super::{Clock, field_errors, open, page, post, run, update};
use crate::helpers::{TestApp, TestDb};

on_both_backends!(
    a_postmortem_is_saved_sorted_then_published_which_moves_the_incident_to_postmortem,
    a_postmortem_is_refused_for_an_unresolved_incident_and_for_bad_parts,
);

fn draft(clock: Clock) -> PostmortemInput {
    let entry = |minutes, description: &str| TimelineEntry {
        at: clock.at(minutes),
        description: description.into(),
    };
    PostmortemInput {
        summary: "The API was down for 47 minutes.".into(),
        root_cause: "A configuration push removed the API's TLS certificate.".into(),
        scope_figures: vec![
            ScopeFigure {
                label: " Duration ".into(),
                value: "47 minutes".into(),
            },
            ScopeFigure {
                label: "Affected customers".into(),
                value: "About 8%".into(),
            },
        ],
        timeline: vec![
            entry(47, "Certificate restored"),
            entry(0, "Configuration pushed"),
            entry(5, "Alert fired"),
            entry(0, "Health checks started failing"),
        ],
        follow_ups: vec![
            FollowUpInput {
                description: "Validate certificates before pushing".into(),
                owner: Some("Platform".into()),
                state: None,
            },
            FollowUpInput {
                description: "Page on TLS errors".into(),
                owner: None,
                state: Some(FollowUpState::Done),
            },
        ],
        translations: None,
    }
}

async fn a_postmortem_is_saved_sorted_then_published_which_moves_the_incident_to_postmortem(
    db: TestDb,
) {
    let app = TestApp::spawn(db).await;
    let clock = Clock::new();
    let page = page(&app, "acme").await;
    let input = OpenIncidentInput {
        name: "API down".into(),
        body: "Investigating.".into(),
        ..Default::default()
    };
    let id = open(&app, &page.id, input, clock.now()).await.incident.id;
    post(&app, &id, update("resolved"), clock.at(50))
        .await
        .unwrap();

    let (incident_id, input) = (id.clone(), draft(clock));
    let saved = run(&app, move |c| {
        postmortems::save_postmortem(c, &incident_id, &input)
    })
    .await
    .unwrap();
    let timeline: Vec<&str> = saved
        .timeline
        .iter()
        .map(|e| e.description.as_str())
        .collect();
    assert_eq!(
        timeline,
        [
            "Configuration pushed",
            "Health checks started failing",
            "Alert fired",
            "Certificate restored"
        ]
    );
    assert_eq!(saved.timeline[3].occurred_at, clock.at(47).naive_utc());
    assert_eq!(
        saved.timeline[0].entry().at,
        clock.now(),
        "entries read back as UTC"
    );
    let figures = saved.postmortem.scope_figures().unwrap();
    assert_eq!(
        figures[0],
        ScopeFigure {
            label: "Duration".into(),
            value: "47 minutes".into()
        }
    );
    assert_eq!(figures.len(), 2);
    let follow_ups: Vec<_> = saved
        .follow_ups
        .iter()
        .map(|f| (f.position, f.owner.clone(), f.state))
        .collect();
    assert_eq!(
        follow_ups,
        [
            (0, Some("Platform".to_owned()), FollowUpState::Open),
            (1, None, FollowUpState::Done)
        ]
    );
    assert!(!saved.postmortem.published);
    assert_eq!(
        saved.incident.status,
        LifecycleStatus::Incident(IncidentStatus::Resolved),
        "a draft does not publish"
    );

    let incident_id = id.clone();
    let published = run(&app, move |c| {
        postmortems::publish_postmortem(c, &incident_id, clock.at(60))
    })
    .await
    .unwrap();
    assert!(published.postmortem.published);
    assert_eq!(
        published.postmortem.published_at,
        Some(clock.at(60).naive_utc())
    );
    assert_eq!(
        published.incident.status,
        LifecycleStatus::Incident(IncidentStatus::Postmortem)
    );
    assert_eq!(published.timeline, saved.timeline);

    let incident_id = id.clone();
    let twice = run(&app, move |c| {
        postmortems::publish_postmortem(c, &incident_id, clock.at(70))
    })
    .await
    .unwrap();
    assert_eq!(
        twice.postmortem, published.postmortem,
        "publishing twice is harmless"
    );

    let mut edited = draft(clock);
    edited.timeline.truncate(1);
    edited.follow_ups.clear();
    let incident_id = id.clone();
    let resaved = run(&app, move |c| {
        postmortems::save_postmortem(c, &incident_id, &edited)
    })
    .await
    .unwrap();
    assert_eq!(resaved.timeline.len(), 1, "saving replaces the timeline");
    assert!(resaved.follow_ups.is_empty());
    assert!(resaved.postmortem.published, "an edit keeps it published");
    let incident_id = id.clone();
    let read = run(&app, move |c| postmortems::get_postmortem(c, &incident_id))
        .await
        .unwrap();
    assert_eq!(read, resaved);
}

async fn a_postmortem_is_refused_for_an_unresolved_incident_and_for_bad_parts(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let clock = Clock::new();
    let page = page(&app, "acme").await;
    let input = OpenIncidentInput {
        name: "API down".into(),
        body: "Investigating.".into(),
        ..Default::default()
    };
    let id = open(&app, &page.id, input, clock.now()).await.incident.id;

    let (incident_id, input) = (id.clone(), draft(clock));
    let refused = run(&app, move |c| {
        postmortems::save_postmortem(c, &incident_id, &input)
    })
    .await;
    match refused {
        Err(AppError::Conflict(message)) => {
            assert!(message.contains("resolve it first"), "{message}")
        }
        other => panic!("expected a conflict, got {other:?}"),
    }
    let incident_id = id.clone();
    let missing = run(&app, move |c| postmortems::get_postmortem(c, &incident_id)).await;
    assert!(
        matches!(missing, Err(AppError::NotFound(_))),
        "nothing was saved: {missing:?}"
    );
    let incident_id = id.clone();
    let early = run(&app, move |c| {
        postmortems::publish_postmortem(c, &incident_id, clock.at(1))
    })
    .await;
    assert!(matches!(early, Err(AppError::Conflict(_))), "{early:?}");

    post(&app, &id, update("resolved"), clock.at(10))
        .await
        .unwrap();
    let mut bad = draft(clock);
    bad.scope_figures[1].value = "  ".into();
    bad.timeline[2].description = String::new();
    bad.follow_ups[0].description = " ".into();
    let incident_id = id.clone();
    let fields = field_errors(
        run(&app, move |c| {
            postmortems::save_postmortem(c, &incident_id, &bad)
        })
        .await,
    );
    let keys: Vec<&str> = fields.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "follow_ups[0].description",
            "scope_figures[1].value",
            "timeline[2].description"
        ]
    );

    let empty = PostmortemInput {
        root_cause: "  ".into(),
        ..PostmortemInput::default()
    };
    let incident_id = id.clone();
    run(&app, move |c| {
        postmortems::save_postmortem(c, &incident_id, &empty)
    })
    .await
    .unwrap();
    let incident_id = id.clone();
    let fields = field_errors(
        run(&app, move |c| {
            postmortems::publish_postmortem(c, &incident_id, clock.at(20))
        })
        .await,
    );
    assert!(
        fields["root_cause"][0].contains("before publishing"),
        "{fields:?}"
    );
}

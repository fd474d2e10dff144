//! Pages, groups and components.

use herald::domain::{ComponentStatus, NextUpdateIntervals};
use herald::error::AppError;
use herald::services::components::{
    self, ComponentEntry, GroupInput, NewComponentInput, UpdateComponentInput,
};
use herald::services::pages::{self, NewPageInput, UpdatePageInput};

use super::{Clock, component, field_errors, page, reload, run};
use crate::helpers::{TestApp, TestDb};

on_both_backends!(
    a_page_with_groups_and_components_round_trips,
    bad_page_settings_each_answer_a_field_error_and_write_nothing,
    a_taken_slug_is_a_field_error_and_making_a_page_default_takes_the_flag_from_the_others,
    a_component_status_change_is_recorded_in_its_history_only_when_it_changes,
);

async fn a_page_with_groups_and_components_round_trips(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let intervals = NextUpdateIntervals {
        none: Some(240),
        minor: Some(90),
        major: Some(45),
        critical: Some(15),
    };
    let input = NewPageInput {
        slug: "acme".into(),
        name: "  Acme Cloud ".into(),
        description: Some("Everything Acme runs".into()),
        public_url: Some("https://status.acme.example".into()),
        custom_domain: Some("Status.Acme.Example".into()),
        time_zone: Some("Europe/Berlin".into()),
        support_email: Some(" Ops@Acme.Example ".into()),
        next_update_intervals: Some(intervals),
        ..Default::default()
    };
    let created = run(&app, move |c| pages::create_page(c, &input))
        .await
        .unwrap();
    let read = run(&app, |c| pages::get_page_by_slug(c, "acme"))
        .await
        .unwrap();
    assert_eq!(read, created);
    assert_eq!(read.name, "Acme Cloud");
    assert_eq!(
        read.public_url.as_deref(),
        Some("https://status.acme.example/")
    );
    assert_eq!(read.custom_domain.as_deref(), Some("status.acme.example"));
    assert_eq!(read.time_zone, "Europe/Berlin");
    assert_eq!(read.support_email.as_deref(), Some("ops@acme.example"));
    assert_eq!(pages::page_intervals(&read), intervals);
    assert!(read.is_default, "the first page is the default");
    assert_eq!(read.visibility, herald::domain::Visibility::Public);

    let page_id = read.id.clone();
    let group = GroupInput {
        name: "Europe".into(),
        description: Some("EU regions".into()),
        position: Some(2),
    };
    let group = run(&app, move |c| components::create_group(c, &page_id, &group))
        .await
        .unwrap();
    let (page_id, group_id) = (read.id.clone(), group.id.clone());
    let api = NewComponentInput {
        name: "API".into(),
        group_id: Some(group_id.to_string()),
        region: Some("eu-west-1".into()),
        status: Some(ComponentStatus::DegradedPerformance),
        ..Default::default()
    };
    let api = run(&app, move |c| {
        components::create_component(c, &page_id, &api)
    })
    .await
    .unwrap();
    let web = component(&app, &read.id, "Website").await;
    let dns = NewComponentInput {
        name: "DNS".into(),
        position: Some(5),
        ..Default::default()
    };
    let page_id = read.id.clone();
    let dns = run(&app, move |c| {
        components::create_component(c, &page_id, &dns)
    })
    .await
    .unwrap();

    assert_eq!(
        (api.position, web.position, dns.position),
        (0, 1, 5),
        "positions default to last"
    );
    assert_eq!(api.status, ComponentStatus::DegradedPerformance);
    assert_eq!(api.region.as_deref(), Some("eu-west-1"));
    let page_id = read.id.clone();
    let tree = run(&app, move |c| components::list_components(c, &page_id))
        .await
        .unwrap();
    assert_eq!(
        tree.entries,
        vec![
            ComponentEntry::Component(web.clone()),
            ComponentEntry::Group {
                group: group.clone(),
                components: vec![api.clone()]
            },
            ComponentEntry::Component(dns.clone()),
        ],
        "groups and ungrouped components merge by position"
    );

    let changes = UpdateComponentInput {
        name: Some("Web app".into()),
        group_id: Some(Some(group.id.to_string())),
        position: Some(7),
        region: Some(None),
        ..Default::default()
    };
    let web_id = web.id.clone();
    let web = run(&app, move |c| {
        components::update_component(c, &web_id, &changes)
    })
    .await
    .unwrap();
    assert_eq!(
        (web.name.as_str(), web.group_id.as_deref(), web.position),
        ("Web app", Some(group.id.as_str()), 7)
    );
    let page_id = read.id.clone();
    let tree = run(&app, move |c| components::list_components(c, &page_id))
        .await
        .unwrap();
    let names: Vec<&str> = tree.components().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["API", "Web app", "DNS"]);
}

async fn bad_page_settings_each_answer_a_field_error_and_write_nothing(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let valid = || NewPageInput {
        slug: "acme".into(),
        name: "Acme".into(),
        ..Default::default()
    };
    let cases: Vec<(&str, NewPageInput, &str)> = vec![
        (
            "slug",
            NewPageInput {
                slug: "Acme Cloud".into(),
                ..valid()
            },
            "uppercase letter 'A'",
        ),
        (
            "slug",
            NewPageInput {
                slug: "admin".into(),
                ..valid()
            },
            "reserved",
        ),
        (
            "name",
            NewPageInput {
                name: "   ".into(),
                ..valid()
            },
            "must not be blank",
        ),
        (
            "time_zone",
            NewPageInput {
                time_zone: Some("Mars/Olympus".into()),
                ..valid()
            },
            "not a known time zone",
        ),
        (
            "next_update_intervals",
            NewPageInput {
                next_update_intervals: Some(NextUpdateIntervals {
                    minor: Some(2),
                    ..NextUpdateIntervals::default()
                }),
                ..valid()
            },
            "next_update_minor_mins must be between 5 and 1440 minutes, got 2",
        ),
        (
            "support_email",
            NewPageInput {
                support_email: Some("ops-at-acme".into()),
                ..valid()
            },
            "not a valid email",
        ),
        (
            "public_url",
            NewPageInput {
                public_url: Some("status.acme".into()),
                ..valid()
            },
            "absolute http(s) URL",
        ),
        (
            "custom_domain",
            NewPageInput {
                custom_domain: Some("acme".into()),
                ..valid()
            },
            "not a host name",
        ),
    ];
    for (field, input, message) in cases {
        let fields = field_errors(run(&app, move |c| pages::create_page(c, &input)).await);
        assert_eq!(fields.keys().collect::<Vec<_>>(), [field], "{fields:?}");
        assert!(
            fields[field][0].contains(message),
            "{field}: {:?}",
            fields[field]
        );
    }
    let all_bad = NewPageInput {
        slug: "-".into(),
        name: String::new(),
        time_zone: Some("Nowhere".into()),
        support_email: Some("@".into()),
        ..Default::default()
    };
    let fields = field_errors(run(&app, move |c| pages::create_page(c, &all_bad)).await);
    assert_eq!(
        fields.keys().collect::<Vec<_>>(),
        ["name", "slug", "support_email", "time_zone"],
        "all at once"
    );
    assert!(
        run(&app, pages::list_pages).await.unwrap().is_empty(),
        "nothing was written"
    );

    let page = super::page(&app, "acme").await;
    let bad = UpdatePageInput {
        time_zone: Some("Moon/Base".into()),
        name: Some("Renamed".into()),
        ..Default::default()
    };
    let id = page.id.clone();
    let fields = field_errors(run(&app, move |c| pages::update_page(c, &id, &bad)).await);
    assert!(fields.contains_key("time_zone"));
    assert_eq!(
        run(&app, pages::list_pages).await.unwrap(),
        vec![page],
        "a refused update changes nothing"
    );
}

async fn a_taken_slug_is_a_field_error_and_making_a_page_default_takes_the_flag_from_the_others(
    db: TestDb,
) {
    let app = TestApp::spawn(db).await;
    let first = page(&app, "acme").await;
    let second = page(&app, "beta").await;
    assert!(first.is_default && !second.is_default);
    let taken = NewPageInput {
        slug: "acme".into(),
        name: "Other".into(),
        ..Default::default()
    };
    let fields = match run(&app, move |c| pages::create_page(c, &taken)).await {
        Err(AppError::Taken(fields)) => fields,
        other => panic!("a taken slug is a conflict naming the field, got {other:?}"),
    };
    assert!(
        fields["slug"][0].contains("already used by another page"),
        "{fields:?}"
    );

    let make_default = UpdatePageInput {
        is_default: Some(true),
        description: Some(Some("Beta products".into())),
        next_update_intervals: Some(NextUpdateIntervals {
            none: None,
            minor: None,
            major: Some(20),
            critical: Some(10),
        }),
        ..Default::default()
    };
    let id = second.id.clone();
    let second = run(&app, move |c| pages::update_page(c, &id, &make_default))
        .await
        .unwrap();
    assert!(second.is_default);
    assert_eq!(second.description.as_deref(), Some("Beta products"));
    assert_eq!(pages::page_intervals(&second).major, Some(20));
    assert_eq!(pages::page_intervals(&second).minor, None);
    let listed = run(&app, pages::list_pages).await.unwrap();
    let flags: Vec<(&str, bool)> = listed
        .iter()
        .map(|p| (p.slug.as_str(), p.is_default))
        .collect();
    assert_eq!(
        flags,
        [("beta", true), ("acme", false)],
        "exactly one default, listed first"
    );

    let clear = UpdatePageInput {
        description: Some(None),
        slug: Some("acme".into()),
        ..Default::default()
    };
    let id = second.id.clone();
    match run(&app, move |c| pages::update_page(c, &id, &clear)).await {
        Err(AppError::Taken(fields)) => assert!(fields.contains_key("slug"), "{fields:?}"),
        other => panic!("the other page's slug stays taken, got {other:?}"),
    }
}

async fn a_component_status_change_is_recorded_in_its_history_only_when_it_changes(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let clock = Clock::new();
    let page = page(&app, "acme").await;
    let api = component(&app, &page.id, "API").await;
    for status in [
        ComponentStatus::PartialOutage,
        ComponentStatus::PartialOutage,
        ComponentStatus::Operational,
    ] {
        let id = api.id.clone();
        let changed = run(&app, move |c| {
            components::set_component_status(c, &id, status, None)
        })
        .await
        .unwrap();
        assert_eq!(changed.status, status);
    }
    assert_eq!(
        reload(&app, &api).await.status,
        ComponentStatus::Operational
    );
    let (id, from, until) = (api.id.clone(), clock.at(-60), clock.at(60));
    let history = run(&app, move |c| {
        components::component_history(c, &id, from, until)
    })
    .await
    .unwrap();
    let steps: Vec<_> = history
        .iter()
        .map(|h| (h.old_status, h.new_status))
        .collect();
    use ComponentStatus::*;
    assert_eq!(
        steps,
        [
            (None, Operational),
            (Some(Operational), PartialOutage),
            (Some(PartialOutage), Operational)
        ],
        "the creation row, then one row per real change"
    );
    assert!(history.iter().all(|h| h.incident_id.is_none()));
    let (id, from, until) = (api.id.clone(), clock.at(30), clock.at(90));
    let later = run(&app, move |c| {
        components::component_history(c, &id, from, until)
    })
    .await
    .unwrap();
    assert_eq!(
        later,
        history[2..],
        "a later window starts with the status in effect at its start"
    );
}

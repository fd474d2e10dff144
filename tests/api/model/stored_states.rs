//! The states stored as text read back as the types they were written as, on each backend,
//! and a stored text that is no state is refused at read time.

use diesel::prelude::*;
use diesel::sql_types::Text;
use herald::db::states::{Channel, DeliveryState, SubscriberState};
use herald::domain::{
    ComponentStatus, FollowUpState, Impact, IncidentKind, IncidentStatus, LifecycleStatus,
    MaintenanceStatus, Role,
};

use crate::helpers::{TestApp, TestDb};

on_both_backends!(
    every_stored_state_reads_back_as_written_and_an_unknown_one_is_refused,
    the_domains_vocabularies_read_back_as_written_and_a_corrupt_status_fails_the_read
);

async fn every_stored_state_reads_back_as_written_and_an_unknown_one_is_refused(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let (deliveries, subscribers, channels, refused) = app
        .db
        .run(|c| {
            let deliveries = DeliveryState::ALL
                .iter()
                .map(|s| diesel::select(s.into_sql::<Text>()).get_result::<DeliveryState>(c))
                .collect::<QueryResult<Vec<_>>>()?;
            let subscribers = SubscriberState::ALL
                .iter()
                .map(|s| diesel::select(s.into_sql::<Text>()).get_result::<SubscriberState>(c))
                .collect::<QueryResult<Vec<_>>>()?;
            let channels = Channel::ALL
                .iter()
                .map(|s| diesel::select(s.into_sql::<Text>()).get_result::<Channel>(c))
                .collect::<QueryResult<Vec<_>>>()?;
            // The text the database holds, as a backend reads it.
            let stored = diesel::select(SubscriberState::Confirmed.into_sql::<Text>())
                .get_result::<String>(c)?;
            let refused = diesel::select("gone".into_sql::<Text>())
                .get_result::<SubscriberState>(c)
                .map_err(|e| format!("{e:?}"));
            assert_eq!(stored, "confirmed");
            Ok((deliveries, subscribers, channels, refused))
        })
        .await
        .unwrap();
    assert_eq!(deliveries, DeliveryState::ALL);
    assert_eq!(subscribers, SubscriberState::ALL);
    assert_eq!(channels, Channel::ALL);
    let refused = refused.expect_err("an unknown state is refused");
    assert!(refused.contains("not a SubscriberState"), "{refused}");
}

/// Each value of `$all`, written as text and read back through the backend as `$ty`.
macro_rules! round_trip {
    ($c:expr, $ty:ty, $all:expr) => {
        $all.iter()
            .map(|v| diesel::select(v.into_sql::<Text>()).get_result::<$ty>($c))
            .collect::<QueryResult<Vec<$ty>>>()
    };
}

async fn the_domains_vocabularies_read_back_as_written_and_a_corrupt_status_fails_the_read(
    db: TestDb,
) {
    let app = TestApp::spawn(db).await;
    let lifecycle: Vec<LifecycleStatus> = IncidentStatus::ALL
        .iter()
        .map(|s| LifecycleStatus::from(*s))
        .chain(
            MaintenanceStatus::ALL
                .iter()
                .map(|s| LifecycleStatus::from(*s)),
        )
        .collect();
    let expected = lifecycle.clone();
    let read = app
        .db
        .run(move |c| {
            assert_eq!(
                round_trip!(c, ComponentStatus, ComponentStatus::ALL)?,
                ComponentStatus::ALL
            );
            assert_eq!(round_trip!(c, Impact, Impact::ALL)?, Impact::ALL);
            assert_eq!(
                round_trip!(c, IncidentKind, IncidentKind::ALL)?,
                IncidentKind::ALL
            );
            assert_eq!(round_trip!(c, Role, Role::ALL)?, Role::ALL);
            assert_eq!(
                round_trip!(c, FollowUpState, FollowUpState::ALL)?,
                FollowUpState::ALL
            );
            let stored = diesel::select(ComponentStatus::MajorOutage.into_sql::<Text>())
                .get_result::<String>(c)?;
            assert_eq!(stored, "major_outage", "stored as its name");
            let refused = diesel::select("fixed".into_sql::<Text>())
                .get_result::<LifecycleStatus>(c)
                .map_err(|e| format!("{e:?}"));
            Ok((round_trip!(c, LifecycleStatus, lifecycle)?, refused))
        })
        .await
        .unwrap();
    assert_eq!(read.0, expected);
    let refused = read
        .1
        .expect_err("a status of neither vocabulary is refused");
    assert!(
        refused.contains(r#"value: "fixed""#) && refused.contains("incident or maintenance status"),
        "{refused}"
    );
}

//! The states stored as text read back as the types they were written as, on each backend,
//! and a stored text that is no state is refused at read time.

use diesel::prelude::*;
use diesel::sql_types::Text;
use herald::db::states::{Channel, DeliveryState, SubscriberState};

use crate::helpers::{TestApp, TestDb};

on_both_backends!(every_stored_state_reads_back_as_written_and_an_unknown_one_is_refused);

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

//! The outcome policy: what becomes of a delivery after an attempt, from the attempt, what the
//! delivery went through before, and the engine's policy. Pure: no database, no clock.

use super::*;

/// What a delivery went through before this attempt.
#[derive(Debug, Clone, Copy)]
pub(super) struct History<'a> {
    /// Attempts counted before this one.
    pub attempts: i32,
    /// The error of the last attempt, if any.
    pub last_error: Option<&'a str>,
    /// When the delivery's event was made (`None` when its id does not tell).
    pub event_at: Option<NaiveDateTime>,
    pub channel: Channel,
}

impl<'a> History<'a> {
    /// The history of a claimed delivery.
    pub(super) fn of(delivery: &'a ClaimedDelivery) -> Self {
        Self {
            attempts: delivery.attempts,
            last_error: delivery.last_error.as_deref(),
            event_at: event_time(&delivery.event_id),
            channel: delivery.channel,
        }
    }
}

/// What becomes of a delivery at `at` after `attempt` (`None`: it was not attempted, because
/// its subscriber is gone or may no longer be sent to), given its `history` and the engine's
/// `policy` (attempts, backoff, probing, giving up).
pub(super) fn outcome(
    attempt: Option<&Attempt>,
    history: &History<'_>,
    policy: &EngineConfig,
    at: NaiveDateTime,
) -> Outcome {
    let later = |wait: Duration| at + chrono::Duration::from_std(wait).unwrap_or_default();
    let attempts = history.attempts + 1;
    let given_up = || {
        history
            .event_at
            .is_some_and(|t| at - t >= policy.give_up_after)
    };
    let Some(attempt) = attempt else {
        return Outcome {
            state: DeliveryState::Skipped,
            next_attempt_at: at,
            counted: false,
            error: None,
            waiting: None,
        };
    };
    match attempt {
        // Waited for a destination that could not be reached for as long as retries could
        // take: ends as a failing destination's deliveries do.
        Attempt::Deferred {
            waiting: Waiting::HostDown | Waiting::MailServerDown,
            ..
        }
        | Attempt::Unreachable { .. }
            if given_up() =>
        {
            Outcome {
                state: DeliveryState::Dead,
                next_attempt_at: at,
                counted: true,
                error: Some(format!(
                    "the destination could not be reached for {} hours{}",
                    policy.give_up_after.num_hours(),
                    attempt
                        .error()
                        .or(history.last_error)
                        .map(|e| format!(": {e}"))
                        .unwrap_or_default()
                )),
                waiting: None,
            }
        }
        // Not attempted (found unreachable while shutting down): the next process tries it.
        Attempt::Unreachable { error } => Outcome {
            state: DeliveryState::Pending,
            next_attempt_at: later(policy.probe_every),
            counted: false,
            error: Some(error.clone()),
            waiting: Some(if history.channel == Channel::Email {
                Waiting::MailServerDown
            } else {
                Waiting::HostDown
            }),
        },
        Attempt::Deferred { after, waiting } => Outcome {
            state: DeliveryState::Pending,
            next_attempt_at: later(*after),
            counted: false,
            error: history.last_error.map(str::to_owned),
            waiting: Some(*waiting),
        },
        Attempt::Retry { retry_after, error } if attempts < policy.max_attempts => Outcome {
            state: DeliveryState::Pending,
            next_attempt_at: later(
                policy
                    .backoff
                    .next(history.attempts.max(0) as u32, *retry_after),
            ),
            counted: true,
            error: Some(error.clone()),
            waiting: None,
        },
        Attempt::Retry { error, .. } => Outcome {
            state: DeliveryState::Dead,
            next_attempt_at: at,
            counted: true,
            error: Some(error.clone()),
            waiting: None,
        },
        Attempt::Failed { error } => Outcome {
            state: DeliveryState::Failed,
            next_attempt_at: at,
            counted: true,
            error: Some(error.clone()),
            waiting: None,
        },
        Attempt::Delivered => Outcome {
            state: DeliveryState::Delivered,
            next_attempt_at: at,
            counted: true,
            error: None,
            waiting: None,
        },
    }
}

/// Notes of one cause (what they wait for, the error) merged, so each cause is one statement.
pub(super) fn same_cause(
    notes: Vec<(Vec<String>, Waiting, String)>,
) -> Vec<(Vec<String>, Waiting, String)> {
    let mut merged: Vec<(Vec<String>, Waiting, String)> = Vec::new();
    for (ids, waiting, error) in notes {
        match merged
            .iter_mut()
            .find(|(_, w, e)| *w == waiting && *e == error)
        {
            Some((all, ..)) => all.extend(ids),
            None => merged.push((ids, waiting, error)),
        }
    }
    merged
}

/// When the event `event_id` was made (its id is a UUIDv7).
pub(super) fn event_time(event_id: &str) -> Option<NaiveDateTime> {
    let (secs, nanos) = uuid::Uuid::parse_str(event_id)
        .ok()?
        .get_timestamp()?
        .to_unix();
    Some(chrono::DateTime::from_timestamp(i64::try_from(secs).ok()?, nanos)?.naive_utc())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> NaiveDateTime {
        chrono::DateTime::from_timestamp(1_800_000_000, 0)
            .unwrap()
            .naive_utc()
    }

    /// A delivery with `attempts` counted, its last error, made `age` before [`at`].
    fn history(attempts: i32, age: chrono::Duration, channel: Channel) -> History<'static> {
        History {
            attempts,
            last_error: Some("connection refused"),
            event_at: Some(at() - age),
            channel,
        }
    }

    fn fresh() -> History<'static> {
        history(0, chrono::Duration::minutes(1), Channel::Webhook)
    }

    fn decide(attempt: Option<Attempt>, history: &History<'_>) -> Outcome {
        outcome(attempt.as_ref(), history, &EngineConfig::default(), at())
    }

    #[test]
    fn a_delivery_not_attempted_is_skipped_and_not_counted() {
        let o = decide(None, &fresh());
        assert_eq!(
            (o.state, o.counted, o.next_attempt_at),
            (DeliveryState::Skipped, false, at())
        );
    }

    #[test]
    fn delivered_is_final_and_counted() {
        let o = decide(Some(Attempt::Delivered), &fresh());
        assert_eq!(
            (o.state, o.counted, o.error),
            (DeliveryState::Delivered, true, None)
        );
    }

    #[test]
    fn a_refusal_fails_for_good_with_its_error() {
        let error = "410 Gone".to_owned();
        let o = decide(
            Some(Attempt::Failed {
                error: error.clone(),
            }),
            &fresh(),
        );
        assert_eq!(
            (o.state, o.counted, o.error),
            (DeliveryState::Failed, true, Some(error))
        );
    }

    #[test]
    fn a_retry_waits_what_the_receiver_asked_and_counts() {
        let retry = Attempt::Retry {
            retry_after: Some(Duration::from_secs(120)),
            error: "503".into(),
        };
        let o = decide(Some(retry), &fresh());
        assert_eq!(o.state, DeliveryState::Pending);
        assert!(o.counted);
        assert_eq!(o.next_attempt_at, at() + chrono::Duration::seconds(120));
        assert_eq!(o.waiting, None);
    }

    #[test]
    fn a_retry_without_retry_after_backs_off_within_the_cap() {
        let retry = Attempt::Retry {
            retry_after: None,
            error: "timeout".into(),
        };
        let cap = EngineConfig::default().backoff.cap;
        let o = decide(
            Some(retry),
            &history(3, chrono::Duration::minutes(5), Channel::Email),
        );
        assert_eq!(o.state, DeliveryState::Pending);
        assert!(o.next_attempt_at >= at());
        assert!(o.next_attempt_at <= at() + chrono::Duration::from_std(cap).unwrap());
    }

    #[test]
    fn the_last_allowed_retry_is_dead() {
        let max = EngineConfig::default().max_attempts;
        let retry = Attempt::Retry {
            retry_after: None,
            error: "500".into(),
        };
        let before_last = history(max - 2, chrono::Duration::minutes(5), Channel::Webhook);
        assert_eq!(
            decide(Some(retry.clone()), &before_last).state,
            DeliveryState::Pending
        );
        let last = history(max - 1, chrono::Duration::minutes(5), Channel::Webhook);
        let o = decide(Some(retry), &last);
        assert_eq!((o.state, o.counted), (DeliveryState::Dead, true));
        assert_eq!(o.error.as_deref(), Some("500"));
    }

    #[test]
    fn a_deferral_waits_without_counting_and_keeps_the_last_error() {
        let deferred = Attempt::Deferred {
            after: Duration::from_secs(30),
            waiting: Waiting::HostQueue,
        };
        let o = decide(Some(deferred), &fresh());
        assert_eq!((o.state, o.counted), (DeliveryState::Pending, false));
        assert_eq!(o.next_attempt_at, at() + chrono::Duration::seconds(30));
        assert_eq!(o.waiting, Some(Waiting::HostQueue));
        assert_eq!(o.error.as_deref(), Some("connection refused"));
    }

    #[test]
    fn an_unreachable_destination_is_probed_again_by_channel_without_counting() {
        let unreachable = || Attempt::Unreachable {
            error: "no route".into(),
        };
        let probe = chrono::Duration::from_std(EngineConfig::default().probe_every).unwrap();
        let webhook = decide(Some(unreachable()), &fresh());
        assert_eq!(
            (webhook.state, webhook.counted),
            (DeliveryState::Pending, false)
        );
        assert_eq!(webhook.next_attempt_at, at() + probe);
        assert_eq!(webhook.waiting, Some(Waiting::HostDown));
        let mail = history(0, chrono::Duration::minutes(1), Channel::Email);
        assert_eq!(
            decide(Some(unreachable()), &mail).waiting,
            Some(Waiting::MailServerDown)
        );
    }

    #[test]
    fn a_destination_down_for_longer_than_retries_take_ends_dead_and_counted() {
        let give_up = EngineConfig::default().give_up_after;
        let old = history(2, give_up, Channel::Webhook);
        let o = decide(
            Some(Attempt::Unreachable {
                error: "no route".into(),
            }),
            &old,
        );
        assert_eq!((o.state, o.counted), (DeliveryState::Dead, true));
        let error = o.error.unwrap();
        assert!(
            error.starts_with("the destination could not be reached for 6 hours"),
            "{error}"
        );
        assert!(error.ends_with(": no route"), "{error}");
        let waited = Attempt::Deferred {
            after: Duration::from_secs(5),
            waiting: Waiting::MailServerDown,
        };
        let o = decide(Some(waited), &old);
        assert_eq!(o.state, DeliveryState::Dead);
        assert!(
            o.error.unwrap().ends_with(": connection refused"),
            "the last error"
        );
        // Busy is not down: a deferral for a busy host never gives up.
        let busy = Attempt::Deferred {
            after: Duration::from_secs(5),
            waiting: Waiting::HostQueue,
        };
        assert_eq!(decide(Some(busy), &old).state, DeliveryState::Pending);
        // An event whose age is unknown is never given up on.
        let unknown = History {
            event_at: None,
            ..old
        };
        let o = decide(Some(Attempt::Unreachable { error: "x".into() }), &unknown);
        assert_eq!(o.state, DeliveryState::Pending);
    }

    #[test]
    fn the_event_time_is_read_from_its_uuid_v7() {
        let id = uuid::Uuid::now_v7().to_string();
        let t = event_time(&id).expect("a v7 id has a time");
        let now = chrono::Utc::now().naive_utc();
        assert!((now - t).num_seconds().abs() < 5);
        assert_eq!(event_time("not-a-uuid"), None);
    }

    #[test]
    fn notes_of_one_cause_are_merged() {
        let notes = vec![
            (vec!["a".into()], Waiting::HostDown, "e".into()),
            (vec!["b".into()], Waiting::HostDown, "e".into()),
            (vec!["c".into()], Waiting::HostQueue, "e".into()),
        ];
        let merged = same_cause(notes);
        assert_eq!(merged.len(), 2);
        assert_eq!(merged[0].0, vec!["a".to_owned(), "b".to_owned()]);
    }
}

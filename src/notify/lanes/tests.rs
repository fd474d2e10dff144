use super::*;

fn host(name: &str) -> Dest {
    Dest::Host(name.to_owned())
}

fn lanes() -> Lanes<u32> {
    Lanes::new(LaneConfig {
        relay_sessions: 2,
        per_host: 2,
        max_share: 100,
        probe_every: Duration::from_secs(5),
        horizon: Duration::from_secs(1),
    })
}

#[test]
fn each_destination_has_its_own_cap_in_flight() {
    let mut l = lanes();
    let now = Instant::now();
    for job in 0..5 {
        l.offer(host("a"), job, now).unwrap();
        l.offer(host("b"), 10 + job, now).unwrap();
    }
    let a: Vec<u32> = std::iter::from_fn(|| l.next(&host("a"), now).map(|(j, _)| j)).collect();
    assert_eq!(a, vec![0, 1], "two in flight to a, in order");
    // a's full lane does not stop b.
    let (b, _) = l.next(&host("b"), now).unwrap();
    assert_eq!(b, 10);
    assert_eq!(l.startable(now), vec![host("b")]);
}

#[test]
fn a_finished_send_makes_room_for_the_next_of_its_lane() {
    let mut l = lanes();
    let now = Instant::now();
    for job in 0..3 {
        l.offer(host("a"), job, now).unwrap();
    }
    let (_, first) = l.next(&host("a"), now).unwrap();
    l.next(&host("a"), now).unwrap();
    assert!(l.next(&host("a"), now).is_none());
    let later = now + Duration::from_millis(5);
    assert_eq!(
        l.done(&host("a"), first, later, Reach::Reached),
        Verdict::Record
    );
    assert_eq!(l.next(&host("a"), later).map(|(j, _)| j), Some(2));
}

#[test]
fn a_fast_host_holds_the_whole_share_and_a_slow_one_sheds_the_excess() {
    let mut l = lanes();
    let now = Instant::now();
    // Pace unknown: the whole share (100) is taken, the 101st is handed back.
    for job in 0..100 {
        l.offer(host("fast"), job, now).unwrap();
        l.offer(host("slow"), job, now).unwrap();
    }
    assert!(l.offer(host("fast"), 100, now).is_err());
    // fast answers in 1 ms: 2 connections x 1000 per second, capped at 100.
    let (_, t) = l.next(&host("fast"), now).unwrap();
    let now = now + Duration::from_millis(1);
    l.done(&host("fast"), t, now, Reach::Reached);
    // slow has two sends out for 2 s: its share falls to two rounds of its cap.
    l.next(&host("slow"), now).unwrap();
    l.next(&host("slow"), now).unwrap();
    let later = now + Duration::from_secs(2);
    let shed = l.shed(later);
    assert_eq!(shed.len(), 96, "slow keeps 2 in flight and 2 queued");
    assert!(shed.iter().all(|(_, wait)| *wait >= Duration::from_secs(2)));
    assert_eq!(
        shed.iter().map(|(j, _)| *j).max(),
        Some(99),
        "the last taken go first"
    );
    assert!(l.offer(host("slow"), 500, later).is_err());
    // fast has sent one of its 100 and may take one more.
    assert!(l.offer(host("fast"), 500, later).is_ok());
    assert!(l.offer(host("fast"), 501, later).is_err());
}

#[test]
fn an_unreachable_destination_is_one_outage_probed_until_it_answers() {
    let mut l = lanes();
    let now = Instant::now();
    for job in 0..4 {
        l.offer(Dest::Relay, job, now).unwrap();
    }
    let (j0, t0) = l.next(&Dest::Relay, now).unwrap();
    let (j1, t1) = l.next(&Dest::Relay, now).unwrap();
    let at = now + Duration::from_millis(10);
    assert_eq!(
        l.done(&Dest::Relay, t0, at, Reach::Unreachable(j0)),
        Verdict::Held { started: true }
    );
    assert_eq!(
        l.done(&Dest::Relay, t1, at, Reach::Unreachable(j1)),
        Verdict::Held { started: false }
    );
    assert!(l.is_down(&Dest::Relay));
    assert_eq!(l.down(), (1, 0));
    // Nothing goes until the probe is due; then exactly one, the oldest job.
    assert!(l.next(&Dest::Relay, at + Duration::from_secs(4)).is_none());
    let probe_at = at + Duration::from_secs(5);
    assert_eq!(l.startable(probe_at), vec![Dest::Relay]);
    let (probe, t) = l.next(&Dest::Relay, probe_at).unwrap();
    assert!(probe < 2, "a job that could not go goes first");
    assert!(
        l.next(&Dest::Relay, probe_at).is_none(),
        "one probe at a time"
    );
    // It fails: the next probe is 5 s later.
    l.done(&Dest::Relay, t, probe_at, Reach::Unreachable(probe));
    let (probe, t) = l
        .next(&Dest::Relay, probe_at + Duration::from_secs(5))
        .unwrap();
    let back = probe_at + Duration::from_secs(6);
    assert_eq!(
        l.done(&Dest::Relay, t, back, Reach::Reached),
        Verdict::Recovered { lasted: back - now }
    );
    assert!(probe < 2);
    // Over: the lane sends at its full cap again.
    assert!(!l.is_down(&Dest::Relay));
    assert!(l.next(&Dest::Relay, back).is_some());
    assert!(l.next(&Dest::Relay, back).is_some());
    assert_eq!(l.queued().count(), 1);
}

#[test]
fn a_host_in_an_outage_holds_one_round_and_sheds_the_rest_for_later() {
    let mut l = lanes();
    let now = Instant::now();
    for job in 0..10 {
        l.offer(host("down"), job, now).unwrap();
    }
    let (job, t) = l.next(&host("down"), now).unwrap();
    l.done(&host("down"), t, now, Reach::Unreachable(job));
    let shed = l.shed(now);
    assert_eq!(shed.len(), 8);
    assert!(
        shed.iter()
            .all(|(_, wait)| *wait == Duration::from_secs(30))
    );
    assert!(l.offer(host("down"), 11, now).is_err());
    // Others are not affected.
    assert!(!l.is_down(&host("up")));
    l.offer(host("up"), 1, now).unwrap();
    assert!(l.next(&host("up"), now).is_some());
}

#[test]
fn shutdown_takes_every_queued_job() {
    let mut l = lanes();
    let now = Instant::now();
    for job in 0..3 {
        l.offer(host("a"), job, now).unwrap();
    }
    l.next(&host("a"), now).unwrap();
    let mut left = l.take_queued();
    left.sort();
    assert_eq!(left, vec![1, 2]);
    assert_eq!(l.queued().count(), 0);
}

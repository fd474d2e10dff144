//! The durable fan-out engine. Each pass expands unexpanded events into delivery rows, a chunk
//! of subscribers at a time as room allows (the unique key makes this idempotent; the first
//! rows of a chunk are written leased to this engine and sent at once), claims due deliveries
//! with a lease (renewed while they are held, taken over by another process once it runs out),
//! sends them through per-destination [`lanes`](super::lanes) (each destination with its own
//! cap and nothing shared, so one slow or dead host never holds up the others, and mail never
//! waits behind webhooks) and records each outcome in batches. Claims and records run in the background, one database job at a time,
//! while the held deliveries keep going out.
//!
//! It wakes at once on a local write ([`NotifyHandle::wake`]) and polls for work written by
//! other processes. On shutdown it stops claiming, lets sends finish within the grace period,
//! records what finished and hands the rest back.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::NaiveDateTime;
use tokio::sync::Notify;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::lanes::{Dest, LaneConfig, Lanes, Reach, Ticket, Verdict};
use super::message::{self, Outgoing, Recipient};
use super::{EngineClock, content, events, reminders};
use crate::config::Settings;
use crate::db::models::notify::{self as rows, Audience, ClaimedDelivery, Outcome};
use crate::db::states::{Channel, DeliveryState, SubscriberState};
use crate::db::{Db, DbConn, write_tx};
use crate::delivery::backoff::Backoff;
use crate::delivery::mail::Mailer;
use crate::delivery::outbound::Policy;
use crate::delivery::webhook::WebhookClient;
use crate::delivery::{Attempt, Waiting};
use crate::error::AppResult;
use crate::secret::SecretKey;

/// SMTP sessions in flight at once (to the one configured relay).
const SMTP_SESSIONS: usize = 16;

/// Subscribers an event is expanded for at a time (one transaction each), at most...
const EXPAND_CHUNK: i64 = 2_000;
/// ...and at least (the chunk follows the engine's room: what it writes, it leases and starts).
const EXPAND_CHUNK_MIN: i64 = 256;
/// Events expanded a chunk of in one pass.
const EXPAND_EVENTS: i64 = 50;

/// Deliveries remembered per unreachable host, to send at once when it answers again (the
/// rest come due by their own deferral, within a minute).
const MAX_PARKED: usize = 10_000;

/// How often responders' reminders are looked for.
const REMINDER_TICK: Duration = Duration::from_secs(5);

/// Tuning of the engine.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Webhook deliveries claimed and not yet finished, at most (also what one fast host may
    /// hold).
    pub max_held: usize,
    /// Email deliveries claimed and not yet finished, at most (claimed apart from webhooks:
    /// the SMTP relay is one destination and slower, and must not take the webhooks' room).
    pub max_held_email: usize,
    /// How often the database is polled for work written by other processes.
    pub poll: Duration,
    /// How long a claim lasts unless renewed (a crashed process's claims are taken over then).
    pub lease: Duration,
    /// Attempts before a delivery is dead-lettered.
    pub max_attempts: i32,
    /// Consecutive failures after which a subscriber is quarantined...
    pub quarantine_after: i32,
    /// ...once they span at least this long.
    pub quarantine_window: chrono::Duration,
    pub backoff: Backoff,
    /// Time in-flight sends get at shutdown.
    pub grace: Duration,
    /// Where backoff, leases, quarantine and circuit breakers read the time.
    pub clock: EngineClock,
    /// Minutes before a promised update that responders are reminded.
    pub reminder_lead_minutes: u32,
    /// How often a destination that cannot be reached is tried again.
    pub probe_every: Duration,
    /// A delivery that waited for a destination that could not be reached is given up (dead)
    /// once its event is this old: twice what its retries could take, so a host gone for good
    /// ends as a host that fails does.
    pub give_up_after: chrono::Duration,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            max_held: 1024,
            max_held_email: SMTP_SESSIONS * 8,
            poll: crate::config::NOTIFY_POLL,
            lease: Duration::from_secs(30),
            max_attempts: 10,
            quarantine_after: 10,
            quarantine_window: chrono::Duration::minutes(50),
            backoff: Backoff::default(),
            grace: Duration::from_secs(30),
            clock: EngineClock::system(),
            reminder_lead_minutes: reminders::DEFAULT_LEAD_MINUTES,
            probe_every: Duration::from_secs(5),
            give_up_after: chrono::Duration::hours(6),
        }
    }
}

/// What the application holds of the notification system: the engine's wake-up and the
/// outbound policy handlers check webhook URLs with.
#[derive(Clone)]
pub struct NotifyHandle {
    /// Wakes the engine at once (a local write added an event).
    pub wake: Arc<Notify>,
    pub policy: Policy,
    /// Subscribe rate limits.
    pub limits: Arc<super::limits::SubscribeLimits>,
    /// The engine's clock (tests move it forward).
    pub clock: EngineClock,
}

impl NotifyHandle {
    /// A handle for `settings`.
    pub fn new(settings: &Settings) -> Self {
        Self {
            wake: Arc::new(Notify::new()),
            policy: Policy::from_settings(settings),
            limits: Arc::new(super::limits::SubscribeLimits::default()),
            clock: EngineClock::system(),
        }
    }
}

/// What sends: the relay's mailer and the webhook client (each destination's cap in flight is
/// its lane's, in the engine).
struct Sender {
    mailer: Option<Arc<Mailer>>,
    webhooks: WebhookClient,
}

impl Sender {
    /// Sends `outgoing` to `dest`; a deferral's cause is logged the first time it is met per
    /// destination.
    async fn send(&self, outgoing: &Outgoing, dest: &Dest) -> Attempt {
        let attempt = match outgoing {
            Outgoing::Email(mail) => match &self.mailer {
                Some(mailer) => mailer.send(mail).await,
                None => Attempt::Deferred {
                    after: Duration::from_secs(60),
                    waiting: Waiting::MailServer,
                },
            },
            Outgoing::Webhook(req) => self.webhooks.send(req).await,
        };
        if let Attempt::Deferred { waiting, .. } = &attempt {
            waiting.log_once(dest.name());
        }
        attempt
    }
}

/// A delivery held by the engine, ready to send: waits in its destination's lane.
struct Job {
    delivery: ClaimedDelivery,
    content: Arc<content::EventContent>,
    subscriber: rows::Addressee,
    recipient: Recipient,
    /// Whether a failure counts against the subscriber (not for notices to one subscriber).
    counts: bool,
}

impl Job {
    fn finished(self, attempt: Option<Attempt>) -> Finished {
        Finished {
            had_failures: self.subscriber.consecutive_failures > 0,
            delivery: self.delivery,
            attempt,
            counts: self.counts,
        }
    }
}

/// A send that came back: its lane's ticket, the job, what the attempt made.
struct Sent {
    dest: Dest,
    ticket: Ticket,
    job: Job,
    attempt: Attempt,
}

/// The result of one dispatched delivery.
struct Finished {
    delivery: ClaimedDelivery,
    /// `None`: not sent, because nobody should receive it any more (unsubscribed, ...).
    attempt: Option<Attempt>,
    /// Whether a failure counts against the subscriber (not for notices to one subscriber).
    counts: bool,
    /// Whether the subscriber had failures counted when claimed (a delivery resets them).
    had_failures: bool,
}

impl Finished {
    fn delivered(&self) -> bool {
        self.attempt == Some(Attempt::Delivered)
    }
}

/// Runs the engine until `stop` is cancelled, then drains.
pub async fn run(
    db: Db,
    settings: Arc<Settings>,
    secret: SecretKey,
    handle: NotifyHandle,
    config: EngineConfig,
    stop: CancellationToken,
) {
    // Says at start whether and where mail goes out.
    let mailer = match Mailer::from_settings(&settings) {
        Ok(mailer) => mailer.map(Arc::new),
        Err(e) => {
            tracing::error!(error = %e, "HERALD_SMTP_URL: email notifications are held");
            None
        }
    };
    let mailbook = match content::Mailbook::load() {
        Ok(book) => Arc::new(book),
        Err(e) => {
            tracing::error!(error = ?e, "email templates do not load; notifications stopped");
            return;
        }
    };
    let sender = Arc::new(Sender {
        mailer,
        webhooks: WebhookClient::with_clock(handle.policy.clone(), Arc::new(config.clock.clone())),
    });
    let lanes = Lanes::new(LaneConfig {
        relay_sessions: SMTP_SESSIONS,
        per_host: handle.policy.per_host_concurrency.max(1),
        max_share: config.max_held,
        probe_every: config.probe_every,
        horizon: Duration::from_secs(1),
    });
    let links = message::Links {
        base_url: settings.public_url.clone(),
        key: secret,
    };
    let mut engine = Engine {
        db,
        worker: crate::jobs::runner::worker_id(),
        config,
        sender,
        mailbook,
        links: Arc::new(links),
        cache: HashMap::new(),
        tasks: JoinSet::new(),
        in_flight: HashMap::new(),
        lanes,
        held_count: [0; 2],
        stopping: false,
        finished: Vec::new(),
        notes: Vec::new(),
        parked: HashMap::new(),
        unparked: Vec::new(),
        db_jobs: JoinSet::new(),
        due: [true; 2],
    };
    tracing::info!(worker = %engine.worker, "notification engine started");
    engine.serve(&handle.wake, &stop).await;
    engine.drain().await;
}

struct Engine {
    db: Db,
    worker: String,
    config: EngineConfig,
    sender: Arc<Sender>,
    mailbook: Arc<content::Mailbook>,
    links: Arc<message::Links>,
    cache: HashMap<String, Option<Arc<content::EventContent>>>,
    tasks: JoinSet<Sent>,
    /// Sends in flight: task id -> (delivery id, destination, its ticket, channel).
    in_flight: HashMap<tokio::task::Id, (String, Dest, Ticket, Channel)>,
    /// Held deliveries not in flight wait in their destination's lane.
    lanes: Lanes<Job>,
    /// Deliveries held per channel (in lanes and in flight).
    held_count: [usize; 2],
    /// Set once draining: a destination found unreachable no longer holds its deliveries.
    stopping: bool,
    finished: Vec<Finished>,
    /// Held deliveries to mark as waiting for a destination that cannot be reached (recorded
    /// with the next batch of outcomes).
    notes: Vec<(Vec<String>, Waiting, String)>,
    /// Deliveries put back to the database while their host could not be reached, per host
    /// (at most [`MAX_PARKED`] each): made due at once when it answers again.
    parked: HashMap<Dest, Vec<String>>,
    /// Parked deliveries to make due (recorded with the next batch of outcomes).
    unparked: Vec<String>,
    /// The claim or flush under way: it runs beside the sends, so the deliveries held keep
    /// going out while the database records the last batch or hands over the next.
    db_jobs: JoinSet<DbDone>,
    /// Per channel: whether deliveries may be due (cleared when a claim comes back short,
    /// set again on a wake-up or a poll).
    due: [bool; 2],
}

/// What a claim hands over: the deliveries, their subscribers and the events' content.
type Claimed = (
    Vec<ClaimedDelivery>,
    Vec<rows::Addressee>,
    HashMap<String, Option<Arc<content::EventContent>>>,
);

/// What an expansion step did: (leased, written), whether there is more, what was leased.
type Expanded = ((usize, usize), bool, Claimed);

/// A finished background database job.
enum DbDone {
    /// An expansion step: when it started, and what it did.
    Expanded(std::time::Instant, AppResult<Expanded>),
    /// What was asked of each channel, and what came.
    Claimed(Vec<(Channel, usize)>, AppResult<Claimed>),
    Flushed,
}

impl Engine {
    async fn serve(&mut self, wake: &Notify, stop: &CancellationToken) {
        let mut expand = true;
        // Expansion keeps pace with sending: a step is taken when there is room to lease what
        // it writes, and at least on every wake-up and poll (so events are written out even
        // while sends are stuck on slow receivers).
        let mut forced = true;
        let mut last_flush = tokio::time::Instant::now();
        let mut last_renew = tokio::time::Instant::now();
        let mut last_reminders: Option<tokio::time::Instant> = None;
        // A poll every `poll` even while the loop is busy (a sleep made afresh each turn
        // would never end while sends keep finishing).
        let mut poll = tokio::time::interval(self.config.poll);
        poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        while !stop.is_cancelled() {
            // One database job at a time (SQLite has one writer; waiting on its lock costs
            // more than taking turns): expansion waits for the claim or record under way.
            if expand && self.db_jobs.is_empty() && (forced || self.has_room()) {
                forced = false;
                expand = false;
                self.expand();
            }
            // Then outcomes when due, then claims.
            if self.db_jobs.is_empty()
                && !(self.finished.is_empty() && self.notes.is_empty() && self.unparked.is_empty())
                && (self.finished.len() >= 256
                    || self.tasks.is_empty()
                    || last_flush.elapsed() >= Duration::from_millis(50))
            {
                self.flush();
                last_flush = tokio::time::Instant::now();
            }
            if self.db_jobs.is_empty() {
                let rooms: Vec<(Channel, usize)> = CHANNELS
                    .into_iter()
                    .filter(|c| self.due[*c as usize] && self.wants(*c))
                    .map(|c| (c, self.room(c)))
                    .collect();
                if !rooms.is_empty() {
                    self.claim(rooms);
                }
            }
            if last_reminders.is_none_or(|at| at.elapsed() >= REMINDER_TICK) {
                self.remind().await;
                last_reminders = Some(tokio::time::Instant::now());
            }
            if last_renew.elapsed() >= self.config.lease / 3 {
                self.renew().await;
                last_renew = tokio::time::Instant::now();
            }
            tokio::select! {
                _ = stop.cancelled() => break,
                _ = wake.notified() => {
                    expand = true;
                    forced = true;
                    self.due = [true; 2];
                }
                _ = poll.tick() => {
                    expand = true;
                    forced = true;
                    self.due = [true; 2];
                    self.tend_lanes();
                }
                Some(done) = self.db_jobs.join_next(), if !self.db_jobs.is_empty() => {
                    expand |= self.db_done(done);
                    while let Some(done) = self.db_jobs.try_join_next() {
                        expand |= self.db_done(done);
                    }
                }
                Some(done) = self.tasks.join_next_with_id(), if !self.tasks.is_empty() => {
                    self.finish(done);
                    while let Some(done) = self.tasks.try_join_next_with_id() {
                        self.finish(done);
                    }
                }
                // An event has more chunks to expand: on with it after what is ready.
                _ = std::future::ready(()), if expand && self.db_jobs.is_empty() && self.has_room() => {}
            }
        }
    }

    /// Takes in a finished claim or flush.
    /// Takes in a finished claim, flush or expansion step; answers whether an expansion has
    /// more to do.
    fn db_done(&mut self, done: Result<DbDone, tokio::task::JoinError>) -> bool {
        match done {
            Ok(DbDone::Expanded(started, result)) => return self.expanded(started, result),
            Ok(DbDone::Claimed(rooms, claimed)) => {
                // A channel that handed over less than asked has nothing more due until the
                // next wake-up or poll.
                for (channel, room) in rooms {
                    let got = claimed.as_ref().map_or(0, |(batch, ..)| {
                        batch.iter().filter(|d| d.channel == channel).count()
                    });
                    self.due[channel as usize] = got >= room;
                }
                self.claimed(claimed);
            }
            Ok(DbDone::Flushed) => {}
            // A panicked job: what it held is found again when the leases run out.
            Err(e) => {
                tracing::error!(error = %e, "a notification database job failed");
                self.due = [false; 2];
            }
        }
        false
    }

    /// Takes back a finished send: its outcome is recorded, or, when its destination could not
    /// be reached, it goes back to its lane, which holds it until a probe gets through.
    fn finish(&mut self, done: Result<(tokio::task::Id, Sent), tokio::task::JoinError>) {
        let now = std::time::Instant::now();
        let id = match &done {
            Ok((id, _)) => *id,
            Err(e) => e.id(),
        };
        let Some((_, dest, ticket, channel)) = self.in_flight.remove(&id) else {
            return;
        };
        let sent = match done {
            Ok((_, sent)) => sent,
            // A panicked send: its lease runs out and it is tried again.
            Err(e) => {
                tracing::error!(error = %e, "a delivery task failed");
                self.lanes.done(&dest, ticket, now, Reach::NotTried);
                self.release(channel);
                self.pump(&dest);
                return;
            }
        };
        let Sent {
            dest,
            ticket,
            job,
            attempt,
        } = sent;
        let verdict = match &attempt {
            Attempt::Unreachable { error } if !self.stopping => {
                let id = job.delivery.id.clone();
                let verdict = self.lanes.done(&dest, ticket, now, Reach::Unreachable(job));
                let waiting = self.waiting_for(&dest);
                // What the lane holds shows why it waits (all of it once, when the outage
                // begins; then each send found unreachable).
                let mut ids = vec![id];
                if verdict == (Verdict::Held { started: true }) {
                    ids.extend(self.lanes.queued_at(&dest).map(|j| j.delivery.id.clone()));
                }
                self.notes.push((ids, waiting, error.clone()));
                if verdict == (Verdict::Held { started: true }) {
                    tracing::warn!(destination = dest.name(), %error,
                        probe_every_s = self.config.probe_every.as_secs_f32(),
                        "a destination cannot be reached: its deliveries wait, and it is tried again until it answers");
                    metrics::counter!("herald_destination_outages_total", "kind" => dest.kind())
                        .increment(1);
                    self.outage_gauges();
                }
                return;
            }
            Attempt::Deferred { .. } => self.lanes.done(&dest, ticket, now, Reach::NotTried),
            _ => self.lanes.done(&dest, ticket, now, Reach::Reached),
        };
        if let Verdict::Recovered { lasted } = verdict {
            tracing::info!(
                destination = dest.name(),
                lasted_s = lasted.as_secs_f32(),
                "a destination answers again: its waiting deliveries go out"
            );
            self.outage_gauges();
            if dest == Dest::Relay {
                self.due[Channel::Email as usize] = true;
            }
            if let Some(parked) = self.parked.remove(&dest) {
                self.unparked.extend(parked);
                self.due[Channel::Webhook as usize] = true;
            }
        }
        self.release(channel);
        self.finished.push(job.finished(Some(attempt)));
        self.pump(&dest);
    }

    /// One held delivery of `channel` is no longer held.
    fn release(&mut self, channel: Channel) {
        let held = &mut self.held_count[channel as usize];
        *held = held.saturating_sub(1);
    }

    fn outage_gauges(&self) {
        let (relay, hosts) = self.lanes.down();
        metrics::gauge!("herald_destinations_down", "kind" => "mail_server").set(relay as f64);
        metrics::gauge!("herald_destinations_down", "kind" => "webhook_host").set(hosts as f64);
    }

    /// Starts what `dest`'s lane has room for.
    fn pump(&mut self, dest: &Dest) {
        let now = std::time::Instant::now();
        while let Some((job, ticket)) = self.lanes.next(dest, now) {
            self.start(dest.clone(), ticket, job);
        }
    }

    /// Puts back what lanes hold beyond their share (their host turned slow or went down),
    /// and starts what can start (an outage's probe when it is due).
    fn tend_lanes(&mut self) {
        let now = std::time::Instant::now();
        for (job, after) in self.lanes.shed(now) {
            let dest = job.recipient.dest();
            let waiting = self.waiting_for(&dest);
            self.park(&dest, waiting, &job);
            self.release(job.delivery.channel);
            self.finished
                .push(job.finished(Some(Attempt::Deferred { after, waiting })));
        }
        for dest in self.lanes.startable(now) {
            self.pump(&dest);
        }
        self.lanes.tidy();
    }

    /// Remembers a delivery put back while its host cannot be reached.
    fn park(&mut self, dest: &Dest, waiting: Waiting, job: &Job) {
        if waiting == Waiting::HostDown {
            let parked = self.parked.entry(dest.clone()).or_default();
            if parked.len() < MAX_PARKED {
                parked.push(job.delivery.id.clone());
            }
        }
    }

    /// Why a delivery put back from `dest`'s lane waits.
    fn waiting_for(&self, dest: &Dest) -> Waiting {
        match (dest, self.lanes.is_down(dest)) {
            (Dest::Relay, _) => Waiting::MailServerDown,
            (Dest::Host(_), true) => Waiting::HostDown,
            (Dest::Host(_), false) => Waiting::HostQueue,
        }
    }

    /// Spawns the send of `job`.
    fn start(&mut self, dest: Dest, ticket: Ticket, job: Job) {
        let (sender, book, links) = (
            self.sender.clone(),
            self.mailbook.clone(),
            self.links.clone(),
        );
        let id = job.delivery.id.clone();
        let channel = job.delivery.channel;
        let task_dest = dest.clone();
        let task = self.tasks.spawn(async move {
            let built = message::build(
                &book,
                &links,
                &job.content,
                &job.subscriber,
                &job.delivery,
                job.recipient.clone(),
            );
            let attempt = match built {
                Ok(outgoing) => sender.send(&outgoing, &task_dest).await,
                Err(e) => Attempt::Failed {
                    error: format!("the message could not be built: {e:#}"),
                },
            };
            Sent {
                dest: task_dest,
                ticket,
                job,
                attempt,
            }
        });
        self.in_flight
            .insert(task.id(), (id, dest, ticket, channel));
    }

    /// Expands the next chunk of every unexpanded event into its deliveries; answers whether
    /// any event has more to expand (the engine claims and sends between chunks, so a large
    /// page's first deliveries go out while the rest are written).
    /// As many of the new deliveries as there is room for are leased to this engine as they
    /// are written and started at once: no claim has to rewrite them first.
    /// Runs in the background like claims and flushes, so lanes keep sending meanwhile;
    /// [`Engine::expanded`] takes the result.
    fn expand(&mut self) {
        let clock = self.config.clock.clone();
        let worker = self.worker.clone();
        let lease = chrono::Duration::from_std(self.config.lease).unwrap_or_default();
        let room = |c: Channel| self.room(c) as i64;
        let (mut webhooks, mut emails) = (room(Channel::Webhook), room(Channel::Email));
        let chunk = (webhooks + emails).clamp(EXPAND_CHUNK_MIN, EXPAND_CHUNK);
        let cached: Vec<String> = self.cache.keys().cloned().collect();
        let base_url = self.links.base_url.clone();
        let started = std::time::Instant::now();
        let db = self.db.clone();
        self.db_jobs.spawn(async move {
            let result = db
                .run(move |c| {
                    let events = rows::unexpanded_events(c, EXPAND_EVENTS)?;
                    // A full batch of events may have more behind it.
                    let (mut total, mut more) = (0, events.len() as i64 == EXPAND_EVENTS);
                    let mut leased = Vec::new();
                    for event in &events {
                        let audience = audience(c, event)?;
                        let at = clock.now();
                        let lease = rows::Lease {
                            worker: &worker,
                            until: at + lease,
                            webhooks,
                            emails,
                        };
                        let step = rows::expand_event(c, event, audience, at, chunk, Some(lease))?;
                        total += step.inserted;
                        more |= !step.done;
                        for d in &step.leased {
                            match d.channel {
                                Channel::Webhook => webhooks -= 1,
                                Channel::Email => emails -= 1,
                            }
                        }
                        leased.extend(step.leased);
                    }
                    let handed = (leased.len(), total);
                    let written_us = started.elapsed().as_micros() as u64;
                    let claimed = hand_over(c, leased, &cached, &base_url)?;
                    tracing::debug!(
                        written_us,
                        handed_us = started.elapsed().as_micros() as u64 - written_us,
                        "expansion steps"
                    );
                    Ok((handed, more, claimed))
                })
                .await;
            DbDone::Expanded(started, result)
        });
    }

    /// Takes in a finished expansion step; answers whether there is more to expand.
    fn expanded(&mut self, started: std::time::Instant, result: AppResult<Expanded>) -> bool {
        match result {
            Ok(((leased, count), more, claimed)) => {
                if count > 0 {
                    tracing::debug!(
                        count,
                        leased,
                        took_us = started.elapsed().as_micros() as u64,
                        "notification events expanded into deliveries"
                    );
                }
                // Deliveries written due (no room to lease them) are for the next claims.
                if count > leased {
                    self.due = [true; 2];
                }
                self.claimed(Ok(claimed));
                more
            }
            Err(e) => {
                tracing::warn!(error = %e, "expanding notification events failed");
                false
            }
        }
    }

    /// Deliveries of `channel` that could be taken on now (asked only between database jobs,
    /// so no claim under way is about to fill the room); none for mail while the mail server
    /// cannot be reached (what is held waits for it, the rest waits in the database).
    fn room(&self, channel: Channel) -> usize {
        if channel == Channel::Email && self.lanes.is_down(&Dest::Relay) {
            return 0;
        }
        self.cap(channel)
            .saturating_sub(self.held_count[channel as usize])
    }

    /// Whether `channel` has room for a good batch (a quarter of its cap).
    fn wants(&self, channel: Channel) -> bool {
        self.room(channel) >= (self.cap(channel) / 4).max(1)
    }

    /// Whether either channel has room for a good batch.
    fn has_room(&self) -> bool {
        CHANNELS.into_iter().any(|c| self.wants(c))
    }

    /// Deliveries of `channel` held at most.
    fn cap(&self, channel: Channel) -> usize {
        match channel {
            Channel::Email => self.config.max_held_email,
            Channel::Webhook => self.config.max_held,
        }
    }

    /// Starts claiming, for each channel, up to its room of due deliveries; [`Engine::claimed`]
    /// starts them once the database has handed them over.
    fn claim(&mut self, rooms: Vec<(Channel, usize)>) {
        let db = self.db.clone();
        let worker = self.worker.clone();
        let lease = chrono::Duration::from_std(self.config.lease).unwrap_or_default();
        let cached: Vec<String> = self.cache.keys().cloned().collect();
        let base_url = self.links.base_url.clone();
        let clock = self.config.clock.clone();
        let held = self.held_count;
        let asked = rooms.clone();
        self.db_jobs.spawn(async move {
            let started = std::time::Instant::now();
            let claimed = db
                .run(move |c| {
                    let at = clock.now();
                    let step = std::time::Instant::now();
                    let mut batch = Vec::new();
                    for (channel, room) in rooms {
                        batch.extend(rows::claim_deliveries(
                            c,
                            &worker,
                            channel.as_str(),
                            room as i64,
                            at,
                            at + lease,
                        )?);
                    }
                    let claim_us = step.elapsed().as_micros() as u64;
                    let claimed = hand_over(c, batch, &cached, &base_url)?;
                    tracing::debug!(
                        claim_us,
                        subscribers_us = step.elapsed().as_micros() as u64 - claim_us,
                        "claim steps"
                    );
                    Ok(claimed)
                })
                .await;
            tracing::debug!(
                asked = ?asked,
                took_us = started.elapsed().as_micros() as u64,
                claimed = claimed.as_ref().map(|c| c.0.len()).unwrap_or(0),
                held = ?held,
                "claimed"
            );
            DbDone::Claimed(asked, claimed)
        });
    }

    /// Starts the deliveries a claim handed over.
    fn claimed(&mut self, claimed: AppResult<Claimed>) {
        let (batch, subscribers, contents) = match claimed {
            Ok(claimed) => claimed,
            Err(e) => {
                tracing::warn!(error = %e, "claiming deliveries failed");
                return;
            }
        };
        if self.cache.len() > 256 {
            self.cache.clear();
        }
        self.cache.extend(contents);
        let subscribers: HashMap<String, _> =
            subscribers.into_iter().map(|s| (s.id.clone(), s)).collect();
        for delivery in batch {
            let content = self.cache.get(&delivery.event_id).cloned().flatten();
            let subscriber = subscribers.get(&delivery.subscriber_id).cloned();
            self.dispatch(delivery, content, subscriber);
        }
    }

    /// Starts one delivery, or records at once why it is not sent.
    fn dispatch(
        &mut self,
        delivery: ClaimedDelivery,
        content: Option<Arc<content::EventContent>>,
        subscriber: Option<rows::Addressee>,
    ) {
        let (Some(content), Some(subscriber)) = (content, subscriber) else {
            self.finished.push(Finished {
                delivery,
                attempt: Some(Attempt::Failed {
                    error: "the event's content could not be built, or the subscriber is gone"
                        .into(),
                }),
                counts: false,
                had_failures: false,
            });
            return;
        };
        let Some(recipient) = message::recipient(&content, &subscriber) else {
            self.finished.push(Finished {
                delivery,
                attempt: None,
                counts: false,
                had_failures: false,
            });
            return;
        };
        let dest = recipient.dest();
        let channel = delivery.channel;
        let job = Job {
            counts: content.event.subscriber_id.is_none(),
            delivery,
            content,
            subscriber,
            recipient,
        };
        match self
            .lanes
            .offer(dest.clone(), job, std::time::Instant::now())
        {
            Ok(()) => {
                self.held_count[channel as usize] += 1;
                self.pump(&dest);
            }
            Err((job, after)) => {
                // This host holds what it can take for now: leave room for the others.
                let waiting = self.waiting_for(&dest);
                self.park(&dest, waiting, &job);
                waiting.log_once(dest.name());
                self.finished
                    .push(job.finished(Some(Attempt::Deferred { after, waiting })));
            }
        }
    }

    /// Starts recording finished deliveries, in one transaction.
    fn flush(&mut self) {
        let finished = std::mem::take(&mut self.finished);
        let notes = std::mem::take(&mut self.notes);
        let unparked = std::mem::take(&mut self.unparked);
        let config = self.config.clone();
        let db = self.db.clone();
        let worker = self.worker.clone();
        self.db_jobs.spawn(async move {
            let count = finished.len();
            let started = std::time::Instant::now();
            let result = db
                .run(move |c| {
                    write_tx(c, |c| {
                        for (ids, waiting, error) in &same_cause(notes) {
                            rows::note_waiting(c, ids, waiting.as_str(), error, &worker)?;
                        }
                        record(c, &finished, &config)?;
                        for ids in unparked.chunks(500) {
                            rows::due_now(c, ids, config.clock.now())?;
                        }
                        Ok(())
                    })
                })
                .await;
            tracing::debug!(
                count,
                took_us = started.elapsed().as_micros() as u64,
                "outcomes recorded"
            );
            if let Err(e) = result {
                // The claims run out and the deliveries are sent again, with the same ids.
                tracing::warn!(error = %e, count, "could not record delivery outcomes");
            }
            DbDone::Flushed
        });
    }

    /// Sends the responders' reminders that fell due (in the background).
    async fn remind(&mut self) {
        let at = self.config.clock.utc();
        let lead = self.config.reminder_lead_minutes;
        let claimed = self
            .db
            .run(move |c| reminders::claim_due(c, at, lead))
            .await;
        let due = match claimed {
            Ok(due) => due,
            Err(e) => {
                tracing::warn!(error = %e, "checking responder reminders failed");
                return;
            }
        };
        for reminder in due {
            let messages = reminders::messages(
                &self.mailbook,
                &self.links.base_url,
                &self.links.mail_domain(),
                &reminder,
                self.config.clock.utc(),
            );
            let messages = match messages {
                Ok(messages) => messages,
                Err(e) => {
                    tracing::error!(error = ?e, "a responder reminder could not be rendered");
                    continue;
                }
            };
            tracing::info!(incident = %reminder.incident.id, overdue = reminder.overdue,
                recipients = messages.mails.len(), webhook = messages.webhook.is_some(),
                "reminding responders of a promised update");
            let sender = self.sender.clone();
            tokio::spawn(async move {
                reminders::send(sender.mailer.as_deref(), &sender.webhooks, messages).await;
            });
        }
    }

    /// Extends the lease of every held delivery.
    async fn renew(&mut self) {
        let ids: Vec<String> = self
            .in_flight
            .values()
            .map(|(id, ..)| id.clone())
            .chain(self.lanes.queued().map(|job| job.delivery.id.clone()))
            .collect();
        if ids.is_empty() {
            return;
        }
        let worker = self.worker.clone();
        let lease = chrono::Duration::from_std(self.config.lease).unwrap_or_default();
        let clock = self.config.clock.clone();
        let result = self
            .db
            .run(move |c| Ok(rows::renew(c, &ids, &worker, clock.now() + lease)?))
            .await;
        if let Err(e) = result {
            tracing::warn!(error = %e, "could not renew delivery leases");
        }
    }

    /// Hands back what waits in lanes at once, lets sends finish within the grace period,
    /// records them, hands the rest back.
    async fn drain(mut self) {
        let deadline = tokio::time::Instant::now() + self.config.grace;
        self.stopping = true;
        let queued: Vec<String> = self
            .lanes
            .take_queued()
            .into_iter()
            .map(|job| job.delivery.id)
            .collect();
        self.hand_back(queued).await;
        // A claim under way still hands its deliveries over (and they are handed back below).
        while let Some(done) = self.db_jobs.join_next().await {
            if let Ok(
                DbDone::Claimed(_, Ok((batch, ..))) | DbDone::Expanded(_, Ok((_, _, (batch, ..)))),
            ) = done
            {
                let ids: Vec<String> = batch.into_iter().map(|d| d.id).collect();
                self.hand_back(ids).await;
            }
        }
        while !self.tasks.is_empty() {
            match tokio::time::timeout_at(deadline, self.tasks.join_next_with_id()).await {
                Ok(Some(done)) => self.finish(done),
                Ok(None) => break,
                Err(_) => {
                    self.tasks.abort_all();
                    break;
                }
            }
        }
        if !self.finished.is_empty() {
            self.flush();
        }
        while self.db_jobs.join_next().await.is_some() {}
        let unfinished: Vec<String> = self.in_flight.values().map(|(id, ..)| id.clone()).collect();
        self.hand_back(unfinished).await;
        tracing::info!("notification engine stopped");
    }

    /// Releases claimed deliveries that were not sent, so any process takes them at once.
    async fn hand_back(&self, ids: Vec<String>) {
        if ids.is_empty() {
            return;
        }
        let worker = self.worker.clone();
        let count = ids.len();
        match self
            .db
            .run(move |c| Ok(rows::release(c, &ids, &worker)?))
            .await
        {
            Ok(_) => tracing::info!(count, "handed unfinished deliveries back"),
            Err(e) => {
                tracing::warn!(error = %e, count, "could not hand deliveries back; their leases will run out")
            }
        }
    }
}

/// The channels in the order they are claimed: webhooks first, they are the faster ones to
/// start. Each is claimed, held and capped apart (indexed by `as usize`).
const CHANNELS: [Channel; 2] = [Channel::Webhook, Channel::Email];

/// What the engine needs to start `batch`: its subscribers, and the content of its events not
/// in the engine's cache (`cached`).
fn hand_over(
    c: &mut DbConn,
    batch: Vec<ClaimedDelivery>,
    cached: &[String],
    base_url: &str,
) -> AppResult<Claimed> {
    if batch.is_empty() {
        return Ok((batch, Vec::new(), HashMap::new()));
    }
    let ids: Vec<String> = batch.iter().map(|d| d.subscriber_id.clone()).collect();
    let subscribers = rows::addressees_by_ids(c, &ids)?;
    let mut contents = HashMap::new();
    for d in &batch {
        if cached.contains(&d.event_id) || contents.contains_key(&d.event_id) {
            continue;
        }
        let built = match content::build(c, &d.event_id, base_url) {
            Ok(built) => built.map(Arc::new),
            Err(e) => {
                tracing::warn!(event = %d.event_id, error = %e, "notification content could not be built");
                None
            }
        };
        contents.insert(d.event_id.clone(), built);
    }
    Ok((batch, subscribers, contents))
}

/// Who an event reaches.
fn audience(conn: &mut DbConn, event: &rows::NotificationEvent) -> AppResult<Audience> {
    let component_event = event.kind == events::kind::COMPONENT_STATUS_CHANGED;
    let critical = event.impact.as_deref() == Some("critical")
        && (event.kind.starts_with("incident.") || event.kind.starts_with("postmortem."));
    let unfiltered = !component_event && rows::event_components(conn, &event.id)?.is_empty();
    Ok(Audience {
        everyone: critical || unfiltered,
        component_updates_only: component_event,
    })
}

/// Records outcomes: delivered in one statement, the others one by one; counts failures
/// against subscribers and quarantines those failing for too long.
fn record(conn: &mut DbConn, finished: &[Finished], config: &EngineConfig) -> AppResult<()> {
    let at = config.clock.now();
    let delivered: Vec<String> = finished
        .iter()
        .filter(|f| f.delivered())
        .map(|f| f.delivery.id.clone())
        .collect();
    if !delivered.is_empty() {
        rows::mark_delivered(conn, &delivered, at)?;
        // Only subscribers with failures counted (as claimed) need their count reset.
        let subscribers: Vec<String> = finished
            .iter()
            .filter(|f| f.delivered() && f.counts && f.had_failures)
            .map(|f| f.delivery.subscriber_id.clone())
            .collect();
        if !subscribers.is_empty() {
            rows::reset_failures(conn, &subscribers)?;
        }
    }
    for f in finished.iter().filter(|f| !f.delivered()) {
        let outcome = outcome(f, config, at);
        rows::record_outcome(conn, &f.delivery.id, &outcome, at)?;
        // A counted attempt that did not deliver is a failure (retried, failed, dead).
        if outcome.counted && f.counts {
            count_failure(conn, &f.delivery.subscriber_id, config, at)?;
        }
    }
    metrics::counter!("herald_deliveries_total", "outcome" => "delivered")
        .increment(delivered.len() as u64);
    Ok(())
}

fn outcome(f: &Finished, config: &EngineConfig, at: NaiveDateTime) -> Outcome {
    let later = |wait: Duration| at + chrono::Duration::from_std(wait).unwrap_or_default();
    let attempts = f.delivery.attempts + 1;
    let given_up =
        || event_time(&f.delivery.event_id).is_some_and(|t| at - t >= config.give_up_after);
    let Some(attempt) = &f.attempt else {
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
                    config.give_up_after.num_hours(),
                    attempt
                        .error()
                        .or(f.delivery.last_error.as_deref())
                        .map(|e| format!(": {e}"))
                        .unwrap_or_default()
                )),
                waiting: None,
            }
        }
        // Not attempted (found unreachable while shutting down): the next process tries it.
        Attempt::Unreachable { error } => Outcome {
            state: DeliveryState::Pending,
            next_attempt_at: later(config.probe_every),
            counted: false,
            error: Some(error.clone()),
            waiting: Some(if f.delivery.channel == Channel::Email {
                Waiting::MailServerDown
            } else {
                Waiting::HostDown
            }),
        },
        Attempt::Deferred { after, waiting } => Outcome {
            state: DeliveryState::Pending,
            next_attempt_at: later(*after),
            counted: false,
            error: f.delivery.last_error.clone(),
            waiting: Some(*waiting),
        },
        Attempt::Retry { retry_after, error } if attempts < config.max_attempts => Outcome {
            state: DeliveryState::Pending,
            next_attempt_at: later(
                config
                    .backoff
                    .next(f.delivery.attempts.max(0) as u32, *retry_after),
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
fn same_cause(notes: Vec<(Vec<String>, Waiting, String)>) -> Vec<(Vec<String>, Waiting, String)> {
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
fn event_time(event_id: &str) -> Option<NaiveDateTime> {
    let (secs, nanos) = uuid::Uuid::parse_str(event_id)
        .ok()?
        .get_timestamp()?
        .to_unix();
    Some(chrono::DateTime::from_timestamp(i64::try_from(secs).ok()?, nanos)?.naive_utc())
}

/// Counts a failure; quarantines a subscriber failing `quarantine_after` times in a row over
/// at least `quarantine_window`, and tells a webhook's contact address.
fn count_failure(
    conn: &mut DbConn,
    subscriber_id: &str,
    config: &EngineConfig,
    at: NaiveDateTime,
) -> AppResult<()> {
    let Some(s) = rows::count_failure(conn, subscriber_id, at)? else {
        return Ok(());
    };
    let long_enough = s
        .first_failure_at
        .is_some_and(|first| at - first >= config.quarantine_window);
    if s.state == SubscriberState::Confirmed
        && s.consecutive_failures >= config.quarantine_after
        && long_enough
    {
        rows::set_state(conn, &s.id, SubscriberState::Quarantined, at)?;
        rows::skip_pending_of(conn, &s.id, at)?;
        tracing::warn!(subscriber = %s.id, failures = s.consecutive_failures, "subscriber quarantined");
        if s.kind == Channel::Webhook && s.contact_email.is_some() {
            events::subscriber_notice(
                conn,
                &s.page_id,
                &s.id,
                events::kind::SUBSCRIBER_QUARANTINED,
            )?;
        }
    }
    Ok(())
}

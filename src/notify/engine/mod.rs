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

mod claims;
mod outcome;
mod record;
mod send;
mod upkeep;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::NaiveDateTime;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::lanes::{Dest, LaneConfig, Lanes, Reach, Ticket, Verdict};
use super::message::{self, Outgoing, Recipient};
use super::{EngineClock, content, reminders};
use crate::config::Settings;
use crate::db::models::notify::{self as rows, Audience, ClaimedDelivery, Outcome};
use crate::db::states::{Channel, DeliveryState, SubscriberState};
use crate::db::{Db, DbConn, write_tx};
use crate::delivery::Attempt;
use crate::delivery::backoff::Backoff;
use crate::delivery::mail::Mailer;
use crate::delivery::outbound::Policy;
use crate::delivery::webhook::WebhookClient;
use crate::domain::waiting::Waiting;
use crate::error::AppResult;
use crate::render::mail::Mailbook;
use crate::runtime::passes::Passes;
use crate::services::outbox as events;
use crate::services::signing_key::SigningKey;

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
    /// The engine's wake-up (a local write added an event) and its passes: a pass that ran out
    /// of work (nothing to expand, claim, send or record now) covers the tickets it read
    /// before it looked at the database.
    pub passes: Arc<Passes>,
    pub policy: Policy,
    /// Subscribe rate limits.
    pub limits: Arc<crate::limits::subscribe::SubscribeLimits>,
    /// The engine's clock (tests move it forward).
    pub clock: EngineClock,
}

impl NotifyHandle {
    /// A handle for `settings`.
    pub fn new(settings: &Settings) -> Self {
        Self {
            passes: Arc::new(Passes::default()),
            policy: Policy::from_settings(settings),
            limits: Arc::new(crate::limits::subscribe::SubscribeLimits::default()),
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
            crate::notify::lanes::log_waiting_once(*waiting, dest);
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
    secret: SigningKey,
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
    let mailbook = match Mailbook::load() {
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
        worker: crate::runtime::worker_id(),
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
        reminding: JoinSet::new(),
        due: [true; 2],
    };
    tracing::info!(worker = %engine.worker, "notification engine started");
    engine.serve(&handle, &stop).await;
    engine.drain().await;
}

struct Engine {
    db: Db,
    worker: String,
    config: EngineConfig,
    sender: Arc<Sender>,
    mailbook: Arc<Mailbook>,
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
    /// Responders' reminders being sent (each claimed once, so a pass is not done until they
    /// are out).
    reminding: JoinSet<()>,
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
    async fn serve(&mut self, handle: &NotifyHandle, stop: &CancellationToken) {
        let mut expand = true;
        // The wake-up tickets the pass under way covers (read before it looks at the database).
        let mut covers = handle.passes.pass_covers();
        // Expansion keeps pace with sending: a step is taken when there is room to lease what
        // it writes, and at least on every wake-up and poll (so events are written out even
        // while sends are stuck on slow receivers).
        let mut forced = true;
        let mut last_flush = tokio::time::Instant::now();
        let mut last_renew = tokio::time::Instant::now();
        let mut last_reminders: Option<tokio::time::Instant> = None;
        // The tickets covered by the last look for reminders (a requested pass looks again).
        let mut reminded_for = covers;
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
            if covers > reminded_for
                || last_reminders.is_none_or(|at| at.elapsed() >= REMINDER_TICK)
            {
                self.remind().await;
                last_reminders = Some(tokio::time::Instant::now());
                reminded_for = covers;
            }
            if last_renew.elapsed() >= self.config.lease / 3 {
                self.renew().await;
                last_renew = tokio::time::Instant::now();
            }
            if !expand && self.quiet() {
                handle.passes.pass_done(covers);
            }
            tokio::select! {
                _ = stop.cancelled() => break,
                _ = handle.passes.woken() => {
                    covers = handle.passes.pass_covers();
                    expand = true;
                    forced = true;
                    self.due = [true; 2];
                }
                _ = poll.tick() => {
                    covers = handle.passes.pass_covers();
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
                Some(_) = self.reminding.join_next(), if !self.reminding.is_empty() => {}
                // An event has more chunks to expand: on with it after what is ready.
                _ = std::future::ready(()), if expand && self.db_jobs.is_empty() && self.has_room() => {}
            }
        }
    }

    /// Whether nothing is left to do now: no database job under way or to start (no claim is
    /// due, no outcome waits to be recorded), nothing held or in flight.
    fn quiet(&self) -> bool {
        self.db_jobs.is_empty()
            && self.tasks.is_empty()
            && self.reminding.is_empty()
            && self.held_count == [0; 2]
            && self.finished.is_empty()
            && self.notes.is_empty()
            && self.unparked.is_empty()
            && !CHANNELS
                .into_iter()
                .any(|c| self.due[c as usize] && self.wants(c))
    }

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
}

/// The channels in the order they are claimed: webhooks first, they are the faster ones to
/// start. Each is claimed, held and capped apart (indexed by `as usize`).
const CHANNELS: [Channel; 2] = [Channel::Webhook, Channel::Email];

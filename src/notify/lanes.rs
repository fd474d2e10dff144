//! Per-destination lanes: where the engine keeps the deliveries it holds, one lane per
//! destination (the mail relay, or one webhook host), each with its own cap on sends in flight.
//! No limit is shared between destinations, so a slow or dead receiver costs only its own
//! lane; what waits for a destination waits here, in memory, not in the database.
//!
//! A lane holds what its destination will take within about a second (its *share*, from the
//! time its sends take), so a fast host keeps every held slot busy and a slow one holds only a
//! few; the excess goes back to the database to wait ([`Lanes::offer`], [`Lanes::shed`]).
//!
//! A destination that cannot be reached at all (connections refused, no session) is one
//! outage, not one failure per message: the lane stops sending, keeps what it holds, and lets
//! one delivery through every [`LaneConfig::probe_every`] as a probe; the first that gets
//! through ends the outage and the lane goes on at once ([`Lanes::done`]).
//!
//! Plain data and time passed in: the engine owns the lanes and spawns the sends.

use crate::domain::waiting::Waiting;
use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

/// Where a delivery goes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Dest {
    /// The configured SMTP relay (all mail).
    Relay,
    /// A webhook host, as `host:port`.
    Host(String),
}

impl Dest {
    /// For the log and [`log_waiting_once`].
    pub fn name(&self) -> &str {
        match self {
            Self::Relay => "the mail server",
            Self::Host(host) => host,
        }
    }

    /// Its kind, a metrics label.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Relay => "mail_server",
            Self::Host(_) => "webhook_host",
        }
    }
}

/// The lanes' limits.
#[derive(Debug, Clone, Copy)]
pub struct LaneConfig {
    /// Sessions in flight to the relay at once.
    pub relay_sessions: usize,
    /// Requests in flight to one webhook host at once.
    pub per_host: usize,
    /// Deliveries one webhook host may hold at most (queued and in flight).
    pub max_share: usize,
    /// How often a destination in an outage is probed.
    pub probe_every: Duration,
    /// A lane holds what its destination can take in about this long.
    pub horizon: Duration,
}

impl Default for LaneConfig {
    fn default() -> Self {
        Self {
            relay_sessions: 16,
            per_host: 8,
            max_share: 1024,
            probe_every: Duration::from_secs(5),
            horizon: Duration::from_secs(1),
        }
    }
}

/// A send started from a lane: hand it back to [`Lanes::done`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ticket {
    id: u64,
    started: Instant,
}

/// What a finished send found of its destination.
#[derive(Debug, PartialEq, Eq)]
pub enum Reach<J> {
    /// It was reached (whatever it answered).
    Reached,
    /// It could not be reached: the job goes back to the head of the lane.
    Unreachable(J),
    /// The send was not tried (put off before it went out): says nothing about the destination.
    NotTried,
}

/// What became of a finished send.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Record its outcome.
    Record,
    /// The destination could not be reached: the job is back at the head of its lane, and the
    /// attempt is not recorded. `started` is true when this send began the outage.
    Held { started: bool },
    /// The send was the probe of an outage and got through: the outage of this long is over;
    /// record its outcome.
    Recovered { lasted: Duration },
}

/// The outage of one destination.
#[derive(Debug, Clone)]
struct Outage {
    since: Instant,
    next_probe: Instant,
    /// Whether a probe is in flight.
    probing: bool,
}

/// One destination's lane.
#[derive(Debug)]
struct Lane<J> {
    queue: VecDeque<J>,
    /// Sends in flight: their tickets.
    in_flight: Vec<Ticket>,
    /// How long a send takes (moving average), once one has finished.
    latency: Option<Duration>,
    outage: Option<Outage>,
}

impl<J> Default for Lane<J> {
    fn default() -> Self {
        Self {
            queue: VecDeque::new(),
            in_flight: Vec::new(),
            latency: None,
            outage: None,
        }
    }
}

impl<J> Lane<J> {
    fn held(&self) -> usize {
        self.queue.len() + self.in_flight.len()
    }

    fn is_idle(&self) -> bool {
        self.held() == 0 && self.outage.is_none()
    }

    /// How long a send takes now: the average, or longer while the oldest send in flight has
    /// been going longer (a host that stopped answering is slow before any send finishes).
    fn latency(&self, now: Instant) -> Option<Duration> {
        let oldest = self
            .in_flight
            .iter()
            .map(|t| now.saturating_duration_since(t.started))
            .max();
        match (self.latency, oldest) {
            (Some(avg), Some(oldest)) => Some(avg.max(oldest)),
            (avg, oldest) => avg.or(oldest.filter(|o| *o >= Duration::from_millis(100))),
        }
    }
}

/// The lanes of every destination with something held or an outage.
#[derive(Debug)]
pub struct Lanes<J> {
    config: LaneConfig,
    lanes: HashMap<Dest, Lane<J>>,
    next_ticket: u64,
}

/// Lanes remembered (with their measured latency) before idle ones are forgotten.
const MAX_LANES: usize = 10_000;

impl<J> Lanes<J> {
    pub fn new(config: LaneConfig) -> Self {
        Self {
            config,
            lanes: HashMap::new(),
            next_ticket: 0,
        }
    }

    /// Sends in flight to `dest` at most.
    fn cap(&self, dest: &Dest) -> usize {
        match dest {
            Dest::Relay => self.config.relay_sessions,
            Dest::Host(_) => self.config.per_host,
        }
        .max(1)
    }

    /// Deliveries `dest` may hold: what it sends within the horizon at its current pace, at
    /// least two rounds of its cap, at most `max_share`; all of `max_share` while its pace is
    /// not known yet; one round of its cap during an outage. The relay's lane is bounded by the
    /// email channel's own cap instead.
    fn share(&self, dest: &Dest, lane: Option<&Lane<J>>, now: Instant) -> usize {
        if *dest == Dest::Relay {
            return usize::MAX;
        }
        let cap = self.cap(dest);
        let max = self.config.max_share.max(cap);
        let Some(lane) = lane else { return max };
        if lane.outage.is_some() {
            return cap;
        }
        match lane.latency(now) {
            None => max,
            Some(latency) => {
                let rounds = self.config.horizon.as_secs_f64() / latency.as_secs_f64().max(1e-6);
                ((cap as f64 * rounds) as usize).clamp(2 * cap, max)
            }
        }
    }

    /// About how long a delivery put back now waits before `dest` could take it.
    fn wait(&self, dest: &Dest, lane: &Lane<J>, now: Instant) -> Duration {
        if lane.outage.is_some() {
            return self.config.probe_every.max(Duration::from_secs(1)) * 6;
        }
        let latency = lane.latency(now).unwrap_or(Duration::from_millis(10));
        let rounds = (lane.held() / self.cap(dest)) as u32 + 1;
        latency
            .saturating_mul(rounds)
            .clamp(Duration::from_secs(1), Duration::from_secs(60))
    }

    /// Takes `job` into `dest`'s lane, or hands it back with how long it should wait elsewhere
    /// (the lane holds its share already).
    pub fn offer(&mut self, dest: Dest, job: J, now: Instant) -> Result<(), (J, Duration)> {
        let share = self.share(&dest, self.lanes.get(&dest), now);
        if let Some(lane) = self.lanes.get(&dest)
            && lane.held() >= share
        {
            return Err((job, self.wait(&dest, lane, now)));
        }
        if self.lanes.len() >= MAX_LANES && !self.lanes.contains_key(&dest) {
            self.lanes.retain(|_, lane| !lane.is_idle());
        }
        self.lanes.entry(dest).or_default().queue.push_back(job);
        Ok(())
    }

    /// The next job to send to `dest` now, if its lane has one and room in flight (during an
    /// outage: only the probe, when due).
    pub fn next(&mut self, dest: &Dest, now: Instant) -> Option<(J, Ticket)> {
        let cap = self.cap(dest);
        let lane = self.lanes.get_mut(dest)?;
        if lane.in_flight.len() >= cap || lane.queue.is_empty() {
            return None;
        }
        if let Some(outage) = &mut lane.outage {
            if outage.probing || now < outage.next_probe {
                return None;
            }
            outage.probing = true;
        }
        let job = lane.queue.pop_front()?;
        self.next_ticket += 1;
        let ticket = Ticket {
            id: self.next_ticket,
            started: now,
        };
        lane.in_flight.push(ticket);
        Some((job, ticket))
    }

    /// Takes back a finished send and what it found ([`Reach`]); an unreachable destination's
    /// job is put back at the head of the lane, not recorded.
    pub fn done(&mut self, dest: &Dest, ticket: Ticket, now: Instant, reach: Reach<J>) -> Verdict {
        let probe_every = self.config.probe_every;
        let lane = self.lanes.entry(dest.clone()).or_default();
        lane.in_flight.retain(|t| t.id != ticket.id);
        let took = now.saturating_duration_since(ticket.started);
        match reach {
            Reach::NotTried => {
                if let Some(outage) = &mut lane.outage {
                    outage.probing = false;
                }
                Verdict::Record
            }
            Reach::Unreachable(job) => {
                lane.queue.push_front(job);
                let started = lane.outage.is_none();
                let outage = lane.outage.get_or_insert(Outage {
                    since: ticket.started,
                    next_probe: now,
                    probing: false,
                });
                outage.probing = false;
                outage.next_probe = now + probe_every;
                Verdict::Held { started }
            }
            Reach::Reached => {
                lane.latency = Some(match lane.latency {
                    None => took,
                    Some(avg) => avg.mul_f64(0.8) + took.mul_f64(0.2),
                });
                match lane.outage.take() {
                    Some(outage) => Verdict::Recovered {
                        lasted: now.saturating_duration_since(outage.since),
                    },
                    None => Verdict::Record,
                }
            }
        }
    }

    /// Jobs beyond their lane's share (a destination turned slow), each with how long it
    /// should wait elsewhere; taken from the back of the lane.
    pub fn shed(&mut self, now: Instant) -> Vec<(J, Duration)> {
        let mut shed = Vec::new();
        let dests: Vec<Dest> = self.lanes.keys().cloned().collect();
        for dest in dests {
            let share = self.share(&dest, self.lanes.get(&dest), now);
            let Some(lane) = self.lanes.get(&dest) else {
                continue;
            };
            if lane.held() <= share {
                continue;
            }
            let wait = self.wait(&dest, lane, now);
            #[allow(clippy::expect_used, reason = "the lane was looked up above")]
            let lane = self.lanes.get_mut(&dest).expect("looked up above");
            while lane.held() > share
                && let Some(job) = lane.queue.pop_back()
            {
                shed.push((job, wait));
            }
        }
        shed
    }

    /// Destinations with a job that could start now (room in flight, or a probe due).
    pub fn startable(&self, now: Instant) -> Vec<Dest> {
        self.lanes
            .iter()
            .filter(|(dest, lane)| {
                !lane.queue.is_empty()
                    && lane.in_flight.len() < self.cap(dest)
                    && lane
                        .outage
                        .as_ref()
                        .is_none_or(|o| !o.probing && now >= o.next_probe)
            })
            .map(|(dest, _)| dest.clone())
            .collect()
    }

    /// Whether `dest` is in an outage.
    pub fn is_down(&self, dest: &Dest) -> bool {
        self.lanes.get(dest).is_some_and(|l| l.outage.is_some())
    }

    /// Destinations in an outage: (the relay's, webhook hosts').
    pub fn down(&self) -> (usize, usize) {
        self.lanes
            .iter()
            .filter(|(_, lane)| lane.outage.is_some())
            .fold((0, 0), |(relay, hosts), (dest, _)| match dest {
                Dest::Relay => (relay + 1, hosts),
                Dest::Host(_) => (relay, hosts + 1),
            })
    }

    /// Every job waiting in a lane (not in flight).
    pub fn queued(&self) -> impl Iterator<Item = &J> {
        self.lanes.values().flat_map(|lane| lane.queue.iter())
    }

    /// The jobs waiting in `dest`'s lane.
    pub fn queued_at(&self, dest: &Dest) -> impl Iterator<Item = &J> {
        self.lanes
            .get(dest)
            .into_iter()
            .flat_map(|lane| lane.queue.iter())
    }

    /// Takes every waiting job out (shutdown: they are handed back).
    pub fn take_queued(&mut self) -> Vec<J> {
        let jobs = self
            .lanes
            .values_mut()
            .flat_map(|lane| lane.queue.drain(..))
            .collect();
        self.lanes.retain(|_, lane| !lane.in_flight.is_empty());
        jobs
    }

    /// Forgets idle lanes once there are many (their measured pace with them).
    pub fn tidy(&mut self) {
        if self.lanes.len() > MAX_LANES / 2 {
            self.lanes.retain(|_, lane| !lane.is_idle());
        }
    }
}

#[cfg(test)]
mod tests;

/// Logs that deliveries to `dest` wait for `waiting`, the first time this process meets that
/// pair (the log says each cause once, not once per delivery).
pub fn log_waiting_once(waiting: Waiting, dest: &Dest) {
    use std::collections::HashSet;
    use std::sync::{Mutex, OnceLock};
    static SEEN: OnceLock<Mutex<HashSet<(Waiting, String)>>> = OnceLock::new();
    let host = dest.name();
    let seen = SEEN.get_or_init(Mutex::default);
    let mut seen = seen.lock().unwrap_or_else(|p| p.into_inner());
    if seen.len() < 10_000 && seen.insert((waiting, host.to_owned())) {
        tracing::warn!(
            host,
            waiting = waiting.as_str(),
            "deliveries are {}",
            waiting.describe()
        );
    }
}

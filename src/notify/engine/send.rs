//! Sending: what a held delivery's lane lets start, each send's end (its attempt, the lane's
//! verdict on the destination), and the deliveries parked while their destination is down.

use super::*;

impl Engine {
    /// Takes back a finished send: its outcome is recorded, or, when its destination could not
    /// be reached, it goes back to its lane, which holds it until a probe gets through.
    pub(super) fn finish(&mut self, done: Result<(tokio::task::Id, Sent), tokio::task::JoinError>) {
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
    pub(super) fn release(&mut self, channel: Channel) {
        let held = &mut self.held_count[channel as usize];
        *held = held.saturating_sub(1);
    }

    pub(super) fn outage_gauges(&self) {
        let (relay, hosts) = self.lanes.down();
        metrics::gauge!("herald_destinations_down", "kind" => "mail_server").set(relay as f64);
        metrics::gauge!("herald_destinations_down", "kind" => "webhook_host").set(hosts as f64);
    }

    /// Starts what `dest`'s lane has room for.
    pub(super) fn pump(&mut self, dest: &Dest) {
        let now = std::time::Instant::now();
        while let Some((job, ticket)) = self.lanes.next(dest, now) {
            self.start(dest.clone(), ticket, job);
        }
    }

    /// Puts back what lanes hold beyond their share (their host turned slow or went down),
    /// and starts what can start (an outage's probe when it is due).
    pub(super) fn tend_lanes(&mut self) {
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
    pub(super) fn park(&mut self, dest: &Dest, waiting: Waiting, job: &Job) {
        if waiting == Waiting::HostDown {
            let parked = self.parked.entry(dest.clone()).or_default();
            if parked.len() < MAX_PARKED {
                parked.push(job.delivery.id.clone());
            }
        }
    }

    /// Why a delivery put back from `dest`'s lane waits.
    pub(super) fn waiting_for(&self, dest: &Dest) -> Waiting {
        match (dest, self.lanes.is_down(dest)) {
            (Dest::Relay, _) => Waiting::MailServerDown,
            (Dest::Host(_), true) => Waiting::HostDown,
            (Dest::Host(_), false) => Waiting::HostQueue,
        }
    }

    /// Spawns the send of `job`.
    pub(super) fn start(&mut self, dest: Dest, ticket: Ticket, job: Job) {
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
}

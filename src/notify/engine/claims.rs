//! Work coming in: expanding events into deliveries (the first of each chunk leased at once),
//! claiming due deliveries as the channels have room, and handing them to their lanes.

use super::*;
use crate::domain::SubscriberId;

impl Engine {
    /// Expands the next chunk of every unexpanded event into its deliveries; answers whether
    /// any event has more to expand (the engine claims and sends between chunks, so a large
    /// page's first deliveries go out while the rest are written).
    /// As many of the new deliveries as there is room for are leased to this engine as they
    /// are written and started at once: no claim has to rewrite them first.
    /// Runs in the background like claims and flushes, so lanes keep sending meanwhile;
    /// [`Engine::expanded`] takes the result.
    pub(super) fn expand(&mut self) {
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
                    let timed = hand_over_timed(c, leased, &cached, &base_url, started)?;
                    let (claimed, written_us, handed_us) = timed;
                    tracing::debug!(written_us, handed_us, "expansion steps");
                    Ok((handed, more, claimed))
                })
                .await;
            DbDone::Expanded(started, result)
        });
    }

    /// Takes in a finished expansion step; answers whether there is more to expand.
    pub(super) fn expanded(
        &mut self,
        started: std::time::Instant,
        result: AppResult<Expanded>,
    ) -> bool {
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
    pub(super) fn room(&self, channel: Channel) -> usize {
        if channel == Channel::Email && self.lanes.is_down(&Dest::Relay) {
            return 0;
        }
        self.cap(channel)
            .saturating_sub(self.held_count[channel as usize])
    }

    /// Whether `channel` has room for a good batch (a quarter of its cap).
    pub(super) fn wants(&self, channel: Channel) -> bool {
        self.room(channel) >= (self.cap(channel) / 4).max(1)
    }

    /// Whether either channel has room for a good batch.
    pub(super) fn has_room(&self) -> bool {
        CHANNELS.into_iter().any(|c| self.wants(c))
    }

    /// Deliveries of `channel` held at most.
    pub(super) fn cap(&self, channel: Channel) -> usize {
        match channel {
            Channel::Email => self.config.max_held_email,
            Channel::Webhook => self.config.max_held,
        }
    }

    /// Starts claiming, for each channel, up to its room of due deliveries; [`Engine::claimed`]
    /// starts them once the database has handed them over.
    pub(super) fn claim(&mut self, rooms: Vec<(Channel, usize)>) {
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
                    let timed = hand_over_timed(c, batch, &cached, &base_url, step)?;
                    let (claimed, claim_us, subscribers_us) = timed;
                    tracing::debug!(claim_us, subscribers_us, "claim steps");
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
    pub(super) fn claimed(&mut self, claimed: AppResult<Claimed>) {
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
        let subscribers: HashMap<SubscriberId, _> =
            subscribers.into_iter().map(|s| (s.id.clone(), s)).collect();
        for delivery in batch {
            let content = self.cache.get(&delivery.event_id).cloned().flatten();
            let subscriber = subscribers.get(&delivery.subscriber_id).cloned();
            self.dispatch(delivery, content, subscriber);
        }
    }

    /// Starts one delivery, or records at once why it is not sent.
    pub(super) fn dispatch(
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
                crate::notify::lanes::log_waiting_once(waiting, &dest);
                self.finished
                    .push(job.finished(Some(Attempt::Deferred { after, waiting })));
            }
        }
    }
}

/// [`hand_over`], with the microseconds from `since` to its start and those it took.
fn hand_over_timed(
    c: &mut DbConn,
    batch: Vec<ClaimedDelivery>,
    cached: &[String],
    base_url: &str,
    since: std::time::Instant,
) -> AppResult<(Claimed, u64, u64)> {
    let before_us = since.elapsed().as_micros() as u64;
    let claimed = hand_over(c, batch, cached, base_url)?;
    Ok((
        claimed,
        before_us,
        since.elapsed().as_micros() as u64 - before_us,
    ))
}

/// What the engine needs to start `batch`: its subscribers, and the content of its events not
/// in the engine's cache (`cached`).
pub(super) fn hand_over(
    c: &mut DbConn,
    batch: Vec<ClaimedDelivery>,
    cached: &[String],
    base_url: &str,
) -> AppResult<Claimed> {
    if batch.is_empty() {
        return Ok((batch, Vec::new(), HashMap::new()));
    }
    let ids: Vec<SubscriberId> = batch.iter().map(|d| d.subscriber_id.clone()).collect();
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
pub(super) fn audience(conn: &mut DbConn, event: &rows::NotificationEvent) -> AppResult<Audience> {
    let vendor_event = event.kind == events::kind::VENDOR_STATUS_CHANGED;
    let component_event = event.kind == events::kind::COMPONENT_STATUS_CHANGED || vendor_event;
    let critical = event.impact.as_deref() == Some("critical")
        && (event.kind.starts_with("incident.") || event.kind.starts_with("postmortem."));
    let unfiltered = !component_event && rows::event_components(conn, &event.id)?.is_empty();
    Ok(Audience {
        everyone: critical || unfiltered,
        component_updates_only: component_event,
        chosen_only: vendor_event,
    })
}

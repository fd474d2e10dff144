//! The engine's upkeep: responders' reminders, renewing the leases of what it holds, and the
//! drain at shutdown (finish within the grace period, record, hand the rest back).

use super::*;

impl Engine {
    /// Sends the responders' reminders that fell due (in the background).
    pub(super) async fn remind(&mut self) {
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
            self.reminding.spawn(async move {
                reminders::send(sender.mailer.as_deref(), &sender.webhooks, messages).await;
            });
        }
    }

    /// Extends the lease of every held delivery.
    pub(super) async fn renew(&mut self) {
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
    pub(super) async fn drain(mut self) {
        let deadline = tokio::time::Instant::now() + self.config.grace;
        self.stopping = true;
        // Reminders on their way finish on their own, as they would have before the drain.
        self.reminding.detach_all();
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
    pub(super) async fn hand_back(&self, ids: Vec<String>) {
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

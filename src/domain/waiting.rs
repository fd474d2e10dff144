//! Why a delivery that is due is not sent yet: stored with it (`deliveries.waiting_for`) and
//! shown to responders.

/// What a deferred delivery waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Waiting {
    /// No mail server is set (`HERALD_SMTP_URL`).
    MailServer,
    /// Its host failed repeatedly; its circuit is open until a probe succeeds.
    HostCircuitOpen,
    /// Its host has many deliveries queued already; other hosts go first.
    HostQueue,
    /// The process is shutting down; another process (or the next start) sends it.
    ShuttingDown,
    /// The mail server cannot be reached; it is probed every few seconds.
    MailServerDown,
    /// The receiver's host cannot be reached; it is probed every few seconds.
    HostDown,
}

impl Waiting {
    /// The stored name (`deliveries.waiting_for`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::MailServer => "mail_server",
            Self::HostCircuitOpen => "host_circuit_open",
            Self::HostQueue => "host_queue",
            Self::ShuttingDown => "shutting_down",
            Self::MailServerDown => "mail_server_down",
            Self::HostDown => "host_down",
        }
    }

    /// Every reason, in declaration order.
    pub const ALL: [Self; 6] = [
        Self::MailServer,
        Self::HostCircuitOpen,
        Self::HostQueue,
        Self::ShuttingDown,
        Self::MailServerDown,
        Self::HostDown,
    ];

    /// The reason stored as `name`, if it is one.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|w| w.as_str() == name)
    }

    /// What it means, for the console and the log.
    pub fn describe(self) -> &'static str {
        match self {
            Self::MailServer => "waiting for a mail server: HERALD_SMTP_URL is not set",
            Self::HostCircuitOpen => {
                "waiting: the receiver's host failed repeatedly and is tried again shortly"
            }
            Self::HostQueue => "waiting behind other deliveries to the same host",
            Self::ShuttingDown => "waiting: this Herald is shutting down",
            Self::MailServerDown => {
                "waiting: the mail server cannot be reached; Herald tries it every few seconds"
            }
            Self::HostDown => {
                "waiting: the receiver's host cannot be reached; Herald tries it every few seconds"
            }
        }
    }
}

//! Status vocabularies shared by the whole application: component, incident and maintenance
//! statuses, impact, incident kinds, the page indicator, user roles and follow-up states.
//!
//! The names and their snake_case wire forms are Atlassian Statuspage's, so API clients written
//! for Statuspage read Herald's JSON without surprises. Every enum round-trips through
//! [`as_str`](ComponentStatus::as_str) / [`FromStr`] and serde with the same strings.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Defines a fieldless enum with a fixed snake_case name and a human label per variant, plus
/// `ALL`, `as_str`, `label`, `Display` and `FromStr`.
macro_rules! string_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident ($kind:literal) {
            $( $(#[$vmeta:meta])* $variant:ident => ($wire:literal, $label:literal) ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];

            /// The accepted names, in the order of [`Self::ALL`].
            const NAMES: &'static [&'static str] = &[$($wire),+];

            /// The snake_case name used in JSON, forms, URLs and the database.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $wire),+
                }
            }

            /// The name shown to people, e.g. in templates and emails.
            pub fn label(self) -> &'static str {
                match self {
                    $(Self::$variant => $label),+
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = ParseEnumError;

            /// Parses the exact snake_case name, as produced by `as_str`.
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($wire => Ok(Self::$variant),)+
                    _ => Err(ParseEnumError::new(s, $kind, Self::NAMES)),
                }
            }
        }
    };
}

pub(crate) use string_enum;

/// A string that is not one of an enum's accepted names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{value}' is not a valid {kind}; expected one of: {}", .expected.join(", "))]
pub struct ParseEnumError {
    /// The rejected input, as given.
    pub value: String,
    /// What was being parsed, e.g. "component status".
    pub kind: &'static str,
    /// The accepted names.
    pub expected: &'static [&'static str],
}

impl ParseEnumError {
    pub(crate) fn new(value: &str, kind: &'static str, expected: &'static [&'static str]) -> Self {
        Self {
            value: value.to_owned(),
            kind,
            expected,
        }
    }
}

string_enum! {
    /// The state of one component, as shown next to it on the page.
    pub enum ComponentStatus ("component status") {
        /// Working normally.
        Operational => ("operational", "Operational"),
        /// Working, but slower or less reliable than usual.
        DegradedPerformance => ("degraded_performance", "Degraded Performance"),
        /// Unavailable for some users or some functions.
        PartialOutage => ("partial_outage", "Partial Outage"),
        /// Unavailable for everyone.
        MajorOutage => ("major_outage", "Major Outage"),
        /// Down or degraded on purpose, for planned work.
        UnderMaintenance => ("under_maintenance", "Under Maintenance"),
    }
}

string_enum! {
    /// Where an incident (or advisory) stands; each update carries one.
    pub enum IncidentStatus ("incident status") {
        /// The problem is known and being looked into.
        Investigating => ("investigating", "Investigating"),
        /// The cause is known and a fix is being worked on.
        Identified => ("identified", "Identified"),
        /// A fix is in place and being watched.
        Monitoring => ("monitoring", "Monitoring"),
        /// The incident is over.
        Resolved => ("resolved", "Resolved"),
        /// The incident is over and its postmortem is published.
        Postmortem => ("postmortem", "Postmortem"),
    }
}

impl IncidentStatus {
    /// Whether the incident is still ongoing (not resolved, no postmortem yet).
    pub fn is_open(self) -> bool {
        !matches!(self, Self::Resolved | Self::Postmortem)
    }
}

string_enum! {
    /// Where a scheduled maintenance stands; each update carries one.
    pub enum MaintenanceStatus ("maintenance status") {
        /// Announced, not started yet.
        Scheduled => ("scheduled", "Scheduled"),
        /// The work is being done.
        InProgress => ("in_progress", "In Progress"),
        /// The work is done and being checked.
        Verifying => ("verifying", "Verifying"),
        /// Finished (or cancelled).
        Completed => ("completed", "Completed"),
    }
}

impl MaintenanceStatus {
    /// Whether the maintenance is still upcoming or ongoing.
    pub fn is_open(self) -> bool {
        self != Self::Completed
    }
}

string_enum! {
    /// How badly an incident affects users; ordered from `None` to `Critical`.
    #[derive(PartialOrd, Ord)]
    pub enum Impact ("impact") {
        /// No user-visible effect.
        None => ("none", "None"),
        /// A small part of the service is affected.
        Minor => ("minor", "Minor"),
        /// A large part of the service is affected.
        Major => ("major", "Major"),
        /// The service is unusable.
        Critical => ("critical", "Critical"),
    }
}

string_enum! {
    /// What kind of event an incident record describes.
    pub enum IncidentKind ("incident kind") {
        /// Something broke.
        Incident => ("incident", "Incident"),
        /// Information users should know about that is not an outage.
        Advisory => ("advisory", "Advisory"),
        /// Planned work.
        Maintenance => ("maintenance", "Maintenance"),
    }
}

impl IncidentKind {
    /// The prefix of this kind's human references, e.g. "INC" in "INC-2026-0042".
    pub fn reference_prefix(self) -> &'static str {
        match self {
            Self::Incident => "INC",
            Self::Advisory => "ADV",
            Self::Maintenance => "MNT",
        }
    }
}

string_enum! {
    /// The page's overall status indicator, as Statuspage reports it.
    pub enum Indicator ("indicator") {
        /// Everything works.
        None => ("none", "None"),
        /// Something is degraded or a minor incident is open.
        Minor => ("minor", "Minor"),
        /// A partial outage or a major incident.
        Major => ("major", "Major"),
        /// A major outage or a critical incident.
        Critical => ("critical", "Critical"),
        /// Nothing is broken, but maintenance is under way.
        Maintenance => ("maintenance", "Maintenance"),
    }
}

string_enum! {
    /// What a team member may do.
    pub enum Role ("role") {
        /// Everything, including managing users, tokens and settings.
        Owner => ("owner", "Owner"),
        /// Creates and updates incidents, maintenances and components.
        Responder => ("responder", "Responder"),
        /// Reads the admin pages, changes nothing.
        Viewer => ("viewer", "Viewer"),
    }
}

impl Role {
    /// Whether this role may create and change incidents, components and the like.
    pub fn can_write(self) -> bool {
        matches!(self, Self::Owner | Self::Responder)
    }

    /// Whether this role may manage users, tokens and page settings.
    pub fn is_owner(self) -> bool {
        self == Self::Owner
    }
}

string_enum! {
    /// The state of a postmortem follow-up action.
    pub enum FollowUpState ("follow-up state") {
        /// Not started.
        Open => ("open", "Open"),
        /// Someone is working on it.
        InProgress => ("in_progress", "In Progress"),
        /// Finished.
        Done => ("done", "Done"),
    }
}

string_enum! {
    /// Where an integration's alerts come from, and so the body its endpoint reads.
    pub enum IntegrationKind ("integration kind") {
        /// Prometheus Alertmanager's webhook (version 4).
        Alertmanager => ("alertmanager", "Alertmanager"),
        /// Grafana Alerting's webhook contact point.
        Grafana => ("grafana", "Grafana"),
        /// Herald's own JSON body: a component, a status and a summary.
        Generic => ("generic", "Generic"),
    }
}

string_enum! {
    /// Who may read a status page.
    pub enum Visibility ("visibility") {
        /// Anyone.
        Public => ("public", "Public: anyone may read it"),
        /// Readers let in by the page's password or a sign-in link mailed to an address at an
        /// allowed domain, machine clients with a read token, and signed-in responders.
        Private => ("private", "Private: readers with the password or a link by email"),
        /// Signed-in responders (and read tokens) only.
        Internal => ("internal", "Internal: signed-in responders only"),
    }
}

string_enum! {
    /// Who may use a restricted page's support form.
    pub enum SupportReach ("support form reach") {
        /// Anyone, even on a private page: it serves the people who cannot sign in.
        Everyone => ("everyone", "Anyone, even without access to the page"),
        /// Only those the page admits.
        Readers => ("readers", "Only the page's readers"),
    }
}

string_enum! {
    /// The colours a public page is drawn in.
    #[derive(Default)]
    pub enum Theme ("theme") {
        /// The reader's system preference (light or dark).
        #[default]
        Auto => ("auto", "Automatic: the reader's light or dark preference"),
        /// Always light.
        Light => ("light", "Light"),
        /// Always dark.
        Dark => ("dark", "Dark"),
    }
}

string_enum! {
    /// What an image a page carries is for.
    pub enum ImageRole ("image") {
        /// Shown in the page's header and its mails.
        Logo => ("logo", "Logo"),
        /// The browser tab's icon.
        Favicon => ("favicon", "Favicon"),
    }
}

string_enum! {
    /// What an integration does when an alert puts a component in major outage.
    pub enum IncidentMode ("incident mode") {
        /// Nothing beyond the component's status.
        Off => ("off", "Off"),
        /// Proposes an incident from the integration's template; a responder publishes it.
        Draft => ("draft", "Draft for a responder"),
        /// Opens the incident from the template at once, with the page's usual deadline.
        Publish => ("publish", "Publish at once"),
    }
}

/// The status carried by an update: incident statuses for incidents and advisories,
/// maintenance statuses for maintenances. Serializes as the bare status name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum LifecycleStatus {
    /// The status of an incident or an advisory.
    Incident(IncidentStatus),
    /// The status of a maintenance.
    Maintenance(MaintenanceStatus),
}

impl LifecycleStatus {
    /// Parses `s` with the vocabulary of `kind`: maintenance names for maintenances,
    /// incident names for incidents and advisories.
    pub fn parse(kind: IncidentKind, s: &str) -> Result<Self, ParseEnumError> {
        match kind {
            IncidentKind::Maintenance => s.parse().map(Self::Maintenance),
            IncidentKind::Incident | IncidentKind::Advisory => s.parse().map(Self::Incident),
        }
    }

    /// The snake_case name of the wrapped status.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Incident(s) => s.as_str(),
            Self::Maintenance(s) => s.as_str(),
        }
    }

    /// The human label of the wrapped status.
    pub fn label(self) -> &'static str {
        match self {
            Self::Incident(s) => s.label(),
            Self::Maintenance(s) => s.label(),
        }
    }

    /// Whether the incident or maintenance is still open.
    pub fn is_open(self) -> bool {
        match self {
            Self::Incident(s) => s.is_open(),
            Self::Maintenance(s) => s.is_open(),
        }
    }
}

impl From<IncidentStatus> for LifecycleStatus {
    fn from(status: IncidentStatus) -> Self {
        Self::Incident(status)
    }
}

impl From<MaintenanceStatus> for LifecycleStatus {
    fn from(status: MaintenanceStatus) -> Self {
        Self::Maintenance(status)
    }
}

impl FromStr for LifecycleStatus {
    type Err = ParseEnumError;

    /// Parses a name of either vocabulary (they share none): what the database stores.
    /// Input from users is parsed with the vocabulary of its kind ([`LifecycleStatus::parse`]).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.parse()
            .map(Self::Incident)
            .or_else(|_| s.parse().map(Self::Maintenance))
            .map_err(|_| ParseEnumError::new(s, "incident or maintenance status", LIFECYCLE_NAMES))
    }
}

/// Every incident and maintenance status name.
const LIFECYCLE_NAMES: &[&str] = &[
    "investigating",
    "identified",
    "monitoring",
    "resolved",
    "postmortem",
    "scheduled",
    "in_progress",
    "verifying",
    "completed",
];

impl fmt::Display for LifecycleStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests;

//! What the database stores as text, as types: the notification tables' states and channels
//! (declared here), and the domain's vocabularies (component, incident and maintenance
//! statuses, impact, kinds, roles, follow-up states). A value the database holds is read into
//! one of these or the read fails (there is no "unknown state" to match on later), and a query
//! compares against a variant, never a string literal. Each one's `as_str()` is its stored
//! text, also used where SQL is written by hand.

use diesel::backend::Backend as DieselBackend;
use diesel::deserialize::{self, FromSql};
use diesel::pg::Pg;
use diesel::serialize::{self, IsNull, Output, ToSql};
use diesel::sql_types::Text;
use diesel::sqlite::Sqlite;

use super::connection::MultiBackend;

/// Stores a type as its text: diesel's expression and row conversions (derived on a proxy, as
/// diesel's `foreign_derive` allows) and `ToSql`/`FromSql` for both backends and the connection
/// that is either, from the type's `as_str()` and `FromStr`. A value that does not parse fails
/// the read, naming the text.
macro_rules! stored_as_text {
    ($name:ty) => {
        const _: () = {
            #[derive(diesel::AsExpression, diesel::FromSqlRow)]
            #[diesel(foreign_derive)]
            #[diesel(sql_type = Text)]
            #[allow(dead_code)]
            struct Proxy($name);
        };

        impl ToSql<Text, Sqlite> for $name {
            fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Sqlite>) -> serialize::Result {
                out.set_value(self.as_str());
                Ok(IsNull::No)
            }
        }

        impl ToSql<Text, Pg> for $name {
            fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> serialize::Result {
                <str as ToSql<Text, Pg>>::to_sql(self.as_str(), &mut out.reborrow())
            }
        }

        impl ToSql<Text, MultiBackend> for $name {
            fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, MultiBackend>) -> serialize::Result {
                out.set_value((Text, self));
                Ok(IsNull::No)
            }
        }

        impl FromSql<Text, Sqlite> for $name {
            fn from_sql(
                bytes: <Sqlite as DieselBackend>::RawValue<'_>,
            ) -> deserialize::Result<Self> {
                let text = <String as FromSql<Text, Sqlite>>::from_sql(bytes)?;
                Ok(text.parse()?)
            }
        }

        impl FromSql<Text, Pg> for $name {
            fn from_sql(bytes: <Pg as DieselBackend>::RawValue<'_>) -> deserialize::Result<Self> {
                let text = <String as FromSql<Text, Pg>>::from_sql(bytes)?;
                Ok(text.parse()?)
            }
        }

        impl FromSql<Text, MultiBackend> for $name {
            fn from_sql(
                bytes: <MultiBackend as DieselBackend>::RawValue<'_>,
            ) -> deserialize::Result<Self> {
                bytes.from_sql::<Self, Text>()
            }
        }
    };
}

/// Declares a text-backed state: the enum, its stored text, parsing, and diesel's conversions
/// for both backends and the connection that is either.
macro_rules! text_backed {
    (
        $(#[$meta:meta])*
        pub enum $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal,)+ }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
        }

        impl $name {
            /// Every state, in declaration order.
            pub const ALL: &'static [Self] = &[$(Self::$variant,)+];

            /// The stored text.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $text,)+
                }
            }

            /// The state stored as `text`, if it is one.
            pub fn parse(text: &str) -> Option<Self> {
                match text {
                    $($text => Some(Self::$variant),)+
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;
            fn from_str(text: &str) -> Result<Self, Self::Err> {
                Self::parse(text).ok_or_else(|| {
                    format!("{text:?} is not a {}", stringify!($name))
                })
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        stored_as_text!($name);
    };
}

text_backed! {
    /// Where a delivery is.
    pub enum DeliveryState {
        /// To be attempted (now, or at `next_attempt_at`).
        Pending = "pending",
        Delivered = "delivered",
        /// Refused for good by the destination (a 4xx that will not change).
        Failed = "failed",
        /// Out of attempts.
        Dead = "dead",
        /// Not sent, and never to be (the subscriber left before it went out).
        Skipped = "skipped",
    }
}

impl DeliveryState {
    /// The states a delivery does not leave by itself.
    pub const FINAL: [Self; 4] = [Self::Delivered, Self::Failed, Self::Dead, Self::Skipped];

    /// Whether a responder may send it again.
    pub fn retryable(self) -> bool {
        matches!(self, Self::Dead | Self::Failed)
    }
}

text_backed! {
    /// Where a subscriber is.
    pub enum SubscriberState {
        /// Subscribed through a public form, the confirmation link not yet opened.
        Pending = "pending",
        Confirmed = "confirmed",
        /// A webhook that kept failing, set aside until its owner acts.
        Quarantined = "quarantined",
        Unsubscribed = "unsubscribed",
    }
}

text_backed! {
    /// How a subscriber is reached (its kind), and so the channel of its deliveries.
    pub enum Channel {
        Email = "email",
        Webhook = "webhook",
    }
}

// The domain's vocabularies, stored as their names.
stored_as_text!(crate::domain::ComponentStatus);
stored_as_text!(crate::domain::Impact);
stored_as_text!(crate::domain::IncidentKind);
stored_as_text!(crate::domain::LifecycleStatus);
stored_as_text!(crate::domain::Role);
stored_as_text!(crate::domain::FollowUpState);
stored_as_text!(crate::domain::IntegrationKind);
stored_as_text!(crate::domain::IncidentMode);
stored_as_text!(crate::domain::Visibility);
stored_as_text!(crate::domain::SupportReach);
stored_as_text!(crate::domain::Theme);
stored_as_text!(crate::domain::ImageRole);
stored_as_text!(crate::domain::lang::Lang);

// The ids, stored as their text.
stored_as_text!(crate::domain::PageId);
stored_as_text!(crate::domain::ComponentId);
stored_as_text!(crate::domain::GroupId);
stored_as_text!(crate::domain::IncidentId);
stored_as_text!(crate::domain::SubscriberId);
stored_as_text!(crate::domain::IntegrationId);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_state_reads_back_from_its_text_and_nothing_else_does() {
        for state in DeliveryState::ALL {
            assert_eq!(DeliveryState::parse(state.as_str()), Some(*state));
        }
        for state in SubscriberState::ALL {
            assert_eq!(state.as_str().parse::<SubscriberState>(), Ok(*state));
        }
        for channel in Channel::ALL {
            assert_eq!(Channel::parse(channel.as_str()), Some(*channel));
        }
        assert_eq!(DeliveryState::parse("Pending"), None);
        assert!(
            "gone"
                .parse::<SubscriberState>()
                .unwrap_err()
                .contains("not a SubscriberState")
        );
        assert!(DeliveryState::Dead.retryable() && !DeliveryState::Delivered.retryable());
    }
}

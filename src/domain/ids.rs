//! The ids of the records that cross function boundaries, as types: a page's id cannot be
//! passed where a component's is expected (vaultwarden's `UserId` idea). Each is the UUIDv7
//! text the database stores; `db::states` gives them diesel's conversions, and serde reads and
//! writes them as plain strings, so no representation changes.
//!
//! An id of one kind is refused where another kind is asked for:
//!
//! ```compile_fail
//! fn component_of(page: &herald::domain::PageId, component: &herald::domain::ComponentId) {}
//! let (page, component) = (herald::domain::PageId::new(), herald::domain::ComponentId::new());
//! component_of(&component, &page); // swapped: does not compile
//! ```
//!
//! ```
//! fn component_of(page: &herald::domain::PageId, component: &herald::domain::ComponentId) {}
//! let (page, component) = (herald::domain::PageId::new(), herald::domain::ComponentId::new());
//! component_of(&page, &component);
//! ```

use std::fmt;

/// Declares an id: a string newtype, its fresh value, its text, and its conversions.
macro_rules! id_type {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(
            Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
        )]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// A fresh id (a UUIDv7: ids made later sort later).
            pub fn new() -> Self {
                Self(uuid::Uuid::now_v7().to_string())
            }

            /// The stored text.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The stored text, owned.
            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl From<String> for $name {
            fn from(text: String) -> Self {
                Self(text)
            }
        }

        impl From<&str> for $name {
            fn from(text: &str) -> Self {
                Self(text.to_owned())
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> Self {
                id.0
            }
        }

        // As vaultwarden's ids do: where a plain `&str` is asked for, an id serves.
        impl std::ops::Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl PartialEq<&$name> for $name {
            fn eq(&self, other: &&$name) -> bool {
                self == *other
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl std::str::FromStr for $name {
            type Err = std::convert::Infallible;
            fn from_str(text: &str) -> Result<Self, Self::Err> {
                Ok(Self::from(text))
            }
        }
    };
}

id_type! {
    /// A status page's id.
    PageId
}

id_type! {
    /// A component's id.
    ComponentId
}

id_type! {
    /// A component group's id.
    GroupId
}

id_type! {
    /// An incident's (or a maintenance's) id.
    IncidentId
}

id_type! {
    /// A subscriber's id.
    SubscriberId
}

id_type! {
    /// An integration's id (alerts in from monitoring).
    IntegrationId
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_its_text_in_every_representation() {
        let id = PageId::from("0190a1b2-0000-7000-8000-000000000001");
        assert_eq!(id.as_str(), "0190a1b2-0000-7000-8000-000000000001");
        assert_eq!(id.to_string(), id.as_str());
        assert_eq!(
            serde_json::to_string(&id).ok().as_deref(),
            Some("\"0190a1b2-0000-7000-8000-000000000001\"")
        );
        let read: Result<PageId, _> =
            serde_json::from_str("\"0190a1b2-0000-7000-8000-000000000001\"");
        assert_eq!(read.ok(), Some(id));
    }

    #[test]
    fn fresh_ids_differ_and_sort_in_the_order_they_were_made() {
        let first = IncidentId::new();
        let second = IncidentId::new();
        assert_ne!(first, second);
        assert!(first < second);
        assert!(uuid::Uuid::parse_str(first.as_str()).is_ok());
    }
}

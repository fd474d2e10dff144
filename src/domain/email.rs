//! Email addresses given by users and subscribers, normalized so that one person has one
//! address: trimmed and lowercased.

use std::fmt;

use serde::{Deserialize, Serialize};
use validator::ValidateEmail;

/// The longest accepted address, in bytes (RFC 5321's path limit minus the angle brackets).
pub const MAX_EMAIL_LEN: usize = 254;

/// Why a string is not an acceptable email address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EmailError {
    /// Nothing (or only whitespace) was given.
    #[error("the email address is empty; enter an address such as name@example.com")]
    Empty,
    /// The address is longer than 254 bytes.
    #[error("the email address is {len} characters long; use at most {MAX_EMAIL_LEN}")]
    TooLong {
        /// The address's length in bytes, after trimming.
        len: usize,
    },
    /// The address is not well formed.
    #[error("'{value}' is not a valid email address; enter an address such as name@example.com")]
    Invalid {
        /// The rejected address, trimmed and lowercased.
        value: String,
    },
}

/// A syntactically valid, trimmed, lowercased email address. Serializes as a plain string;
/// deserializing validates and normalizes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct EmailAddress(String);

impl EmailAddress {
    /// Trims and lowercases `s`, then checks its length and syntax.
    pub fn parse(s: &str) -> Result<EmailAddress, EmailError> {
        let address = s.trim().to_lowercase();
        if address.is_empty() {
            return Err(EmailError::Empty);
        }
        if address.len() > MAX_EMAIL_LEN {
            return Err(EmailError::TooLong { len: address.len() });
        }
        if !address.validate_email() {
            return Err(EmailError::Invalid { value: address });
        }
        Ok(EmailAddress(address))
    }

    /// The normalized address.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for EmailAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for EmailAddress {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for EmailAddress {
    type Error = EmailError;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        EmailAddress::parse(&s)
    }
}

impl From<EmailAddress> for String {
    fn from(address: EmailAddress) -> Self {
        address.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_trimmed_and_lowercased() {
        let cases = [
            ("ada@example.com", "ada@example.com"),
            ("  Ada.Lovelace@Example.COM\n", "ada.lovelace@example.com"),
            ("ops+status@sub.example.org", "ops+status@sub.example.org"),
        ];
        for (input, expected) in cases {
            let address = EmailAddress::parse(input).expect("valid address");
            assert_eq!(address.as_str(), expected);
            assert_eq!(address.to_string(), expected);
        }
    }

    #[test]
    fn malformed_addresses_are_refused() {
        for bad in [
            "ada",
            "@example.com",
            "ada@",
            "ada@@example.com",
            "a da@example.com",
        ] {
            let err = EmailAddress::parse(bad).expect_err("invalid address");
            assert!(matches!(err, EmailError::Invalid { .. }), "{bad}: {err:?}");
            assert!(
                err.to_string().contains("is not a valid email address"),
                "{err}"
            );
        }
    }

    #[test]
    fn empty_and_overlong_addresses_are_refused() {
        assert_eq!(EmailAddress::parse("   "), Err(EmailError::Empty));
        let local = "a".repeat(64);
        // Labels stay under DNS's 63-character limit: 60 + 1 + 60 + 1 + 63 + 4 = 189.
        let domain = format!(
            "{}.{}.{}.com",
            "b".repeat(60),
            "c".repeat(60),
            "d".repeat(63)
        );
        let longest = format!("{local}@{domain}");
        assert_eq!(longest.len(), MAX_EMAIL_LEN);
        assert!(EmailAddress::parse(&longest).is_ok());
        let too_long = format!("{local}@x{domain}");
        assert_eq!(
            EmailAddress::parse(&too_long),
            Err(EmailError::TooLong { len: 255 })
        );
    }

    #[test]
    fn addresses_serialize_as_strings_and_deserialize_through_parse() {
        let parsed: EmailAddress =
            serde_json::from_str("\" Ada@Example.com \"").expect("valid address");
        assert_eq!(parsed.as_str(), "ada@example.com");
        assert_eq!(
            serde_json::to_string(&parsed).expect("serializes"),
            "\"ada@example.com\""
        );
        assert!(serde_json::from_str::<EmailAddress>("\"not-an-email\"").is_err());
    }
}

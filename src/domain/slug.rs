//! URL slugs for pages, components and the like: short, lowercase, safe in a path segment, and
//! never one of the words Herald's own routes use.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The longest slug, in characters.
pub const MAX_SLUG_LEN: usize = 64;

/// Words that collide with Herald's routes and so cannot be slugs.
pub const RESERVED_SLUGS: &[&str] = &[
    "admin", "api", "assets", "static", "status", "healthz", "readyz", "metrics", "login", "logout",
];

/// Why a string is not a valid slug.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SlugError {
    /// The slug is empty.
    #[error("the slug is empty; use 1 to {MAX_SLUG_LEN} lowercase letters, digits and hyphens")]
    Empty,
    /// The slug is longer than 64 characters.
    #[error("the slug is {len} characters long; use at most {MAX_SLUG_LEN}")]
    TooLong {
        /// The slug's length in characters.
        len: usize,
    },
    /// The slug contains an uppercase letter.
    #[error("the slug contains the uppercase letter '{ch}'; use lowercase letters only")]
    Uppercase {
        /// The offending letter.
        ch: char,
    },
    /// The slug contains a character other than a-z, 0-9 and '-'.
    #[error("the slug contains '{ch}'; use only lowercase letters a-z, digits 0-9 and hyphens")]
    InvalidChar {
        /// The offending character.
        ch: char,
    },
    /// The slug starts or ends with a hyphen.
    #[error("the slug must not start or end with a hyphen")]
    EdgeHyphen,
    /// The slug contains "--".
    #[error("the slug must not contain two hyphens in a row")]
    DoubleHyphen,
    /// The slug is one of [`RESERVED_SLUGS`].
    #[error("'{slug}' is reserved for Herald's own pages; choose another slug")]
    Reserved {
        /// The reserved word.
        slug: String,
    },
}

/// A validated slug: 1 to 64 lowercase ASCII letters, digits and single inner hyphens, not a
/// reserved word. Serializes as a plain string; deserializing validates.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Slug(String);

impl Slug {
    /// Validates `s` as a slug, exactly as given (no trimming or lowercasing).
    pub fn parse(s: &str) -> Result<Slug, SlugError> {
        if s.is_empty() {
            return Err(SlugError::Empty);
        }
        if let Some(ch) = s.chars().find(|&c| !is_slug_char(c)) {
            return Err(match ch.is_uppercase() {
                true => SlugError::Uppercase { ch },
                false => SlugError::InvalidChar { ch },
            });
        }
        // Only ASCII remains, so bytes are characters.
        if s.len() > MAX_SLUG_LEN {
            return Err(SlugError::TooLong { len: s.len() });
        }
        if s.starts_with('-') || s.ends_with('-') {
            return Err(SlugError::EdgeHyphen);
        }
        if s.contains("--") {
            return Err(SlugError::DoubleHyphen);
        }
        if RESERVED_SLUGS.contains(&s) {
            return Err(SlugError::Reserved { slug: s.to_owned() });
        }
        Ok(Slug(s.to_owned()))
    }

    /// The slug as a string slice.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn is_slug_char(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'
}

impl fmt::Display for Slug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for Slug {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for Slug {
    type Error = SlugError;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        Slug::parse(&s)
    }
}

impl From<Slug> for String {
    fn from(slug: Slug) -> Self {
        slug.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_slugs_are_accepted_unchanged() {
        let max = "a".repeat(MAX_SLUG_LEN);
        for s in [
            "a",
            "api-gateway",
            "eu-west-1",
            "0",
            "2fa",
            "status-page",
            max.as_str(),
        ] {
            let slug = Slug::parse(s).expect("valid slug");
            assert_eq!(slug.as_str(), s);
            assert_eq!(slug.to_string(), s);
            assert_eq!(slug.as_ref(), s);
        }
    }

    #[test]
    fn invalid_slugs_are_refused_with_the_reason() {
        let too_long = "a".repeat(MAX_SLUG_LEN + 1);
        let cases = [
            ("", SlugError::Empty),
            (too_long.as_str(), SlugError::TooLong { len: 65 }),
            ("Api", SlugError::Uppercase { ch: 'A' }),
            ("api_v2", SlugError::InvalidChar { ch: '_' }),
            ("a b", SlugError::InvalidChar { ch: ' ' }),
            ("café", SlugError::InvalidChar { ch: 'é' }),
            ("api/", SlugError::InvalidChar { ch: '/' }),
            ("-api", SlugError::EdgeHyphen),
            ("api-", SlugError::EdgeHyphen),
            ("-", SlugError::EdgeHyphen),
            ("api--v2", SlugError::DoubleHyphen),
        ];
        for (s, expected) in cases {
            assert_eq!(Slug::parse(s), Err(expected), "{s:?}");
        }
    }

    #[test]
    fn reserved_words_are_refused_but_may_be_part_of_a_slug() {
        for &word in RESERVED_SLUGS {
            let err = Slug::parse(word).expect_err("reserved");
            assert_eq!(
                err.to_string(),
                format!("'{word}' is reserved for Herald's own pages; choose another slug")
            );
            assert!(Slug::parse(&format!("{word}-1")).is_ok());
        }
    }

    #[test]
    fn error_messages_say_what_to_change() {
        let cases = [
            ("", "use 1 to 64 lowercase letters"),
            ("Api", "use lowercase letters only"),
            (
                "a.b",
                "use only lowercase letters a-z, digits 0-9 and hyphens",
            ),
            ("a--b", "two hyphens in a row"),
        ];
        for (s, hint) in cases {
            let message = Slug::parse(s).expect_err("invalid").to_string();
            assert!(message.contains(hint), "{message}");
        }
    }

    #[test]
    fn slugs_serialize_as_strings_and_deserialize_through_parse() {
        let slug = Slug::parse("api-gateway").expect("valid slug");
        let json = serde_json::to_string(&slug).expect("serializes");
        assert_eq!(json, "\"api-gateway\"");
        assert_eq!(serde_json::from_str::<Slug>(&json).ok(), Some(slug));
        let err = serde_json::from_str::<Slug>("\"admin\"").expect_err("reserved");
        assert!(err.to_string().contains("reserved"), "{err}");
    }
}

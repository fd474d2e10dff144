//! Time zones chosen by page owners (for displaying times), parsed from IANA names.

use chrono_tz::Tz;

/// A string that is not a known IANA time zone name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "'{value}' is not a known time zone; expected an IANA time zone name such as Europe/Berlin"
)]
pub struct TimeZoneError {
    /// The rejected input, as given.
    pub value: String,
}

/// Parses an IANA time zone name such as "Europe/Berlin" or "UTC". Surrounding whitespace is
/// ignored; the name itself is case-sensitive, as in the IANA database.
pub fn parse_time_zone(s: &str) -> Result<Tz, TimeZoneError> {
    s.trim().parse().map_err(|_| TimeZoneError {
        value: s.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iana_names_parse_to_their_zone() {
        let cases = [
            ("Europe/Berlin", Tz::Europe__Berlin),
            ("UTC", Tz::UTC),
            ("America/New_York", Tz::America__New_York),
            ("Asia/Kolkata", Tz::Asia__Kolkata),
            (" Etc/UTC ", Tz::Etc__UTC),
        ];
        for (name, zone) in cases {
            assert_eq!(parse_time_zone(name), Ok(zone), "{name}");
        }
    }

    #[test]
    fn unknown_names_are_refused_with_an_example() {
        for bad in ["", "Berlin", "Europe/Atlantis", "+02:00", "CEST!"] {
            let err = parse_time_zone(bad).expect_err("unknown zone");
            assert_eq!(
                err.to_string(),
                format!(
                    "'{bad}' is not a known time zone; expected an IANA time zone name such as \
                     Europe/Berlin"
                )
            );
        }
    }
}

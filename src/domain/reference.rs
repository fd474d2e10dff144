//! Human references for incidents, advisories and maintenances, e.g. "INC-2026-0042".
//!
//! A reference is the kind's prefix, the year and a per-page, per-year sequence number padded to
//! at least four digits. References are unique per page; the database enforces that.

use super::status::IncidentKind;

/// The minimum number of digits of the sequence number.
const SEQ_WIDTH: usize = 4;

/// Formats a reference such as "INC-2026-0042"; sequences above 9999 simply get more digits.
pub fn format_reference(kind: IncidentKind, year: i32, seq: u32) -> String {
    format!("{}-{year}-{seq:0SEQ_WIDTH$}", kind.reference_prefix())
}

/// Parses a reference in the form made by [`format_reference`]. The prefix may be in any case
/// and surrounding whitespace is ignored; the year must be four digits and the sequence at
/// least four digits, without extra leading zeros.
pub fn parse_reference(s: &str) -> Option<(IncidentKind, i32, u32)> {
    let mut parts = s.trim().split('-');
    let (prefix, year, seq) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let kind = IncidentKind::ALL
        .iter()
        .copied()
        .find(|kind| kind.reference_prefix().eq_ignore_ascii_case(prefix))?;
    if year.len() != 4 || !all_digits(year) {
        return None;
    }
    let padded_too_much = seq.len() > SEQ_WIDTH && seq.starts_with('0');
    if seq.len() < SEQ_WIDTH || !all_digits(seq) || padded_too_much {
        return None;
    }
    Some((kind, year.parse().ok()?, seq.parse().ok()?))
}

fn all_digits(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use IncidentKind::*;

    #[test]
    fn references_pad_the_sequence_to_four_digits() {
        let cases = [
            (Incident, 2026, 42, "INC-2026-0042"),
            (Advisory, 2025, 1, "ADV-2025-0001"),
            (Maintenance, 2026, 9999, "MNT-2026-9999"),
            (Incident, 2026, 10000, "INC-2026-10000"),
            (Incident, 2027, 123_456, "INC-2027-123456"),
        ];
        for (kind, year, seq, expected) in cases {
            assert_eq!(format_reference(kind, year, seq), expected);
            assert_eq!(
                parse_reference(expected),
                Some((kind, year, seq)),
                "{expected}"
            );
        }
    }

    #[test]
    fn references_round_trip_for_every_kind() {
        for &kind in IncidentKind::ALL {
            for seq in [0, 1, 9, 10, 999, 1000, 9999, 10_000, 99_999, u32::MAX] {
                let reference = format_reference(kind, 2026, seq);
                assert_eq!(
                    parse_reference(&reference),
                    Some((kind, 2026, seq)),
                    "{reference}"
                );
            }
        }
    }

    #[test]
    fn parsing_accepts_any_prefix_case_and_surrounding_whitespace() {
        assert_eq!(parse_reference("inc-2026-0042"), Some((Incident, 2026, 42)));
        assert_eq!(
            parse_reference("  Mnt-2026-0007\n"),
            Some((Maintenance, 2026, 7))
        );
    }

    #[test]
    fn parsing_rejects_malformed_references() {
        let bad = [
            "",
            "INC",
            "INC-2026",
            "INC-2026-42",
            "INC-2026-00042",
            "INC-26-0042",
            "INC-2026-0042-1",
            "XYZ-2026-0042",
            "INC-2026-+042",
            "INC-20a6-0042",
            "INC 2026 0042",
            "INC-2026-99999999999",
        ];
        for s in bad {
            assert_eq!(parse_reference(s), None, "{s:?}");
        }
    }
}

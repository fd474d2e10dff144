//! Who may read a restricted page: the e-mail domains whose addresses may ask for a sign-in
//! link, and the reader's pass (what the reader cookie and a sign-in link say, before they are
//! signed).

use super::{EmailAddress, Visibility};

/// The most e-mail domains a page may allow.
pub const MAX_DOMAINS: usize = 50;

/// Checks and normalises (lower case, no leading `@`, no duplicates) a page's allowed e-mail
/// domains. A domain allows its own addresses only: `example.com` does not allow
/// `eu.example.com`; list each.
pub fn parse_domains(given: &[String]) -> Result<Vec<String>, String> {
    if given.len() > MAX_DOMAINS {
        return Err(format!(
            "at most {MAX_DOMAINS} e-mail domains may be allowed"
        ));
    }
    let mut domains: Vec<String> = Vec::new();
    for raw in given {
        let domain = parse_domain(raw)?;
        if !domains.contains(&domain) {
            domains.push(domain);
        }
    }
    Ok(domains)
}

/// One domain: two or more labels of letters, digits and hyphens, as in an e-mail address.
fn parse_domain(raw: &str) -> Result<String, String> {
    let domain = raw.trim().trim_start_matches('@').to_ascii_lowercase();
    if !super::hostname::is_host_name(&domain) {
        return Err(format!(
            "\"{}\" is not an e-mail domain: give the part after the @, like example.com",
            raw.chars().take(100).collect::<String>()
        ));
    }
    Ok(domain)
}

/// Whether `email`'s domain is one of `domains` (already normalised by [`parse_domains`]).
pub fn domain_allows(domains: &[String], email: &EmailAddress) -> bool {
    let Some((_, domain)) = email.as_str().rsplit_once('@') else {
        return false;
    };
    let domain = domain.to_ascii_lowercase();
    domains.contains(&domain)
}

/// Whether a change of a page's access settings signs its readers out (moves the epoch every
/// pass names): a new visibility, a new or removed password, or a domain no longer allowed.
/// Allowing one more domain takes nothing from anyone, so it signs no one out.
pub fn signs_readers_out(
    visibility: (Visibility, Visibility),
    domains: (&[String], &[String]),
    password_changed: bool,
) -> bool {
    let (before, after) = domains;
    visibility.0 != visibility.1 || password_changed || before.iter().any(|d| !after.contains(d))
}

/// What a reader's pass says: which page, under which of its access settings (the epoch moves
/// when the password, the allowed domains or the visibility change, and every pass of the
/// older settings stops working), and until when (seconds since the epoch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pass {
    pub page_id: String,
    pub epoch: i64,
    pub expires: i64,
}

impl Pass {
    /// The text that is signed: `v1.{page}.{epoch}.{expires}`.
    pub fn claims(&self) -> String {
        format!("v1.{}.{}.{}", self.page_id, self.epoch, self.expires)
    }

    /// Reads back [`Self::claims`] (never trusted before its signature is checked).
    pub fn parse(claims: &str) -> Option<Self> {
        let mut parts = claims.split('.');
        let (Some("v1"), Some(page_id), Some(epoch), Some(expires), None) = (
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
        ) else {
            return None;
        };
        let page_ok = !page_id.is_empty()
            && page_id.len() <= 64
            && page_id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-');
        page_ok.then(|| {
            Some(Self {
                page_id: page_id.to_owned(),
                epoch: epoch.parse().ok()?,
                expires: expires.parse().ok()?,
            })
        })?
    }

    /// Whether the pass is for `page_id` under `epoch`, and not expired at `now`.
    pub fn admits(&self, page_id: &str, epoch: i64, now: i64) -> bool {
        self.page_id == page_id && self.epoch == epoch && now < self.expires
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn email(s: &str) -> EmailAddress {
        EmailAddress::parse(s).unwrap()
    }

    #[test]
    fn domains_are_normalised_and_bad_ones_refused_by_name() {
        let given = ["Example.COM", "@contoso.co.uk", "example.com"].map(String::from);
        assert_eq!(
            parse_domains(&given).unwrap(),
            ["example.com", "contoso.co.uk"]
        );
        for bad in [
            "localhost",
            "exa mple.com",
            "-x.com",
            "x..com",
            "",
            "*.example.com",
        ] {
            let err = parse_domains(&[bad.to_owned()]).unwrap_err();
            assert!(err.contains("is not an e-mail domain"), "{bad}: {err}");
        }
        let many: Vec<String> = (0..=MAX_DOMAINS).map(|i| format!("d{i}.com")).collect();
        assert!(parse_domains(&many).unwrap_err().contains("at most 50"));
    }

    #[test]
    fn a_domain_allows_its_own_addresses_only() {
        let domains = parse_domains(&["example.com".to_owned()]).unwrap();
        assert!(domain_allows(&domains, &email("ana@example.com")));
        assert!(domain_allows(&domains, &email("Ana@EXAMPLE.com")));
        assert!(!domain_allows(&domains, &email("ana@eu.example.com")));
        assert!(!domain_allows(&domains, &email("ana@example.com.evil.io")));
        assert!(!domain_allows(&domains, &email("ana@notexample.com")));
        assert!(!domain_allows(&[], &email("ana@example.com")));
    }

    #[test]
    fn readers_are_signed_out_when_something_is_taken_from_them_only() {
        use Visibility::*;
        let (one, two) = (
            vec!["a.com".to_owned()],
            vec!["a.com".to_owned(), "b.com".to_owned()],
        );
        assert!(!signs_readers_out((Private, Private), (&one, &one), false));
        assert!(
            !signs_readers_out((Private, Private), (&one, &two), false),
            "one more domain"
        );
        assert!(
            signs_readers_out((Private, Private), (&two, &one), false),
            "a domain removed"
        );
        assert!(
            signs_readers_out((Private, Private), (&one, &one), true),
            "a new password"
        );
        assert!(signs_readers_out((Private, Internal), (&one, &one), false));
        assert!(signs_readers_out((Public, Private), (&one, &one), false));
    }

    #[test]
    fn a_pass_round_trips_and_admits_its_page_epoch_and_time_only() {
        let pass = Pass {
            page_id: "0b6c-11".into(),
            epoch: 3,
            expires: 1_000,
        };
        assert_eq!(Pass::parse(&pass.claims()), Some(pass.clone()));
        assert!(pass.admits("0b6c-11", 3, 999));
        assert!(!pass.admits("0b6c-11", 3, 1_000), "expired");
        assert!(!pass.admits("0b6c-11", 4, 10), "the settings moved on");
        assert!(!pass.admits("other", 3, 10), "another page");
        for bad in [
            "",
            "v2.a.1.2",
            "v1.a.1",
            "v1.a.1.2.3",
            "v1..1.2",
            "v1.a/b.1.2",
            "v1.a.x.2",
        ] {
            assert_eq!(Pass::parse(bad), None, "{bad}");
        }
    }
}

//! The status embed's framing rule: the sites a page lets frame `/status/{slug}/embed`, as
//! origins that CSP's `frame-ancestors` takes (`https://app.example.com`,
//! `https://*.example.com`, `http://localhost:3000`). Anything else (a path, a query, user
//! info, a bare word, `*`) is refused, so a page can never be framed by every site by mistake.

/// The most origins a page may list.
pub const MAX_ORIGINS: usize = 20;

/// Checks and normalises (lower case, no trailing slash, no duplicates) a page's list.
pub fn parse_origins(given: &[String]) -> Result<Vec<String>, String> {
    if given.len() > MAX_ORIGINS {
        return Err(format!("at most {MAX_ORIGINS} sites may frame the embed"));
    }
    let mut origins: Vec<String> = Vec::new();
    for raw in given {
        let origin = parse_origin(raw)?;
        if !origins.contains(&origin) {
            origins.push(origin);
        }
    }
    Ok(origins)
}

/// One origin: `http` or `https`, a host name (its first label may be `*`), an optional
/// port from 1 to 65535, nothing else.
pub fn parse_origin(raw: &str) -> Result<String, String> {
    let refused = || {
        format!(
            "\"{}\" is not a site's origin: give the scheme and host only, like \
             https://app.example.com or https://*.example.com (with a port if it has one)",
            raw.chars().take(100).collect::<String>()
        )
    };
    let origin = raw.trim().trim_end_matches('/').to_ascii_lowercase();
    let (scheme, rest) = origin.split_once("://").ok_or_else(refused)?;
    if !matches!(scheme, "http" | "https") {
        return Err(refused());
    }
    let (host, port) = match rest.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (rest, None),
    };
    if let Some(port) = port {
        let valid = !port.is_empty()
            && !port.starts_with('0')
            && port.len() <= 5
            && port.bytes().all(|b| b.is_ascii_digit())
            && port.parse::<u32>().is_ok_and(|p| (1..=65_535).contains(&p));
        if !valid {
            return Err(refused());
        }
    }
    let labels: Vec<&str> = host.split('.').collect();
    let label_ok = super::hostname::is_label;
    let (first, others) = labels.split_first().ok_or_else(refused)?;
    let wildcard = *first == "*";
    if host.len() > super::hostname::MAX_HOST_LEN
        || (wildcard && others.is_empty())
        || !(wildcard || label_ok(first))
        || !others.iter().all(|l| label_ok(l))
    {
        return Err(refused());
    }
    if wildcard {
        let under = others.join(".");
        if psl::suffix_str(&under) == Some(under.as_str()) {
            return Err(format!(
                "\"{}\" would let every site under .{under} frame the embed, because anyone \
                 can register a name there: give your own domain, like https://*.example.{under}",
                raw.chars().take(100).collect::<String>()
            ));
        }
    }
    Ok(origin)
}

/// The stored form: the origins separated by spaces.
pub fn stored(origins: &[String]) -> String {
    origins.join(" ")
}

/// The origins of the stored form.
pub fn listed(stored: &str) -> Vec<String> {
    stored.split_whitespace().map(str::to_owned).collect()
}

/// The `frame-ancestors` sources of a page's embed: its origins, or `'none'`.
pub fn frame_ancestors(origins: &[String]) -> String {
    if origins.is_empty() {
        "'none'".to_owned()
    } else {
        origins.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn origins_are_normalised_and_deduplicated() {
        let origins = parse_origins(&list(&[
            "https://App.Example.com/",
            "https://app.example.com",
            "https://*.example.org",
            "http://localhost:3000",
        ]))
        .unwrap();
        assert_eq!(
            origins,
            list(&[
                "https://app.example.com",
                "https://*.example.org",
                "http://localhost:3000"
            ])
        );
        assert_eq!(
            frame_ancestors(&origins),
            "https://app.example.com https://*.example.org http://localhost:3000"
        );
        assert_eq!(listed(&stored(&origins)), origins);
        assert_eq!(frame_ancestors(&[]), "'none'");
    }

    #[test]
    fn anything_but_an_origin_is_refused() {
        for bad in [
            "*",
            "https://*",
            "example.com",
            "ftp://example.com",
            "https://example.com/path",
            "https://example.com?x=1",
            "https://user@example.com",
            "https://example.com:0",
            "https://example.com:65536",
            "https://example.com:",
            "https://exa mple.com",
            "https://-bad.example.com",
            "https://a..b",
            "https://'self'",
            "javascript:alert(1)",
            "",
        ] {
            assert!(parse_origin(bad).is_err(), "{bad}");
        }
        // A wildcard over a public suffix (ICANN's or a private one) is every site there.
        for over_a_suffix in [
            "https://*.com",
            "https://*.co.uk",
            "https://*.CO.UK",
            "http://*.github.io",
            "https://*.pvt.k12.ma.us",
            "https://*.unknowntld",
        ] {
            let err = parse_origin(over_a_suffix).unwrap_err();
            assert!(err.contains("every site under"), "{over_a_suffix}: {err}");
        }
        for own in [
            "https://*.example.co.uk",
            "https://*.acme.github.io",
            "https://*.example.com",
        ] {
            assert!(parse_origin(own).is_ok(), "{own}");
        }
        let too_many: Vec<String> = (0..21)
            .map(|i| format!("https://s{i}.example.com"))
            .collect();
        assert!(parse_origins(&too_many).is_err());
    }
}

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

/// The corner of the host page a status embed sits in. At the top, it is a banner across the
/// top of the host page; at the bottom, a card fixed in that corner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Corner {
    TopLeft,
    TopRight,
    BottomLeft,
    BottomRight,
}

impl Corner {
    /// Its name (`bottom-right`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::TopLeft => "top-left",
            Self::TopRight => "top-right",
            Self::BottomLeft => "bottom-left",
            Self::BottomRight => "bottom-right",
        }
    }

    /// The corner of this name.
    pub fn parse(name: &str) -> Result<Self, String> {
        match name {
            "top-left" => Ok(Self::TopLeft),
            "top-right" => Ok(Self::TopRight),
            "bottom-left" => Ok(Self::BottomLeft),
            "bottom-right" => Ok(Self::BottomRight),
            _ => Err("must be top-left, top-right, bottom-left or bottom-right".to_owned()),
        }
    }
}

/// How a page's status embed looks, as its owner set it (Statuspage's status embed config):
/// what is not set is the embed's own default (and what the host page's CSS says wins).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Look {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<Corner>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incident_background_color: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incident_text_color: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maintenance_background_color: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maintenance_text_color: Option<String>,
}

impl Look {
    /// The stored look (the default when none is, or it cannot be read).
    pub fn read(stored: &str) -> Self {
        serde_json::from_str(stored).unwrap_or_default()
    }

    /// As stored.
    pub fn stored(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".to_owned())
    }

    /// Whether nothing is set.
    pub fn is_default(&self) -> bool {
        self == &Self::default()
    }
}

/// A colour of the embed: `#rrggbb` or `#rgb` (stored as `#rrggbb`, lower case).
pub fn colour(given: &str) -> Result<String, String> {
    let hex = given.trim().strip_prefix('#').unwrap_or(given.trim());
    let full: String = match hex.len() {
        3 => hex.chars().flat_map(|c| [c, c]).collect(),
        6 => hex.to_owned(),
        _ => String::new(),
    };
    match super::brand::Rgb::parse(&format!("#{full}")) {
        Some(_) => Ok(format!("#{}", full.to_ascii_lowercase())),
        None => Err("must be a colour as #rrggbb or #rgb".to_owned()),
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

    #[test]
    fn an_embed_look_takes_corners_and_colours_and_refuses_the_rest() {
        assert_eq!(Corner::parse("bottom-right"), Ok(Corner::BottomRight));
        assert!(Corner::parse("middle").is_err());
        assert_eq!(colour("#ABC").unwrap(), "#aabbcc");
        assert_eq!(colour("ff0000").unwrap(), "#ff0000");
        assert!(colour("red").is_err());
        assert!(colour("#12345").is_err());
        let look = Look {
            position: Some(Corner::TopLeft),
            incident_background_color: Some("#ffebe9".into()),
            ..Look::default()
        };
        assert_eq!(
            look.stored(),
            r##"{"position":"top-left","incident_background_color":"#ffebe9"}"##
        );
        assert_eq!(Look::read(&look.stored()), look);
        assert!(Look::read("not json").is_default());
    }
}

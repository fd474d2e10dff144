//! A page's header links and footer, checked as the page's settings take them.

use serde::{Deserialize, Serialize};

use super::{MAX_FOOTER_LEN, MAX_HEADER_LINKS, MAX_LINK_LABEL, MAX_LINK_URL};

/// One link in a page's header, beside its own navigation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeaderLink {
    pub label: String,
    pub url: String,
}

/// Checks a page's header links: at most [`MAX_HEADER_LINKS`], each a short label and an
/// absolute `http(s)` or `mailto:` address.
pub fn parse_header_links(links: &[HeaderLink]) -> Result<Vec<HeaderLink>, String> {
    if links.len() > MAX_HEADER_LINKS {
        return Err(format!(
            "a page has at most {MAX_HEADER_LINKS} header links; {} were given",
            links.len()
        ));
    }
    links
        .iter()
        .enumerate()
        .map(|(i, link)| {
            let n = i + 1;
            let label = link.label.trim();
            if label.is_empty() || label.chars().count() > MAX_LINK_LABEL {
                return Err(format!(
                    "link {n}: a label of 1 to {MAX_LINK_LABEL} characters is needed"
                ));
            }
            if label.chars().any(char::is_control) {
                return Err(format!("link {n}: the label must be one line of text"));
            }
            let url = parse_link_url(&link.url).map_err(|e| format!("link {n} ({label}): {e}"))?;
            Ok(HeaderLink {
                label: label.to_owned(),
                url,
            })
        })
        .collect()
}

/// An absolute `http(s)` or `mailto:` address.
fn parse_link_url(value: &str) -> Result<String, String> {
    let invalid = || {
        format!(
            "'{value}' is not an absolute http(s) or mailto: address such as https://example.com/help"
        )
    };
    if value.chars().count() > MAX_LINK_URL {
        return Err(format!(
            "the address is longer than {MAX_LINK_URL} characters"
        ));
    }
    // URL parsers drop spaces, tabs and line breaks silently; an address with any is refused.
    if value.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!(
            "'{}' holds a space or a control character",
            value.escape_debug()
        ));
    }
    if let Some(address) = value.strip_prefix("mailto:") {
        return crate::domain::EmailAddress::parse(address)
            .map(|a| format!("mailto:{a}"))
            .map_err(|_| invalid());
    }
    let url = url::Url::parse(value).map_err(|_| invalid())?;
    match url.scheme() {
        "http" | "https" if url.host_str().is_some() => Ok(url.to_string()),
        _ => Err(invalid()),
    }
}

/// The stored form of header links (a JSON array).
pub fn stored_links(links: &[HeaderLink]) -> String {
    serde_json::to_string(links).unwrap_or_else(|_| "[]".to_owned())
}

/// Header links as stored; a row that cannot be read has none.
pub fn read_links(stored: &str) -> Vec<HeaderLink> {
    serde_json::from_str(stored).unwrap_or_default()
}

/// Checks a footer: Markdown of at most [`MAX_FOOTER_LEN`] characters (rendered sanitised).
pub fn parse_footer(value: &str) -> Result<String, String> {
    let footer = value.trim();
    if footer.contains('\0') {
        return Err("the footer must not contain a NUL character".to_owned());
    }
    if footer.chars().count() > MAX_FOOTER_LEN {
        return Err(format!(
            "the footer is {} characters long; at most {MAX_FOOTER_LEN}",
            footer.chars().count()
        ));
    }
    Ok(footer.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_links_are_checked() {
        let link = |label: &str, url: &str| HeaderLink {
            label: label.to_owned(),
            url: url.to_owned(),
        };
        let ok = parse_header_links(&[
            link(" Help ", "https://example.com/help"),
            link("Mail us", "mailto:support@example.com"),
        ])
        .unwrap();
        assert_eq!(ok[0], link("Help", "https://example.com/help"));
        assert_eq!(read_links(&stored_links(&ok)), ok);
        for (bad, needle) in [
            (link("", "https://example.com"), "label"),
            (link(&"x".repeat(41), "https://example.com"), "label"),
            (link("a\nb", "https://example.com"), "one line"),
            (link("x", "javascript:alert(1)"), "not an absolute"),
            (link("x", "/relative"), "not an absolute"),
            (link("x", "data:text/html,hi"), "not an absolute"),
            (link("x", "mailto:nobody"), "not an absolute"),
            (link("x", " https://example.com"), "a space"),
            (link("x", "https://exa\tmple.com"), "a space"),
        ] {
            let err = parse_header_links(std::slice::from_ref(&bad)).expect_err(&bad.url);
            assert!(err.starts_with("link 1") && err.contains(needle), "{err}");
        }
        let many = vec![link("x", "https://example.com"); 6];
        assert!(parse_header_links(&many).unwrap_err().contains("at most 5"));
        assert!(read_links("not json").is_empty());
    }

    #[test]
    fn footers_are_bounded() {
        assert_eq!(parse_footer("  © Acme  ").unwrap(), "© Acme");
        assert!(parse_footer(&"x".repeat(1001)).is_err());
    }
}

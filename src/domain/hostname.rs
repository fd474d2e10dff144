//! Host names as people give them for a page (its custom domain), an e-mail domain allowed on
//! a private page, or a site that may frame the embed: lowercase labels of letters, digits and
//! hyphens (RFC 1123), joined by dots.

/// The longest host name, in characters.
pub const MAX_HOST_LEN: usize = 253;

/// One label: 1 to 63 lowercase letters, digits and hyphens, not starting or ending with a
/// hyphen.
pub fn is_label(label: &str) -> bool {
    (1..=63).contains(&label.len())
        && label
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !label.starts_with('-')
        && !label.ends_with('-')
}

/// A lowercase host name of two labels or more, such as `status.example.com`.
pub fn is_host_name(host: &str) -> bool {
    let mut labels = host.split('.');
    host.len() <= MAX_HOST_LEN && labels.clone().count() >= 2 && labels.all(is_label)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_host_names() {
        for good in [
            "example.com",
            "status.example.com",
            "a-b.c0",
            "xn--bcher-kva.example",
        ] {
            assert!(is_host_name(good), "{good}");
        }
        let long_label = format!("{}.com", "a".repeat(64));
        let long_host = format!("{}.com", vec!["a".repeat(60); 5].join("."));
        for bad in [
            "localhost",
            "Example.com",
            "-a.com",
            "a-.com",
            "a..com",
            "a.com.",
            "a_b.com",
            long_label.as_str(),
            long_host.as_str(),
        ] {
            assert!(!is_host_name(bad), "{bad}");
        }
        assert!(is_label("a") && !is_label("") && !is_label("*"));
    }
}

//! A page's own look: its brand colour (and the shade the dark theme draws it in), its header
//! links, its footer and its custom stylesheet, each checked as the page's settings take it.
//!
//! Contrast is WCAG 2's: the relative luminance of sRGB colours, `(L1 + 0.05) / (L2 + 0.05)`.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The contrast a brand colour needs against the light theme's white background, and the dark
/// shade against the dark one (WCAG AA for text).
pub const MIN_CONTRAST: f64 = 4.5;
/// The light theme's background.
pub const LIGHT_BG: Rgb = Rgb([0xff, 0xff, 0xff]);
/// The light theme's link colour (`--link` of `assets/app.css`), a page's without a brand.
pub const HERALD_LINK: Rgb = Rgb([0x05, 0x50, 0xae]);
/// The dark theme's background (`--bg` of `assets/app.css`'s dark block).
pub const DARK_BG: Rgb = Rgb([0x0d, 0x11, 0x17]);
/// The dark theme's raised surface (`--surface`), which links are also drawn on.
pub const DARK_SURFACE: Rgb = Rgb([0x16, 0x1b, 0x22]);
/// The most header links a page has.
pub const MAX_HEADER_LINKS: usize = 5;
/// The longest header link label, in characters.
pub const MAX_LINK_LABEL: usize = 40;
/// The longest header link URL, in characters.
const MAX_LINK_URL: usize = 2000;
/// The longest footer, in characters.
pub const MAX_FOOTER_LEN: usize = 1000;
/// The largest custom stylesheet, in bytes.
pub const MAX_CUSTOM_CSS: usize = 32 * 1024;

/// An sRGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb(pub [u8; 3]);

impl Rgb {
    /// `#rrggbb` (either case) to a colour.
    pub fn parse(value: &str) -> Option<Self> {
        let hex = value.strip_prefix('#')?;
        if hex.len() != 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let channel = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
        Some(Self([channel(0)?, channel(2)?, channel(4)?]))
    }

    /// WCAG 2 relative luminance.
    pub fn luminance(self) -> f64 {
        let linear = |c: u8| {
            let v = f64::from(c) / 255.0;
            if v <= 0.03928 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        };
        let [r, g, b] = self.0.map(linear);
        0.2126 * r + 0.7152 * g + 0.0722 * b
    }

    /// WCAG 2 contrast ratio with `other` (1 to 21).
    pub fn contrast(self, other: Rgb) -> f64 {
        let (a, b) = (self.luminance(), other.luminance());
        (a.max(b) + 0.05) / (a.min(b) + 0.05)
    }

    /// This colour moved `share` (0 to 1) of the way to `target`, channel by channel.
    fn mix(self, target: Rgb, share: f64) -> Rgb {
        let mut out = [0u8; 3];
        for (o, (a, b)) in out.iter_mut().zip(self.0.iter().zip(target.0)) {
            let (a, b) = (f64::from(*a), f64::from(b));
            *o = (a + (b - a) * share).round().clamp(0.0, 255.0) as u8;
        }
        Rgb(out)
    }

    /// The first mix toward `target`, in steps of 1 %, that reaches `min` contrast against
    /// every colour of `against`.
    fn toward(self, target: Rgb, against: &[Rgb], min: f64) -> Rgb {
        (0..=100)
            .map(|step| self.mix(target, f64::from(step) / 100.0))
            .find(|c| against.iter().all(|bg| c.contrast(*bg) >= min))
            .unwrap_or(target)
    }
}

impl fmt::Display for Rgb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [r, g, b] = self.0;
        write!(f, "#{r:02x}{g:02x}{b:02x}")
    }
}

/// A page's brand colour: readable on the light theme's white background (4.5:1 or more).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BrandColor(Rgb);

impl BrandColor {
    /// Checks `value` (`#rrggbb`): refused, with a darker shade to try, when it is too light
    /// for text on white.
    pub fn parse(value: &str) -> Result<Self, String> {
        let color = Rgb::parse(value.trim()).ok_or_else(|| {
            format!("'{value}' is not a colour written as #rrggbb, such as #0b5fff")
        })?;
        let ratio = color.contrast(LIGHT_BG);
        if ratio < MIN_CONTRAST {
            let darker = color.toward(Rgb([0, 0, 0]), &[LIGHT_BG], MIN_CONTRAST);
            return Err(format!(
                "{color} has a contrast of {ratio:.2}:1 against the page's white background; \
                 links and buttons in the brand colour need at least 4.5:1 (WCAG AA) to be \
                 read. A darker shade such as {darker} would do"
            ));
        }
        Ok(Self(color))
    }

    /// The colour as stored and written in CSS (`#rrggbb`, lowercase).
    pub fn light(self) -> Rgb {
        self.0
    }

    /// The dark theme's shade: the colour lightened just enough to reach 4.5:1 on the dark
    /// background and surface (dark text on it then reads as well).
    pub fn dark(self) -> Rgb {
        self.0.toward(
            Rgb([0xff, 0xff, 0xff]),
            &[DARK_BG, DARK_SURFACE],
            MIN_CONTRAST,
        )
    }
}

impl fmt::Display for BrandColor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

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

/// Checks a custom stylesheet. It is served as the page's own stylesheet, under the site's
/// Content-Security-Policy (nothing from elsewhere), so it can restyle the page and no more;
/// what would be refused there or is a script vector in any browser is refused here with a
/// reason instead of failing silently.
pub fn parse_custom_css(value: &str) -> Result<String, String> {
    let css = value.trim();
    if css.contains('\0') {
        return Err("the stylesheet must not contain a NUL character".to_owned());
    }
    if css.len() > MAX_CUSTOM_CSS {
        return Err(format!(
            "the stylesheet is {} bytes; at most {} KiB",
            css.len(),
            MAX_CUSTOM_CSS / 1024
        ));
    }
    if css.contains("</") {
        return Err("the stylesheet must not contain '</'".to_owned());
    }
    let mut parser = cssparser::Parser::new(css);
    check_css(&mut parser, Within::Rules).map_err(|e| match e.kind {
        cssparser::ParseErrorKind::Custom(why) => why,
        cssparser::ParseErrorKind::Basic(cssparser::BasicParseErrorKind::TooManyNestedBlocks) => {
            "the stylesheet nests its blocks too deep".to_owned()
        }
        cssparser::ParseErrorKind::Basic(other) => {
            format!("the stylesheet cannot be read: {other}")
        }
    })?;
    Ok(css.to_owned())
}

/// What a run of CSS tokens is inside: where a quoted string is an address or is text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Within {
    Rules,
    /// `url("…")`, `image-set("…")` and the like: their strings load.
    Addresses,
}

/// The functions whose quoted strings are addresses an image or font loads from.
const ADDRESS_FUNCTIONS: [&str; 8] = [
    "url",
    "src",
    "image",
    "-webkit-image",
    "image-set",
    "-webkit-image-set",
    "cross-fade",
    "-webkit-cross-fade",
];

/// Reads `parser`'s tokens as a browser does (escapes decoded: `\75 rl(` is `url(`), refusing
/// what would load from elsewhere, run script or break out of the stylesheet, and blocks that
/// are closed without being opened or never closed.
fn check_css(
    parser: &mut cssparser::Parser<'_>,
    within: Within,
) -> Result<(), cssparser::ParseError<String>> {
    use cssparser::Token;
    let refuse = |why: String| cssparser::ParseError {
        kind: cssparser::ParseErrorKind::Custom(why),
    };
    loop {
        let start = parser.position();
        let Ok(token) = parser.next_including_whitespace_and_comments().cloned() else {
            return Ok(());
        };
        let nested = match token {
            Token::AtKeyword(name) if name.eq_ignore_ascii_case("import") => {
                let why = "@import is not allowed: the page's stylesheet is all there is";
                return Err(refuse(why.to_owned()));
            }
            Token::Ident(name)
                if name.eq_ignore_ascii_case("behavior")
                    || name.eq_ignore_ascii_case("-moz-binding") =>
            {
                let why = format!("{} runs script and is not allowed", name.to_lowercase());
                return Err(refuse(why));
            }
            Token::UnquotedUrl(target) => {
                let target = target.to_string();
                css_address(&target).map_err(refuse)?;
                None
            }
            Token::QuotedString(target) if within == Within::Addresses => {
                let target = target.to_string();
                css_address(&target).map_err(refuse)?;
                None
            }
            Token::Function(name) => {
                let name = name.to_ascii_lowercase();
                if name == "expression" {
                    let why = "expression() runs script and is not allowed";
                    return Err(refuse(why.to_owned()));
                }
                if ADDRESS_FUNCTIONS.contains(&name.as_str()) {
                    Some(Within::Addresses)
                } else {
                    Some(Within::Rules)
                }
            }
            Token::ParenthesisBlock | Token::SquareBracketBlock | Token::CurlyBracketBlock => {
                Some(Within::Rules)
            }
            Token::CloseCurlyBracket | Token::CloseParenthesis | Token::CloseSquareBracket => {
                let why = "a '}', ')' or ']' closes a block that was never opened";
                return Err(refuse(why.to_owned()));
            }
            Token::BadUrl(_) => {
                let why = "a url(...) is malformed: quote it, or escape its spaces and quotes";
                return Err(refuse(why.to_owned()));
            }
            Token::BadString(_) => {
                let why = "a string is not closed before the end of its line";
                return Err(refuse(why.to_owned()));
            }
            Token::Comment(_) if !parser.slice_from(start).ends_with("*/") => {
                let why = "a block or comment is not closed";
                return Err(refuse(why.to_owned()));
            }
            _ => None,
        };
        if let Some(within) = nested {
            let mut end = None;
            parser.parse_nested_block(|inner| {
                check_css(inner, within)?;
                end = Some(inner.position());
                Ok(())
            })?;
            // A closed block ends past its content, at its closing bracket.
            if end == Some(parser.position()) {
                let why = "a block or comment is not closed";
                return Err(refuse(why.to_owned()));
            }
        }
    }
}

/// Checks an address a stylesheet loads (already unescaped), resolved as a browser would
/// against the page: only `data:` and the page's own site are allowed, as the page's
/// Content-Security-Policy allows.
fn css_address(target: &str) -> Result<(), String> {
    const PAGE: &str = "https://herald.invalid/status/page/";
    let shown: String = target.chars().take(100).collect();
    let page = url::Url::parse(PAGE).map_err(|e| e.to_string())?;
    let Ok(resolved) = page.join(target) else {
        return Err(format!("url({shown}) is not an address"));
    };
    match resolved.scheme() {
        "data" => Ok(()),
        "https" if resolved.host_str() == page.host_str() => Ok(()),
        scheme @ ("javascript" | "vbscript") => Err(format!("{scheme}: addresses are not allowed")),
        _ => Err(format!(
            "url({shown}) loads from another site, which the page's Content-Security-Policy \
             refuses; only data: URLs and the page's own addresses load"
        )),
    }
}

/// The page's own stylesheet: the brand colour in both themes (links, buttons, focus rings and
/// the header's accent), then the custom CSS.
pub fn stylesheet(color: Option<BrandColor>, custom_css: Option<&str>) -> String {
    let mut css = String::new();
    if let Some(color) = color {
        let (light, dark) = (color.light(), color.dark());
        css.push_str(&format!(
            ":root {{ --link: {light}; --focus: {light}; --brand: {light}; }}\n\
             @media (prefers-color-scheme: dark) {{ :root:not([data-theme=\"light\"]) {{ --link: {dark}; --focus: {dark}; --brand: {dark}; }} }}\n\
             :root[data-theme=\"dark\"] {{ --link: {dark}; --focus: {dark}; --brand: {dark}; }}\n\
             .site-header {{ border-top: 4px solid var(--brand); }}\n"
        ));
    }
    if let Some(custom) = custom_css.filter(|c| !c.is_empty()) {
        css.push_str("/* The page's custom CSS */\n");
        css.push_str(custom);
        css.push('\n');
    }
    css
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contrast_is_wcag_2s() {
        let black = Rgb([0, 0, 0]);
        assert!((black.contrast(LIGHT_BG) - 21.0).abs() < 1e-9);
        assert!((LIGHT_BG.contrast(LIGHT_BG) - 1.0).abs() < 1e-9);
        // #767676 is the lightest grey that passes AA on white (4.54:1).
        let grey = Rgb::parse("#767676").unwrap();
        assert!((grey.contrast(LIGHT_BG) - 4.54).abs() < 0.01);
    }

    #[test]
    fn a_brand_colour_must_read_on_white() {
        let ok = BrandColor::parse("#0B5FFF").expect("dark enough");
        assert_eq!(ok.to_string(), "#0b5fff");
        let err = BrandColor::parse("#ffcc00").expect_err("yellow on white");
        assert!(
            err.contains("#ffcc00 has a contrast of 1.") && err.contains("4.5:1"),
            "{err}"
        );
        let suggested = err
            .rsplit("such as ")
            .next()
            .unwrap()
            .split(' ')
            .next()
            .unwrap();
        let suggested = Rgb::parse(suggested).expect("a colour is suggested");
        assert!(suggested.contrast(LIGHT_BG) >= MIN_CONTRAST, "{suggested}");
        assert!(BrandColor::parse(&suggested.to_string()).is_ok());
        assert!(BrandColor::parse("#767676").is_ok(), "4.54:1 passes");
        assert!(BrandColor::parse("#777777").is_err(), "4.48:1 does not");
        for bad in ["0b5fff", "#0b5ff", "#0b5fffa", "#gggggg", "blue", ""] {
            let err = BrandColor::parse(bad).expect_err(bad);
            assert!(err.contains("#rrggbb"), "{bad}: {err}");
        }
    }

    #[test]
    fn the_dark_shade_reads_on_the_dark_theme() {
        for value in [
            "#0b5fff", "#6f42c1", "#000000", "#1a7f37", "#cf222e", "#767676",
        ] {
            let color = BrandColor::parse(value).unwrap();
            let dark = color.dark();
            for bg in [DARK_BG, DARK_SURFACE] {
                assert!(
                    dark.contrast(bg) >= MIN_CONTRAST,
                    "{value} -> {dark} on {bg}"
                );
            }
            assert_ne!(
                dark,
                color.light(),
                "{value} is too dark for the dark theme as it is"
            );
        }
        let blue = BrandColor::parse("#0b5fff").unwrap().dark();
        assert!(blue.0[2] > blue.0[0], "the hue is kept: {blue}");
    }

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
    fn custom_css_restyles_and_cannot_script_or_load() {
        let css = ".brand { letter-spacing: 0.02em; }\n/* a } in a comment */\nbody{background:url(data:image/png;base64,AAAA)}";
        assert_eq!(parse_custom_css(css).unwrap(), css);
        for (bad, needle) in [
            ("@import url(x.css);", "@import"),
            ("@IMPORT 'x.css';", "@import"),
            ("a { width: expression(alert(1)) }", "expression"),
            // A parenthesis in an unquoted url() makes it a bad token, which browsers drop.
            ("a { background: url(JavaScript:alert(1)) }", "malformed"),
            (
                "a { background: url(JavaScript:alert%281%29) }",
                "javascript",
            ),
            ("a { background: url('JavaScript:alert(1)') }", "javascript"),
            ("a { behavior: url(x.htc) }", "behavior"),
            ("a { -moz-binding: url(x.xml) }", "-moz-binding"),
            (
                "a { background: url( 'https://evil.example/x.png' ) }",
                "another site",
            ),
            (
                "a { background: url(//evil.example/x.png) }",
                "another site",
            ),
            ("a { color: red", "not closed"),
            ("a { color: red } }", "never opened"),
            ("</style><script>", "</"),
            // Escapes are decoded first, as browsers do.
            (r"@\69 mport 'https://evil.example/x.css';", "@import"),
            (
                r"a { background: \75 rl(https://evil.example/x.png) }",
                "another site",
            ),
            (
                r"a { background: url(http:\2f\2f evil.example/x.png) }",
                "another site",
            ),
            (r"a { background: url(javas\63 ript:alert) }", "javascript"),
            (r"a { width: expr\65 ssion(alert(1)) }", "expression"),
            (r"a { be\68 avior: url(x.htc) }", "behavior"),
            // Strings load too, where an image is expected.
            (
                "a { background: image-set('https://evil.example/x.png' 1x) }",
                "another site",
            ),
            (
                "a { background: -webkit-image-set(\"//evil.example/x.png\" 1x) }",
                "another site",
            ),
            (
                "@font-face { font-family: x; src: url('https://evil.example/f.woff2') }",
                "another site",
            ),
            // A browser reads a backslash as a slash, and drops tabs and newlines, in addresses.
            (
                r"a { background: url('/\5c evil.example/x.png') }",
                "another site",
            ),
            (
                "a { background: url('java\\9 script:alert(1)') }",
                "javascript",
            ),
            ("a { background: url(vbscript:msgbox) }", "vbscript"),
            (
                "a { background: url('ftp://evil.example/x') }",
                "another site",
            ),
            ("a { color: red ) }", "never opened"),
            ("a { color: red } /* open", "not closed"),
            ("a { background: url(x y) }", "malformed"),
            (
                "a { content: 'open\n' }",
                "not closed before the end of its line",
            ),
        ] {
            let err = parse_custom_css(bad).expect_err(bad);
            assert!(err.contains(needle), "{bad}: {err}");
        }
        let fine = "@media (min-width: 40em) { .brand { background: url(/status/acme/logo.png) \
                    no-repeat, image-set('logo.png' 1x, \"data:image/png;base64,AA\" 2x); } }\n\
                    @font-face { font-family: Brand; src: local('Brand'), url(brand.woff2) \
                    format('woff2'); }\n.note::before { content: 'javascript: is text here'; }";
        assert_eq!(parse_custom_css(fine), Ok(fine.to_owned()));
        let deep = "a{".repeat(100);
        assert!(parse_custom_css(&deep).unwrap_err().contains("too deep"));
        let big = "a{}".repeat(MAX_CUSTOM_CSS / 3 + 1);
        assert!(parse_custom_css(&big).unwrap_err().contains("32 KiB"));
    }

    #[test]
    fn the_stylesheet_draws_the_brand_in_both_themes() {
        let color = BrandColor::parse("#0b5fff").unwrap();
        let css = stylesheet(Some(color), Some(".x{}"));
        assert!(css.contains("--link: #0b5fff"), "{css}");
        assert!(css.contains(&format!("--link: {}", color.dark())), "{css}");
        assert!(
            css.trim_end().ends_with(".x{}"),
            "custom CSS comes last: {css}"
        );
        assert_eq!(stylesheet(None, None), "");
        assert_eq!(stylesheet(None, Some("")), "");
    }

    #[test]
    fn footers_are_bounded() {
        assert_eq!(parse_footer("  © Acme  ").unwrap(), "© Acme");
        assert!(parse_footer(&"x".repeat(1001)).is_err());
    }
}

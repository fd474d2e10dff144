//! The SVG status badge (`badge.svg`), in the shape of shields.io's "flat" style: the page's
//! name on grey, its status description on the indicator's colour.
//!
//! The colours are darker than shields.io's so the text keeps a WCAG AA contrast of at least
//! 4.5:1 (dark text on yellow); the badge carries a `<title>` and an `aria-label` for screen
//! readers. Text widths come from Verdana's metrics at 11 px, like shields.io's.

use std::fmt::Write;

use crate::domain::Indicator;
use crate::render::html::escape_markup;
use crate::render::{CachePolicy, Representation};
use crate::services::public::data::PageData;

/// Labels longer than this many characters are cut with an ellipsis.
const MAX_LABEL_CHARS: usize = 40;
/// Grey behind the label.
const LABEL_BACKGROUND: &str = "#555";
const WHITE: &str = "#fff";
const DARK: &str = "#1a1a1a";

/// The badge of `data`'s current status (`image/svg+xml`).
pub fn render(data: &PageData) -> Representation {
    let label = label(&data.page.name);
    let message = clean(data.status.description);
    let svg = svg(&label, &message, data.status.indicator);
    // Embedded in other sites, and readable by their scripts, as the v2 JSON.
    Representation::new("image/svg+xml", svg.into_bytes(), CachePolicy::PUBLIC).with_cors()
}

/// The label: the page's name (cut when long), or "status" when it has none.
fn label(name: &str) -> String {
    let name = clean(name.trim());
    if name.is_empty() {
        return "status".to_owned();
    }
    match name.char_indices().nth(MAX_LABEL_CHARS) {
        Some((cut, _)) => format!("{}…", name[..cut].trim_end()),
        None => name,
    }
}

/// Background and text colour for an indicator.
pub fn colours(indicator: Indicator) -> (&'static str, &'static str) {
    match indicator {
        Indicator::None => ("#2e7d32", WHITE),
        Indicator::Minor => ("#f1c40f", DARK),
        Indicator::Major => ("#c2410c", WHITE),
        Indicator::Critical => ("#b91c1c", WHITE),
        Indicator::Maintenance => ("#1d4ed8", WHITE),
    }
}

/// The SVG markup; both texts are escaped here.
fn svg(label: &str, message: &str, indicator: Indicator) -> String {
    let (background, foreground) = colours(indicator);
    let (label_w, message_w) = (text_width(label), text_width(message));
    // Ids carry the width: badges inlined together keep their own clip (same width, same clip).
    // 5 px of padding on each side of each text, as on shields.io.
    let left = (label_w / 10.0).round() + 10.0;
    let right = (message_w / 10.0).round() + 10.0;
    let total = left + right;
    let title = escape(&format!("{label}: {message}"));
    let mut out = String::with_capacity(1200);
    let _ = write!(
        out,
        concat!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="20" role="img" aria-label="{title}">"#,
            "<title>{title}</title>",
            r##"<linearGradient id="s{total}" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>"##,
            r##"<clipPath id="r{total}"><rect width="{total}" height="20" rx="3" fill="#fff"/></clipPath>"##,
            r#"<g clip-path="url(#r{total})"><rect width="{left}" height="20" fill="{label_bg}"/><rect x="{left}" width="{right}" height="20" fill="{background}"/><rect width="{total}" height="20" fill="url(#s{total})"/></g>"#,
            r#"<g text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" text-rendering="geometricPrecision" font-size="110">"#,
        ),
        total = total,
        title = title,
        left = left,
        right = right,
        label_bg = LABEL_BACKGROUND,
        background = background,
    );
    text(&mut out, label, left * 5.0, label_w, WHITE);
    text(
        &mut out,
        message,
        (left + right / 2.0) * 10.0,
        message_w,
        foreground,
    );
    out.push_str("</g></svg>");
    out
}

/// One text with its shadow, centred on `x` (in tenths of a pixel, as the text is scaled by
/// 0.1 for sub-pixel positioning).
fn text(out: &mut String, value: &str, x: f64, width: f64, fill: &str) {
    let shadow = if fill == WHITE { "#010101" } else { "#ccc" };
    let value = escape(value);
    let length = width.round();
    let _ = write!(
        out,
        concat!(
            r#"<text aria-hidden="true" x="{x}" y="150" fill="{shadow}" fill-opacity=".3" transform="scale(.1)" textLength="{length}">{value}</text>"#,
            r#"<text aria-hidden="true" x="{x}" y="140" fill="{fill}" transform="scale(.1)" textLength="{length}">{value}</text>"#,
        ),
        x = x.round(),
        shadow = shadow,
        length = length,
        value = value,
        fill = fill,
    );
}

/// Width of `text` in tenths of a pixel, set in Verdana at 11 px.
fn text_width(text: &str) -> f64 {
    text.chars().map(char_width).sum::<f64>() * 10.0
}

/// Advance width of one character in Verdana at 11 px (approximate outside ASCII).
fn char_width(c: char) -> f64 {
    const ASCII: &[f64; 95] = &[
        3.87, 4.33, 5.05, 9.0, 6.99, 11.84, 7.99, 2.95, 4.99, 4.99, 6.99, 9.0, 4.0, 4.99, 4.0,
        4.99, 6.99, 6.99, 6.99, 6.99, 6.99, 6.99, 6.99, 6.99, 6.99, 6.99, 4.99, 4.99, 9.0, 9.0,
        9.0, 6.0, 11.0, 7.52, 7.54, 7.68, 8.48, 6.96, 6.32, 8.53, 8.27, 4.63, 5.0, 7.62, 6.12,
        9.27, 8.23, 8.66, 6.63, 8.66, 7.65, 7.52, 6.78, 8.05, 7.52, 10.88, 7.54, 6.77, 7.54, 4.99,
        4.99, 4.99, 9.0, 6.99, 6.99, 6.61, 6.85, 5.73, 6.85, 6.55, 3.87, 6.85, 6.96, 3.02, 3.79,
        6.51, 3.02, 10.66, 6.96, 6.68, 6.85, 6.85, 4.69, 5.73, 4.33, 6.96, 6.51, 8.98, 6.51, 6.51,
        5.78, 6.98, 4.99, 6.98, 9.0,
    ];
    match c {
        ' '..='~' => ASCII[c as usize - ' ' as usize],
        '\u{2e80}'.. => 11.0,
        _ => 7.0,
    }
}

/// Drops characters XML 1.0 does not allow (control characters) and folds whitespace.
fn clean(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .filter(|c| !c.is_control() && !matches!(c, '\u{fffe}' | '\u{ffff}'))
        .collect()
}

/// Escapes text for XML content and attribute values.
fn escape(text: &str) -> String {
    escape_markup(text, "&apos;")
}

#[cfg(test)]
mod tests {
    use quick_xml::escape::resolve_predefined_entity;
    use quick_xml::events::Event;
    use quick_xml::{Reader, XmlVersion};

    use super::*;
    use crate::domain::PageStatus;
    use crate::services::public::fixtures::records as fixture;

    /// The badge's SVG text.
    fn svg_of(data: &PageData) -> String {
        let rep = render(data);
        assert_eq!(rep.content_type, "image/svg+xml");
        String::from_utf8(rep.identity.to_vec()).expect("UTF-8")
    }

    /// Parses the whole document (failing on malformed XML); returns the root's `aria-label`,
    /// the `<title>` text and the `fill` of every `<rect>`.
    fn parse(svg: &str) -> (String, String, Vec<String>) {
        let mut reader = Reader::from_str(svg);
        let (mut aria, mut title, mut fills) = (String::new(), String::new(), Vec::new());
        let mut in_title = false;
        let decoder = reader.decoder();
        loop {
            match reader.read_event().expect("well-formed XML") {
                Event::Start(e) | Event::Empty(e) => {
                    let attr = |name: &str| {
                        e.try_get_attribute(name)
                            .expect("valid attribute")
                            .map(|a| {
                                a.decoded_and_normalized_value(XmlVersion::Implicit1_0, decoder)
                                    .expect("escaped")
                            })
                            .map(|v| v.into_owned())
                    };
                    match e.local_name().as_ref() {
                        b"svg" => aria = attr("aria-label").expect("aria-label"),
                        b"title" => in_title = true,
                        b"rect" => fills.extend(attr("fill")),
                        _ => {}
                    }
                }
                Event::End(e) if e.local_name().as_ref() == b"title" => in_title = false,
                Event::Text(t) if in_title => title.push_str(&t.decode().expect("UTF-8")),
                Event::GeneralRef(r) if in_title => {
                    let name = r.decode().expect("UTF-8");
                    title.push_str(resolve_predefined_entity(&name).expect("XML entity"));
                }
                Event::Eof => break,
                _ => {}
            }
        }
        (aria, title, fills)
    }

    fn with_indicator(indicator: Indicator) -> PageData {
        let mut data = fixture::page();
        data.status = PageStatus::from_indicator(indicator);
        data
    }

    #[test]
    fn the_badge_is_an_svg_labelled_with_the_page_and_its_status() {
        let svg = svg_of(&fixture::page());
        assert!(
            svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
            "{svg}"
        );
        let (aria, title, _) = parse(&svg);
        assert_eq!(title, "Acme Cloud: Major System Outage");
        assert_eq!(aria, title);
        assert!(svg.contains(">Acme Cloud</text>") && svg.contains(">Major System Outage</text>"));
    }

    #[test]
    fn the_colour_follows_the_indicator() {
        let cases = [
            (Indicator::None, "#2e7d32", "All Systems Operational"),
            (Indicator::Minor, "#f1c40f", "Minor Service Outage"),
            (Indicator::Major, "#c2410c", "Partial System Outage"),
            (Indicator::Critical, "#b91c1c", "Major System Outage"),
            (
                Indicator::Maintenance,
                "#1d4ed8",
                "Service Under Maintenance",
            ),
        ];
        for (indicator, colour, description) in cases {
            let (_, title, fills) = parse(&svg_of(&with_indicator(indicator)));
            assert_eq!(fills[1..3], [LABEL_BACKGROUND, colour], "{indicator}");
            assert_eq!(title, format!("Acme Cloud: {description}"));
        }
    }

    /// WCAG 2 relative luminance of `#rgb` or `#rrggbb`.
    fn luminance(hex: &str) -> f64 {
        let hex = hex.trim_start_matches('#');
        let hex: String = match hex.len() {
            3 => hex.chars().flat_map(|c| [c, c]).collect(),
            _ => hex.to_owned(),
        };
        let channel = |i: usize| {
            let c = f64::from(u8::from_str_radix(&hex[i..i + 2], 16).expect("hex")) / 255.0;
            if c <= 0.03928 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4)
    }

    fn contrast(a: &str, b: &str) -> f64 {
        let (a, b) = (luminance(a), luminance(b));
        (a.max(b) + 0.05) / (a.min(b) + 0.05)
    }

    #[test]
    fn text_meets_wcag_aa_contrast_on_every_colour() {
        assert!(contrast(LABEL_BACKGROUND, WHITE) >= 4.5);
        for &indicator in Indicator::ALL {
            let (background, text) = colours(indicator);
            let ratio = contrast(background, text);
            assert!(ratio >= 4.5, "{indicator}: {ratio:.2}");
        }
    }

    #[test]
    fn user_text_is_escaped() {
        let data = fixture::hostile();
        let svg = svg_of(&data);
        assert!(!svg.contains("<script"), "{svg}");
        assert!(svg.contains("&lt;script&gt;"), "{svg}");
        let (aria, title, _) = parse(&svg);
        assert_eq!(title, "<script>: Major System Outage");
        assert_eq!(aria, title);
        let mut quoted = fixture::page();
        quoted.page.name = "A \"quoted\" & 'odd'\u{0} name".into();
        let (aria, title, _) = parse(&svg_of(&quoted));
        assert_eq!(title, "A \"quoted\" & 'odd' name: Major System Outage");
        assert_eq!(aria, title);
    }

    #[test]
    fn a_blank_name_reads_status_and_a_long_one_is_cut() {
        let mut data = fixture::page();
        data.page.name = "  ".into();
        assert_eq!(parse(&svg_of(&data)).1, "status: Major System Outage");
        data.page.name = "Ü".repeat(60);
        let title = parse(&svg_of(&data)).1;
        assert_eq!(
            title,
            format!("{}…: Major System Outage", "Ü".repeat(MAX_LABEL_CHARS))
        );
    }

    #[test]
    fn the_badge_grows_with_its_text_and_depends_only_on_the_data() {
        let width = |data: &PageData| -> f64 {
            let svg = svg_of(data);
            let start = svg.find("width=\"").expect("width") + 7;
            let end = start + svg[start..].find('"').expect("end quote");
            svg[start..end].parse().expect("a number")
        };
        let short = with_indicator(Indicator::None);
        let mut long = short.clone();
        long.page.name = "Acme Cloud Platform Europe".into();
        assert!(width(&long) > width(&short) + 50.0);
        let mut later = short.clone();
        later.as_of += chrono::Duration::days(1);
        assert_eq!(render(&short).identity, render(&later).identity);
    }
}

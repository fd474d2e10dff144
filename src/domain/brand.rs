//! A page's own look: its brand colour (and the shade the dark theme draws it in), its header
//! links, its footer and its custom stylesheet, each checked as the page's settings take it.
//!
//! Contrast is WCAG 2's: the relative luminance of sRGB colours, `(L1 + 0.05) / (L2 + 0.05)`.

use std::fmt;

mod css;
mod links;

pub use css::parse_custom_css;
pub use links::{HeaderLink, parse_footer, parse_header_links, read_links, stored_links};

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
}

//! An image a page owner uploads (its logo, its favicon): read as what its bytes are, not what
//! it is called; a PNG or WebP decoded in full under size limits, an SVG rewritten by
//! Cloudflare's `svg-hush` filter (no script, no event handler, nothing loaded from elsewhere).

use std::fmt;
use std::io::Cursor;

/// The largest upload, in bytes.
pub const MAX_IMAGE_BYTES: usize = 256 * 1024;
/// The widest or tallest raster image, in pixels.
pub const MAX_IMAGE_SIDE: u32 = 4096;
/// The deepest an SVG's elements may nest. Drawings from editors nest a few dozen levels at
/// most; the filter indents its output by depth, so deep nesting grows with its square.
pub const MAX_SVG_DEPTH: usize = 100;
/// The most bytes a filtered SVG may take: the filter re-indents, so its output may be larger
/// than the upload, but never more than this.
pub const MAX_SVG_OUTPUT: usize = 2 * MAX_IMAGE_BYTES;

/// The kinds of image a page may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImageKind {
    Png,
    Svg,
    Webp,
}

impl ImageKind {
    /// The media type served with it.
    pub fn content_type(self) -> &'static str {
        match self {
            Self::Png => "image/png",
            Self::Svg => "image/svg+xml",
            Self::Webp => "image/webp",
        }
    }

    /// The file extension of its URL.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Png => "png",
            Self::Svg => "svg",
            Self::Webp => "webp",
        }
    }

    /// The kind served as `content_type` (as stored).
    pub fn from_content_type(content_type: &str) -> Option<Self> {
        [Self::Png, Self::Svg, Self::Webp]
            .into_iter()
            .find(|k| k.content_type() == content_type)
    }
}

impl fmt::Display for ImageKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Png => "PNG",
            Self::Svg => "SVG",
            Self::Webp => "WebP",
        })
    }
}

/// An image that passed the checks, ready to serve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedImage {
    pub kind: ImageKind,
    /// The bytes to store and serve: as uploaded for PNG and WebP, filtered for SVG.
    pub bytes: Vec<u8>,
    /// Whether the filter removed anything from an SVG.
    pub sanitised: bool,
}

/// Why an upload is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    #[error("the image is empty")]
    Empty,
    #[error("the image is {0} bytes; at most {max} KiB", max = MAX_IMAGE_BYTES / 1024)]
    TooLarge(usize),
    #[error("the file is not a PNG, SVG or WebP image")]
    UnknownKind,
    #[error("the file starts as a {0} image but cannot be read as one: {1}")]
    Unreadable(ImageKind, String),
    #[error("the image is {0}×{1} pixels; at most {max}×{max}", max = MAX_IMAGE_SIDE)]
    TooBig(u32, u32),
    #[error("the SVG nests its elements more than {max} deep", max = MAX_SVG_DEPTH)]
    TooDeep,
    #[error(
        "the SVG would be more than {max} KiB once filtered; simplify the drawing",
        max = MAX_SVG_OUTPUT / 1024
    )]
    FilteredTooLarge,
}

/// Checks `bytes` as an image (CPU work: call it off the async threads).
pub fn check_image(bytes: &[u8]) -> Result<CheckedImage, ImageError> {
    if bytes.is_empty() {
        return Err(ImageError::Empty);
    }
    if bytes.len() > MAX_IMAGE_BYTES {
        return Err(ImageError::TooLarge(bytes.len()));
    }
    match sniff(bytes).ok_or(ImageError::UnknownKind)? {
        ImageKind::Svg => check_svg(bytes),
        kind => check_raster(kind, bytes),
    }
}

/// The kind the bytes say they are.
fn sniff(bytes: &[u8]) -> Option<ImageKind> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Some(ImageKind::Png);
    }
    if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        return Some(ImageKind::Webp);
    }
    let text = std::str::from_utf8(bytes).ok()?;
    let text = text.trim_start_matches('\u{feff}').trim_start();
    (text.starts_with('<') && text.contains("<svg")).then_some(ImageKind::Svg)
}

/// Decodes a PNG or WebP in full, within [`MAX_IMAGE_SIDE`].
fn check_raster(kind: ImageKind, bytes: &[u8]) -> Result<CheckedImage, ImageError> {
    let format = match kind {
        ImageKind::Png => image::ImageFormat::Png,
        _ => image::ImageFormat::WebP,
    };
    let unreadable = |e: image::ImageError| ImageError::Unreadable(kind, e.to_string());
    let mut reader = image::ImageReader::with_format(Cursor::new(bytes), format);
    let (width, height) = reader.into_dimensions().map_err(unreadable)?;
    if width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE {
        return Err(ImageError::TooBig(width, height));
    }
    reader = image::ImageReader::with_format(Cursor::new(bytes), format);
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_IMAGE_SIDE);
    limits.max_image_height = Some(MAX_IMAGE_SIDE);
    limits.max_alloc = Some(u64::from(MAX_IMAGE_SIDE) * u64::from(MAX_IMAGE_SIDE) * 8);
    reader.limits(limits);
    reader.decode().map_err(unreadable)?;
    Ok(CheckedImage {
        kind,
        bytes: bytes.to_vec(),
        sanitised: false,
    })
}

/// Rewrites an SVG through `svg-hush`, which keeps the drawing and drops scripts, event
/// handlers, foreign objects and every reference outside the document (raster images embedded
/// as `data:` URLs stay). The root must be an `<svg>` in the SVG namespace. Nesting deeper than
/// [`MAX_SVG_DEPTH`] is refused before filtering, and the filter's output is cut off (and the
/// upload refused) past [`MAX_SVG_OUTPUT`].
fn check_svg(bytes: &[u8]) -> Result<CheckedImage, ImageError> {
    let unreadable = |why: String| ImageError::Unreadable(ImageKind::Svg, why);
    if nesting_depth(bytes) > MAX_SVG_DEPTH {
        return Err(ImageError::TooDeep);
    }
    let mut filter = svg_hush::Filter::new();
    filter.set_data_url_filter(svg_hush::data_url_filter::allow_standard_images);
    let mut out = Bounded::new(MAX_SVG_OUTPUT);
    let filtered = filter.filter(bytes, &mut out);
    if out.overflowed {
        return Err(ImageError::FilteredTooLarge);
    }
    filtered.map_err(|e| {
        unreadable(format!(
            "{e}; an SVG needs xmlns=\"http://www.w3.org/2000/svg\" on its <svg> element"
        ))
    })?;
    let text = String::from_utf8(out.bytes).map_err(|e| unreadable(e.to_string()))?;
    let body = match text.trim_start().strip_prefix("<?xml") {
        Some(rest) => rest.split_once("?>").map_or("", |(_, b)| b),
        None => &text,
    };
    if !body.trim_start().starts_with("<svg") {
        return Err(unreadable("its outermost element is not <svg>".to_owned()));
    }
    let sanitised = !same_drawing(bytes, &text);
    Ok(CheckedImage {
        kind: ImageKind::Svg,
        bytes: text.into_bytes(),
        sanitised,
    })
}

/// How deep the elements of an XML document nest, read as far as it reads (a document the
/// reader cannot follow is left to the filter to refuse; the output bound still holds).
fn nesting_depth(bytes: &[u8]) -> usize {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_reader(bytes);
    reader.config_mut().check_end_names = false;
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut buf = Vec::new();
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(_)) => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            Ok(Event::Empty(_)) => deepest = deepest.max(depth + 1),
            Ok(Event::End(_)) => depth = depth.saturating_sub(1),
            Ok(Event::Eof) | Err(_) => return deepest,
            Ok(_) => {}
        }
        buf.clear();
    }
}

/// A writer that keeps at most `max` bytes and fails the write that would pass it.
struct Bounded {
    bytes: Vec<u8>,
    max: usize,
    overflowed: bool,
}

impl Bounded {
    fn new(max: usize) -> Self {
        Self {
            bytes: Vec::new(),
            max,
            overflowed: false,
        }
    }
}

impl std::io::Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len() + buf.len() > self.max {
            self.overflowed = true;
            return Err(std::io::Error::other("the filtered SVG is too large"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Whether the filter kept every element and attribute name of the original (a rough
/// comparison of the tags' names, enough to tell a responder something was removed).
fn same_drawing(original: &[u8], filtered: &str) -> bool {
    let names = |s: &str| -> Vec<String> {
        let mut names: Vec<String> = s
            .split('<')
            .skip(1)
            .filter(|t| !t.starts_with('?') && !t.starts_with('!') && !t.starts_with('/'))
            .map(|t| {
                t.split(['>', '/'])
                    .next()
                    .unwrap_or("")
                    .split_whitespace()
                    .map(|w| w.split('=').next().unwrap_or("").to_owned())
                    .filter(|w| !w.starts_with("xmlns") && !w.contains(':'))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        names.sort();
        names
    };
    names(&String::from_utf8_lossy(original)) == names(filtered)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1×1 PNG made by the `image` crate.
    fn png(width: u32, height: u32) -> Vec<u8> {
        let img = image::RgbaImage::from_pixel(width, height, image::Rgba([11, 95, 255, 255]));
        let mut out = Cursor::new(Vec::new());
        img.write_to(&mut out, image::ImageFormat::Png).unwrap();
        out.into_inner()
    }

    fn webp() -> Vec<u8> {
        let img = image::RgbaImage::from_pixel(2, 2, image::Rgba([11, 95, 255, 255]));
        let mut out = Cursor::new(Vec::new());
        img.write_to(&mut out, image::ImageFormat::WebP).unwrap();
        out.into_inner()
    }

    #[test]
    fn real_png_and_webp_pass_as_they_are() {
        let bytes = png(3, 2);
        let checked = check_image(&bytes).unwrap();
        assert_eq!(checked.kind, ImageKind::Png);
        assert_eq!(checked.bytes, bytes);
        let bytes = webp();
        assert_eq!(check_image(&bytes).unwrap().kind, ImageKind::Webp);
    }

    #[test]
    fn a_file_named_an_image_is_read_as_what_it_is() {
        let mut truncated = png(8, 8);
        truncated.truncate(truncated.len() - 20);
        assert!(matches!(
            check_image(&truncated),
            Err(ImageError::Unreadable(ImageKind::Png, _))
        ));
        let mut fake_webp = b"RIFF\0\0\0\0WEBPVP8 ".to_vec();
        fake_webp.extend([0u8; 20]);
        assert!(matches!(
            check_image(&fake_webp),
            Err(ImageError::Unreadable(ImageKind::Webp, _))
        ));
        assert_eq!(check_image(b"GIF89a...."), Err(ImageError::UnknownKind));
        assert_eq!(
            check_image(b"<html><body>hi</body></html>"),
            Err(ImageError::UnknownKind)
        );
        assert_eq!(check_image(b""), Err(ImageError::Empty));
        let big = vec![0u8; MAX_IMAGE_BYTES + 1];
        assert_eq!(
            check_image(&big),
            Err(ImageError::TooLarge(MAX_IMAGE_BYTES + 1))
        );
        assert_eq!(
            check_image(&png(MAX_IMAGE_SIDE + 1, 1)),
            Err(ImageError::TooBig(MAX_IMAGE_SIDE + 1, 1))
        );
    }

    #[test]
    fn an_svg_loses_its_script_and_keeps_its_drawing() {
        let evil = br##"<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10" onload="alert(1)">
  <script>alert(document.cookie)</script>
  <rect width="10" height="10" fill="#0b5fff" onclick="alert(2)"/>
  <a href="javascript:alert(3)"><circle r="2"/></a>
  <image href="https://evil.example/track.png" width="1" height="1"/>
  <foreignObject><body xmlns="http://www.w3.org/1999/xhtml"><iframe src="https://evil.example"/></body></foreignObject>
  <use xlink:href="https://evil.example/x.svg#a"/>
</svg>"##;
        let checked = check_image(evil).unwrap();
        assert_eq!(checked.kind, ImageKind::Svg);
        assert!(checked.sanitised);
        let out = String::from_utf8(checked.bytes).unwrap().to_lowercase();
        for gone in [
            "<script",
            "onload",
            "onclick",
            "javascript:",
            "evil.example",
            "foreignobject",
            "iframe",
        ] {
            assert!(!out.contains(gone), "{gone} is left in {out}");
        }
        assert!(
            out.contains("<rect") && out.contains("#0b5fff"),
            "the drawing stays: {out}"
        );
    }

    #[test]
    fn a_clean_svg_is_kept_and_said_to_be_clean() {
        let clean = br##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><title>Acme</title><path d="M0 0h10v10z" fill="#0b5fff"/></svg>"##;
        let checked = check_image(clean).unwrap();
        assert!(
            !checked.sanitised,
            "{}",
            String::from_utf8_lossy(&checked.bytes)
        );
        let out = String::from_utf8(checked.bytes).unwrap();
        assert!(
            out.contains("<path") && out.contains("M0 0h10v10z"),
            "{out}"
        );
    }

    #[test]
    fn svg_without_its_namespace_or_root_is_refused() {
        for bad in [
            &b"<svg viewBox=\"0 0 1 1\"><rect/></svg>"[..],
            b"<svg xmlns=\"http://www.w3.org/2000/svg\"><rect>",
            b"<x><svg xmlns=\"http://www.w3.org/2000/svg\"/></x>",
        ] {
            let err = check_image(bad).expect_err(&String::from_utf8_lossy(bad));
            assert!(
                matches!(err, ImageError::Unreadable(ImageKind::Svg, _)),
                "{err}"
            );
        }
    }

    /// `depth` levels of elements: `<svg>`, `depth - 2` nested `<g>`s and a rect at the bottom.
    fn nested(depth: usize) -> Vec<u8> {
        let mut svg = String::from(r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1">"#);
        svg.push_str(&"<g>".repeat(depth - 2));
        svg.push_str("<rect/>");
        svg.push_str(&"</g>".repeat(depth - 2));
        svg.push_str("</svg>");
        svg.into_bytes()
    }

    #[test]
    fn deep_nesting_is_refused_before_filtering_and_a_drawings_depth_passes() {
        // 10,000 nested groups: 70 KB that the filter, indenting by depth, grew to 200 MB.
        assert_eq!(check_image(&nested(10_000)), Err(ImageError::TooDeep));
        assert_eq!(
            check_image(&nested(MAX_SVG_DEPTH + 1)),
            Err(ImageError::TooDeep)
        );
        let deepest = check_image(&nested(MAX_SVG_DEPTH)).unwrap();
        assert!(deepest.bytes.len() < MAX_SVG_OUTPUT);
        assert!(!deepest.sanitised);
        // Unclosed tags count too: the reader is not fooled by missing end tags.
        let unclosed = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg">{}"#,
            "<g>".repeat(MAX_SVG_DEPTH + 5)
        );
        assert_eq!(check_image(unclosed.as_bytes()), Err(ImageError::TooDeep));
    }

    #[test]
    fn the_filtered_output_is_bounded_whatever_the_drawing() {
        // Shallow but wide: each of these elements is re-indented by the filter at depth 90,
        // so 250 KiB in would be about 2.6 MiB out.
        let mut svg = String::from(r#"<svg xmlns="http://www.w3.org/2000/svg">"#);
        svg.push_str(&"<g>".repeat(89));
        while svg.len() < MAX_IMAGE_BYTES - 1024 {
            svg.push_str("<g/>");
        }
        svg.push_str(&"</g>".repeat(89));
        svg.push_str("</svg>");
        assert!(svg.len() <= MAX_IMAGE_BYTES);
        assert_eq!(
            check_image(svg.as_bytes()),
            Err(ImageError::FilteredTooLarge)
        );
        let mut writer = Bounded::new(4);
        use std::io::Write;
        assert!(writer.write_all(b"abcd").is_ok());
        assert!(writer.write_all(b"e").is_err());
        assert!(writer.overflowed);
        assert_eq!(writer.bytes, b"abcd");
    }
}

//! A page's custom stylesheet, checked token by token as a browser reads it.

use super::MAX_CUSTOM_CSS;

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

#[cfg(test)]
mod tests {
    use super::*;

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
}

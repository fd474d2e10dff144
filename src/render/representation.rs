//! A public response rendered once and served many times: the bytes, their gzip and brotli
//! forms (compressed once, not per request), a strong ETag, and the caching headers.

use std::io::Write;

use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse};
use bytes::Bytes;
use sha2::{Digest, Sha256};

/// The Content-Security-Policy of every HTML answer (public pages, their forms, sign-in and the
/// console): nothing from elsewhere, no inline code, no plugins, forms post to Herald only, and
/// no framing.
pub const CSP: &str = "default-src 'self'; img-src 'self' data:; style-src 'self'; \
                       script-src 'self'; object-src 'none'; base-uri 'none'; \
                       form-action 'self'; frame-ancestors 'none'";

/// Bodies smaller than this are not worth compressing.
const MIN_COMPRESS_LEN: usize = 256;
/// Brotli quality. Every change compresses what it touches again, so the level is the one past
/// which bodies stop shrinking: on Herald's documents 5 is within 3 % of 9's size at a quarter
/// to a tenth of its time (bench/compression.sh).
const BROTLI_QUALITY: u32 = 5;
/// Gzip level: 6 (zlib's default) is within 1 % of 9's size at 60 % of its time on the large
/// JSON (bench/compression.sh).
const GZIP_LEVEL: u32 = 6;
const BROTLI_WINDOW: u32 = 22;

/// How clients and shared caches may keep a representation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CachePolicy {
    /// `max-age` in seconds.
    pub max_age: u32,
    /// `stale-while-revalidate` in seconds.
    pub stale_while_revalidate: u32,
}

impl CachePolicy {
    /// Short-lived public data (pages, API, feeds, badge): fresh for 10 s, stale for a minute.
    pub const PUBLIC: Self = Self {
        max_age: 10,
        stale_while_revalidate: 60,
    };
    /// Fingerprinted assets never change under the same name.
    pub const IMMUTABLE: Self = Self {
        max_age: 31_536_000,
        stale_while_revalidate: 0,
    };

    fn header(self) -> String {
        if self == Self::IMMUTABLE {
            format!("public, max-age={}, immutable", self.max_age)
        } else {
            format!(
                "public, max-age={}, stale-while-revalidate={}",
                self.max_age, self.stale_while_revalidate
            )
        }
    }
}

/// One rendered response.
#[derive(Debug, Clone)]
pub struct Representation {
    pub content_type: &'static str,
    pub identity: Bytes,
    pub gzip: Option<Bytes>,
    pub brotli: Option<Bytes>,
    /// Strong validator of the identity bytes, without quotes.
    pub tag: String,
    pub cache: CachePolicy,
    /// `Access-Control-Allow-Origin: *` (the public JSON API).
    pub cors: bool,
    /// For HTML that other sites may frame (the status embed): its own Content-Security-Policy,
    /// [`CSP`] with these `frame-ancestors`, and no `X-Frame-Options`. `None`: no framing.
    pub framed_by: Option<HeaderValue>,
    /// Header values made once, not per request.
    headers: Prepared,
}

/// The per-representation header values, built once.
#[derive(Debug, Clone)]
struct Prepared {
    etag_identity: HeaderValue,
    etag_br: HeaderValue,
    etag_gz: HeaderValue,
    cache_control: HeaderValue,
    content_type: HeaderValue,
}

impl Prepared {
    fn new(tag: &str, cache: CachePolicy, content_type: &'static str) -> Self {
        let value =
            |s: String| HeaderValue::from_str(&s).unwrap_or_else(|_| HeaderValue::from_static(""));
        Self {
            etag_identity: value(format!("\"{tag}\"")),
            etag_br: value(format!("\"{tag}-br\"")),
            etag_gz: value(format!("\"{tag}-gz\"")),
            cache_control: value(cache.header()),
            content_type: HeaderValue::from_static(content_type),
        }
    }
}

/// Which body a client gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Coding {
    Brotli,
    Gzip,
    Identity,
}

impl Representation {
    /// Renders the compressed forms and the ETag of `body`.
    pub fn new(content_type: &'static str, body: impl Into<Bytes>, cache: CachePolicy) -> Self {
        let mut rep = Self::uncompressed(content_type, body, cache);
        if rep.identity.len() >= MIN_COMPRESS_LEN {
            rep.gzip = Some(gzip(&rep.identity));
            rep.brotli = Some(brotli(&rep.identity));
        }
        rep
    }

    /// A body that is compressed already (a PNG, a WebP): served as it is, in every coding.
    pub fn uncompressed(
        content_type: &'static str,
        body: impl Into<Bytes>,
        cache: CachePolicy,
    ) -> Self {
        let identity: Bytes = body.into();
        let tag = hex::encode(&Sha256::digest(&identity)[..16]);
        let headers = Prepared::new(&tag, cache, content_type);
        Self {
            content_type,
            identity,
            gzip: None,
            brotli: None,
            tag,
            cache,
            cors: false,
            framed_by: None,
            headers,
        }
    }

    /// The same representation, framable by `sources` (CSP `frame-ancestors` sources; with
    /// none, it stays unframable).
    pub fn framable_by(mut self, sources: &[String]) -> Self {
        if sources.is_empty() {
            return self;
        }
        let policy = CSP.replace(
            "frame-ancestors 'none'",
            &format!("frame-ancestors {}", sources.join(" ")),
        );
        self.framed_by = HeaderValue::from_str(&policy).ok();
        self
    }

    /// The bytes it holds, in every coding.
    pub fn held_bytes(&self) -> usize {
        self.identity.len()
            + self.gzip.as_ref().map_or(0, Bytes::len)
            + self.brotli.as_ref().map_or(0, Bytes::len)
    }

    /// The same representation, marked for cross-origin reads.
    pub fn with_cors(mut self) -> Self {
        self.cors = true;
        self
    }

    /// The quoted ETag of one coding (codings get distinct strong tags, as RFC 9110 requires).
    fn etag(&self, coding: Coding) -> HeaderValue {
        match coding {
            Coding::Brotli => self.headers.etag_br.clone(),
            Coding::Gzip => self.headers.etag_gz.clone(),
            Coding::Identity => self.headers.etag_identity.clone(),
        }
    }

    /// Answers `req`: 304 when `If-None-Match` matches, otherwise the best body the client accepts.
    pub fn respond(&self, req: &HttpRequest) -> HttpResponse {
        let coding = self.choose(req);
        let not_modified = self.not_modified(req);
        let mut res = if not_modified {
            HttpResponse::NotModified()
        } else {
            HttpResponse::Ok()
        };
        res.insert_header((header::ETAG, self.etag(coding)))
            .insert_header((header::CACHE_CONTROL, self.headers.cache_control.clone()))
            .insert_header((header::VARY, HeaderValue::from_static("Accept-Encoding")));
        if self.cors {
            res.insert_header((
                header::ACCESS_CONTROL_ALLOW_ORIGIN,
                HeaderValue::from_static("*"),
            ));
        }
        if not_modified {
            return res.finish();
        }
        res.insert_header((header::CONTENT_TYPE, self.headers.content_type.clone()));
        let body = match coding {
            Coding::Brotli => {
                res.insert_header((header::CONTENT_ENCODING, HeaderValue::from_static("br")));
                self.brotli.clone()
            }
            Coding::Gzip => {
                res.insert_header((header::CONTENT_ENCODING, HeaderValue::from_static("gzip")));
                self.gzip.clone()
            }
            Coding::Identity => None,
        };
        // For HEAD, actix sends the head with this body's Content-Length and no body.
        res.body(body.unwrap_or_else(|| self.identity.clone()))
    }

    fn not_modified(&self, req: &HttpRequest) -> bool {
        req.headers()
            .get_all(header::IF_NONE_MATCH)
            .filter_map(|v| v.to_str().ok())
            .any(|list| {
                list.split(',').map(str::trim).any(|candidate| {
                    let candidate = candidate.trim_start_matches("W/").trim_matches('"');
                    candidate == "*"
                        || candidate == self.tag
                        || candidate
                            .strip_prefix(self.tag.as_str())
                            .is_some_and(|rest| rest == "-br" || rest == "-gz")
                })
            })
    }

    fn choose(&self, req: &HttpRequest) -> Coding {
        let accepted = accepted_codings(req);
        if self.brotli.is_some() && accepted.brotli {
            Coding::Brotli
        } else if self.gzip.is_some() && accepted.gzip {
            Coding::Gzip
        } else {
            Coding::Identity
        }
    }
}

#[derive(Default)]
struct Accepted {
    brotli: bool,
    gzip: bool,
}

/// Parses `Accept-Encoding`, honouring `q=0` as a refusal.
fn accepted_codings(req: &HttpRequest) -> Accepted {
    let mut accepted = Accepted::default();
    for value in req
        .headers()
        .get_all(header::ACCEPT_ENCODING)
        .filter_map(|v| v.to_str().ok())
    {
        for item in value.split(',') {
            let mut parts = item.split(';');
            let name = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let refused = parts.any(|p| {
                let p = p.trim();
                p.strip_prefix("q=")
                    .and_then(|q| q.trim().parse::<f32>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            match name.as_str() {
                "br" => accepted.brotli = !refused,
                "gzip" | "x-gzip" => accepted.gzip = !refused,
                "*" if !refused => {
                    accepted.brotli = true;
                    accepted.gzip = true;
                }
                _ => {}
            }
        }
    }
    accepted
}

fn gzip(data: &[u8]) -> Bytes {
    let mut encoder =
        flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(GZIP_LEVEL));
    // Writing to a Vec cannot fail.
    let _ = encoder.write_all(data);
    Bytes::from(encoder.finish().unwrap_or_default())
}

fn brotli(data: &[u8]) -> Bytes {
    let mut out = Vec::new();
    {
        let mut writer =
            brotli::CompressorWriter::new(&mut out, 4096, BROTLI_QUALITY, BROTLI_WINDOW);
        let _ = writer.write_all(data);
    }
    Bytes::from(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;
    use std::io::Read;

    fn page() -> Representation {
        Representation::new(
            "text/html; charset=utf-8",
            "<p>all good</p>".repeat(100),
            CachePolicy::PUBLIC,
        )
    }

    #[test]
    fn brotli_is_preferred_then_gzip_then_identity() {
        let rep = page();
        let req = TestRequest::get()
            .insert_header(("accept-encoding", "gzip, deflate, br"))
            .to_http_request();
        assert_eq!(
            rep.respond(&req).headers().get("content-encoding").unwrap(),
            "br"
        );
        let req = TestRequest::get()
            .insert_header(("accept-encoding", "gzip, br;q=0"))
            .to_http_request();
        assert_eq!(
            rep.respond(&req).headers().get("content-encoding").unwrap(),
            "gzip"
        );
        let req = TestRequest::get().to_http_request();
        assert!(
            rep.respond(&req)
                .headers()
                .get("content-encoding")
                .is_none()
        );
    }

    #[test]
    fn compressed_bodies_decode_to_the_same_bytes() {
        let rep = page();
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&rep.gzip.as_ref().unwrap()[..])
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, rep.identity);
        let mut out = Vec::new();
        brotli::Decompressor::new(&rep.brotli.as_ref().unwrap()[..], 4096)
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, rep.identity);
    }

    #[test]
    fn a_matching_if_none_match_gets_304_for_any_coding() {
        let rep = page();
        for tag in [
            format!("\"{}\"", rep.tag),
            format!("W/\"{}-br\"", rep.tag),
            format!("\"x\", \"{}-gz\"", rep.tag),
        ] {
            let req = TestRequest::get()
                .insert_header(("if-none-match", tag.as_str()))
                .to_http_request();
            assert_eq!(rep.respond(&req).status(), 304, "{tag}");
        }
        let req = TestRequest::get()
            .insert_header(("if-none-match", "\"other\""))
            .to_http_request();
        assert_eq!(rep.respond(&req).status(), 200);
    }

    #[test]
    fn the_etag_changes_with_the_content_only() {
        assert_eq!(page().tag, page().tag);
        let other = Representation::new(
            "text/html",
            "<p>outage</p>".repeat(100),
            CachePolicy::PUBLIC,
        );
        assert_ne!(page().tag, other.tag);
    }

    #[test]
    fn tiny_bodies_are_not_compressed() {
        let rep = Representation::new("image/svg+xml", "<svg/>", CachePolicy::PUBLIC);
        let req = TestRequest::get()
            .insert_header(("accept-encoding", "br"))
            .to_http_request();
        assert!(
            rep.respond(&req)
                .headers()
                .get("content-encoding")
                .is_none()
        );
    }
}

//! Readers of restricted pages: the reader's pass (a signed cookie, checked in memory on the
//! read path, so a private page is read at the public pages' speed), the signed sign-in links
//! mailed to readers (the job that mails them is `workers::reader_link`).
//!
//! A pass is `{claims}~{mac}`: the claims of [`crate::domain::access::Pass`] (page, access
//! epoch, expiry) and an HMAC-SHA256 under the server key with its own purpose label. It is
//! stored in a cookie named for the page (`herald_read_{slug}`, `HttpOnly`, `SameSite=Lax`,
//! `Path=/`), so a reader of two pages holds two. Nothing about the reader is in it: it admits
//! to one page until it expires or the page's access settings move on.
//!
//! A sign-in link's token is `{link id}~{expiry}~{mac}`: the link's row makes it single use
//! and the MAC keeps anyone from making one.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Duration, Utc};
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::domain::access::Pass;

type HmacSha256 = Hmac<Sha256>;

/// How long a pass admits (from signing in with the password or a link).
pub const PASS_LIFETIME: Duration = Duration::days(7);
/// How long a mailed sign-in link works.
pub const LINK_LIFETIME: Duration = Duration::minutes(15);

const PASS_PURPOSE: &str = "herald/reader-pass/v1";
const LINK_PURPOSE: &str = "herald/reader-link/v1";

/// The cookie holding a reader's pass for the page `slug`.
pub fn cookie_name(slug: &str) -> String {
    format!("herald_read_{slug}")
}

/// The signed cookie value of `pass`.
pub fn sign_pass(pass: &Pass, key: &[u8]) -> String {
    let claims = pass.claims();
    let mac = mac(key, PASS_PURPOSE, claims.as_bytes())
        .finalize()
        .into_bytes();
    format!("{claims}~{}", URL_SAFE_NO_PAD.encode(mac))
}

/// The pass a cookie value carries, when its signature is the server's.
pub fn verify_pass(value: &str, key: &[u8]) -> Option<Pass> {
    let (claims, sig) = value.rsplit_once('~')?;
    let sig = URL_SAFE_NO_PAD.decode(sig).ok()?;
    mac(key, PASS_PURPOSE, claims.as_bytes())
        .verify_slice(&sig)
        .ok()?;
    Pass::parse(claims)
}

/// A new pass for `page_id` under `epoch`, from `now`.
pub fn new_pass(page_id: &str, epoch: i64, now: DateTime<Utc>) -> Pass {
    Pass {
        page_id: page_id.to_owned(),
        epoch,
        expires: (now + PASS_LIFETIME).timestamp(),
    }
}

/// The token of the sign-in link `link_id`, which expires at `expires`.
pub fn sign_link(link_id: &str, expires: DateTime<Utc>, key: &[u8]) -> String {
    let claims = format!("{link_id}~{}", expires.timestamp());
    let mac = mac(key, LINK_PURPOSE, claims.as_bytes())
        .finalize()
        .into_bytes();
    format!("{claims}~{}", URL_SAFE_NO_PAD.encode(mac))
}

/// Why a sign-in link's token is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkRefusal {
    /// Not one Herald made (or altered).
    Invalid,
    /// Made by Herald, but older than [`LINK_LIFETIME`].
    Expired,
}

/// The link id of a sign-in link's token, when Herald signed it and it has not expired.
pub fn verify_link(token: &str, key: &[u8], now: DateTime<Utc>) -> Result<String, LinkRefusal> {
    let (claims, sig) = token.rsplit_once('~').ok_or(LinkRefusal::Invalid)?;
    let sig = URL_SAFE_NO_PAD
        .decode(sig)
        .map_err(|_| LinkRefusal::Invalid)?;
    mac(key, LINK_PURPOSE, claims.as_bytes())
        .verify_slice(&sig)
        .map_err(|_| LinkRefusal::Invalid)?;
    let (id, expires) = claims.split_once('~').ok_or(LinkRefusal::Invalid)?;
    let expires: i64 = expires.parse().map_err(|_| LinkRefusal::Invalid)?;
    if now.timestamp() >= expires {
        return Err(LinkRefusal::Expired);
    }
    Ok(id.to_owned())
}

fn mac(key: &[u8], purpose: &str, message: &[u8]) -> HmacSha256 {
    // HMAC accepts keys of any length; this cannot fail.
    let mut mac = <HmacSha256 as Mac>::new_from_slice(key).unwrap_or_else(|_| unreachable!());
    mac.update(purpose.as_bytes());
    mac.update(&[0]);
    mac.update(message);
    mac
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &[u8] = b"a server key of some length, for the tests";

    #[test]
    fn a_signed_pass_verifies_and_an_altered_or_foreign_one_does_not() {
        let now = Utc::now();
        let pass = new_pass("page-1", 2, now);
        let value = sign_pass(&pass, KEY);
        assert_eq!(verify_pass(&value, KEY), Some(pass.clone()));
        assert_eq!(verify_pass(&value, b"another key"), None);
        let forged = value.replacen("page-1", "page-2", 1);
        assert_eq!(verify_pass(&forged, KEY), None);
        let longer = value.replacen(".2.", ".3.", 1);
        assert_eq!(verify_pass(&longer, KEY), None, "the epoch is signed");
        assert_eq!(verify_pass("", KEY), None);
        assert_eq!(verify_pass("v1.page-1.2.99999999999~", KEY), None);
        assert!(pass.admits("page-1", 2, now.timestamp()));
        let later = (now + PASS_LIFETIME).timestamp();
        assert!(
            !pass.admits("page-1", 2, later),
            "it ends with its lifetime"
        );
    }

    #[test]
    fn a_link_token_is_refused_when_altered_and_expired_after_its_time() {
        let now = Utc::now();
        let token = sign_link("link-1", now + LINK_LIFETIME, KEY);
        assert_eq!(verify_link(&token, KEY, now).as_deref(), Ok("link-1"));
        assert_eq!(
            verify_link(&token, KEY, now + LINK_LIFETIME),
            Err(LinkRefusal::Expired)
        );
        let forged = token.replacen("link-1", "link-2", 1);
        assert_eq!(verify_link(&forged, KEY, now), Err(LinkRefusal::Invalid));
        assert_eq!(
            verify_link(&token, b"another key", now),
            Err(LinkRefusal::Invalid)
        );
        let pass = sign_pass(&new_pass("link-1", 0, now), KEY);
        assert_eq!(
            verify_link(&pass, KEY, now),
            Err(LinkRefusal::Invalid),
            "a pass is not a link"
        );
    }
}

//! The support form as a stranger posts it: the urlencoded body (or the JSON one) decoded into
//! its fields, its form token verified, and a reference typed into the status lookup
//! normalised. None of it may panic, whatever the bytes.
#![no_main]

use chrono::Duration;

use chrono::{TimeZone, Utc};
use herald::support::form::{SupportForm, SupportJson};
use herald::support::reference;
use herald::support::token::TokenKey;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let now = Utc.with_ymd_and_hms(2026, 12, 7, 12, 0, 0).unwrap();
    let key = TokenKey::derive(
        b"fuzz secret",
        Duration::seconds(2),
        Duration::seconds(3600),
    );
    if let Ok(form) = serde_urlencoded::from_bytes::<SupportForm>(data) {
        let _ = key.verify(&form.form_token, "page-1", now);
        let _ = reference::normalize(&form.account);
    }
    if let Ok(json) = serde_json::from_slice::<SupportJson>(data) {
        let _ = json;
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = key.verify(text, "page-1", now);
        let _ = reference::normalize(text);
    }
});

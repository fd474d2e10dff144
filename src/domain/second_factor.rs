//! A second factor's rules: time-based one-time passwords (RFC 6238: HMAC-SHA1, 6 digits,
//! 30-second steps, one step of clock drift either way, as every authenticator app reads them)
//! with each step usable once, and the single-use recovery codes shown once when a factor is
//! set up. The codes are random (80 bits each), so a SHA-256 digest keeps them safely; a
//! password needs a slow hash, a code like this does not.

use sha2::{Digest, Sha256};
use totp_rs::{Algorithm, Secret, TOTP};

/// Digits of a code.
const DIGITS: usize = 6;
/// Seconds of a step.
const STEP: u64 = 30;
/// Steps of drift accepted either way.
const SKEW: u64 = 1;
/// How many recovery codes are made at once.
pub const RECOVERY_CODES: usize = 10;

/// A TOTP secret: 160 random bits, kept as Base32 (what an authenticator app is given).
#[derive(Clone, PartialEq, Eq)]
pub struct TotpSecret(String);

impl std::fmt::Debug for TotpSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TotpSecret([redacted])")
    }
}

impl TotpSecret {
    /// A new secret from the operating system's CSPRNG.
    pub fn generate() -> Self {
        Self(random_base32())
    }

    /// A stored secret (Base32 without padding, at least 128 bits).
    pub fn from_base32(text: &str) -> Result<Self, String> {
        let bytes = Secret::Encoded(text.to_owned())
            .to_bytes()
            .map_err(|_| "is not Base32".to_owned())?;
        if bytes.len() < 16 {
            return Err("must hold at least 128 bits".to_owned());
        }
        Ok(Self(text.to_owned()))
    }

    /// As stored and as shown for typing into an app.
    pub fn base32(&self) -> &str {
        &self.0
    }

    fn totp(&self, issuer: Option<&str>, account: &str) -> Result<TOTP, String> {
        let bytes = Secret::Encoded(self.0.clone())
            .to_bytes()
            .map_err(|e| e.to_string())?;
        // `:` separates issuer and account in an otpauth label; neither may hold one.
        let clean = |s: &str| s.replace(':', " ");
        TOTP::new(
            Algorithm::SHA1,
            DIGITS,
            u8::try_from(SKEW).unwrap_or(1),
            STEP,
            bytes,
            issuer.map(clean),
            clean(account),
        )
        .map_err(|e| e.to_string())
    }

    /// The `otpauth://` address an authenticator app reads (from a QR code), naming the issuer
    /// (the Herald's name) and the account.
    pub fn otpauth_url(&self, issuer: &str, account: &str) -> Result<String, String> {
        Ok(self.totp(Some(issuer), account)?.get_url())
    }

    /// The code of the step holding the Unix time `at`.
    pub fn code_at(&self, at: u64) -> Result<String, String> {
        Ok(self.totp(None, "")?.generate(at))
    }

    /// The step `code` belongs to, if it is the code of a step within the drift of `at` and
    /// later than `last_used` (each step's code opens one sign-in only).
    pub fn check(&self, code: &str, at: u64, last_used: Option<u64>) -> Option<u64> {
        let code: String = code.chars().filter(|c| !c.is_whitespace()).collect();
        if code.len() != DIGITS || !code.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let totp = self.totp(None, "").ok()?;
        let now = at / STEP;
        let mut matched = None;
        // Every candidate is compared (no early return): the time taken says nothing of which.
        for step in now.saturating_sub(SKEW)..=now + SKEW {
            let candidate = totp.generate(step * STEP);
            if constant_time_eq(candidate.as_bytes(), code.as_bytes()) {
                matched = Some(step);
            }
        }
        matched.filter(|step| last_used.is_none_or(|used| *step > used))
    }
}

/// 160 bits from the operating system's CSPRNG, in Base32 (32 characters).
fn random_base32() -> String {
    let bytes = Secret::generate_secret().to_bytes().unwrap_or_default();
    TOTP::new_unchecked(Algorithm::SHA1, DIGITS, 1, STEP, bytes, None, String::new())
        .get_secret_base32()
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Recovery codes, as shown once: `XXXX-XXXX-XXXX-XXXX` of Base32 letters and digits.
pub fn recovery_codes() -> Vec<String> {
    (0..RECOVERY_CODES)
        .map(|_| {
            // 16 Base32 characters: 80 bits.
            let chars: Vec<char> = random_base32().chars().take(16).collect();
            chars
                .chunks(4)
                .map(|c| c.iter().collect::<String>())
                .collect::<Vec<_>>()
                .join("-")
        })
        .collect()
}

/// What is kept of a recovery code: the SHA-256 of its letters, whatever case and separators
/// it was typed with.
pub fn recovery_digest(code: &str) -> String {
    let normal: String = code
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect();
    let digest = Sha256::digest(normal.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6238's SHA-1 key, "12345678901234567890", in Base32.
    const RFC_KEY: &str = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";

    #[test]
    fn codes_are_rfc_6238s() {
        let secret = TotpSecret::from_base32(RFC_KEY).unwrap();
        // The RFC's SHA-1 vectors, cut to 6 digits.
        for (at, code) in [
            (59, "287082"),
            (1_111_111_109, "081804"),
            (1_234_567_890, "005924"),
            (2_000_000_000, "279037"),
        ] {
            assert_eq!(secret.code_at(at).unwrap(), code, "at {at}");
        }
    }

    #[test]
    fn a_code_opens_within_a_step_of_drift_and_once() {
        let secret = TotpSecret::generate();
        let at = 1_700_000_000;
        let code = secret.code_at(at).unwrap();
        let step = at / STEP;
        assert_eq!(secret.check(&code, at, None), Some(step));
        assert_eq!(
            secret.check(&code, at + STEP, None),
            Some(step),
            "a step late"
        );
        assert_eq!(
            secret.check(&code, at - STEP, None),
            Some(step),
            "a step early"
        );
        assert_eq!(
            secret.check(&code, at + 2 * STEP, None),
            None,
            "two steps late"
        );
        assert_eq!(secret.check(&code, at, Some(step)), None, "used already");
        assert_eq!(secret.check(&code, at, Some(step - 1)), Some(step));
        let spaced = format!("{} {}", &code[..3], &code[3..]);
        assert_eq!(
            secret.check(&spaced, at, None),
            Some(step),
            "typed with a space"
        );
        assert_eq!(secret.check("12345", at, None), None);
        assert_eq!(secret.check("abcdef", at, None), None);
    }

    #[test]
    fn secrets_are_long_base32_and_never_printed() {
        let secret = TotpSecret::generate();
        assert_eq!(secret.base32().len(), 32, "160 bits");
        assert_eq!(TotpSecret::from_base32(secret.base32()).unwrap(), secret);
        assert!(TotpSecret::from_base32("not base32!").is_err());
        assert!(TotpSecret::from_base32("GEZDGNBV").is_err(), "40 bits");
        assert_eq!(format!("{secret:?}"), "TotpSecret([redacted])");
        let url = secret
            .otpauth_url("Acme: status", "ops@example.com")
            .unwrap();
        assert!(url.starts_with("otpauth://totp/"), "{url}");
        assert!(
            url.contains(&format!("secret={}", secret.base32())),
            "{url}"
        );
    }

    #[test]
    fn recovery_codes_are_ten_distinct_and_kept_as_digests() {
        let codes = recovery_codes();
        assert_eq!(codes.len(), RECOVERY_CODES);
        let distinct: std::collections::BTreeSet<_> = codes.iter().collect();
        assert_eq!(distinct.len(), RECOVERY_CODES);
        for code in &codes {
            assert_eq!(code.len(), 19, "{code}");
            assert_eq!(code.matches('-').count(), 3, "{code}");
        }
        let code = &codes[0];
        let typed = code.to_lowercase().replace('-', " ");
        assert_eq!(recovery_digest(&typed), recovery_digest(code));
        assert_ne!(recovery_digest(code), recovery_digest(&codes[1]));
        assert_eq!(recovery_digest(code).len(), 64);
    }
}

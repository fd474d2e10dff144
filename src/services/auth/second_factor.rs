//! An account's second factor: setting up a TOTP app (its secret shown once as an
//! `otpauth://` address, confirmed by a first code, which also makes the ten recovery codes
//! shown once), checking the code a sign-in gives (a TOTP code's step, or a recovery code,
//! each opens one sign-in), and removing it. Not yet asked for at sign-in (issue 44).

use chrono::{DateTime, Utc};

use crate::db::models::second_factors::{self as rows, UserTotp};
use crate::db::{DbConn, write_tx};
use crate::domain::second_factor::{TotpSecret, recovery_codes, recovery_digest};
use crate::error::{AppError, AppResult};
use crate::services::pages::row_time;

/// What the account is shown to set up its app: the secret (to type) and its address (for a
/// QR code).
#[derive(Debug, Clone)]
pub struct Enrolment {
    pub secret: String,
    pub otpauth_url: String,
}

/// What opened a second step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opened {
    Totp,
    RecoveryCode,
}

fn unix(now: DateTime<Utc>) -> u64 {
    u64::try_from(now.timestamp()).unwrap_or(0)
}

/// Starts setting up a TOTP app for the account: a new secret, not asked for until confirmed.
/// An account whose factor is confirmed removes it first (409).
pub fn begin_totp(
    conn: &mut DbConn,
    user_id: &str,
    account: &str,
    issuer: &str,
    now: DateTime<Utc>,
) -> AppResult<Enrolment> {
    let secret = TotpSecret::generate();
    let otpauth_url = secret
        .otpauth_url(issuer, account)
        .map_err(|e| AppError::Internal(anyhow::anyhow!("otpauth address: {e}")))?;
    write_tx(conn, |c| {
        if rows::find_totp(c, user_id)?.is_some_and(|t| t.confirmed_at.is_some()) {
            return Err(AppError::Conflict(
                "this account has a second factor; remove it before setting up another".into(),
            ));
        }
        rows::replace_totp(
            c,
            &UserTotp {
                user_id: user_id.to_owned(),
                secret: secret.base32().to_owned(),
                created_at: row_time(now),
                confirmed_at: None,
                last_step: None,
            },
        )?;
        Ok(())
    })?;
    Ok(Enrolment {
        secret: secret.base32().to_owned(),
        otpauth_url,
    })
}

/// Confirms the factor being set up with a code from the app: the recovery codes, shown this
/// once. A wrong code is a 422 on `code`.
pub fn confirm_totp(
    conn: &mut DbConn,
    user_id: &str,
    code: &str,
    now: DateTime<Utc>,
) -> AppResult<Vec<String>> {
    write_tx(conn, |c| {
        let totp = rows::find_totp(c, user_id)?
            .filter(|t| t.confirmed_at.is_none())
            .ok_or_else(|| AppError::Conflict("no second factor is being set up".into()))?;
        let secret = TotpSecret::from_base32(&totp.secret)
            .map_err(|e| AppError::Internal(anyhow::anyhow!("stored secret: {e}")))?;
        let step = secret
            .check(code, unix(now), None)
            .ok_or_else(|| AppError::field("code", "is not the app's current code"))?;
        let codes = recovery_codes();
        let digests: Vec<String> = codes.iter().map(|c| recovery_digest(c)).collect();
        let step = i64::try_from(step).unwrap_or(i64::MAX);
        rows::confirm_totp(c, user_id, step, row_time(now), &digests)?;
        Ok(codes)
    })
}

/// Whether the account has a confirmed second factor.
pub fn has_second_factor(conn: &mut DbConn, user_id: &str) -> AppResult<bool> {
    Ok(rows::find_totp(conn, user_id)?.is_some_and(|t| t.confirmed_at.is_some()))
}

/// Checks the code of a sign-in's second step: a TOTP code of a step not used before, or an
/// unused recovery code; either is then used. `None` when it opens nothing.
pub fn check_second_factor(
    conn: &mut DbConn,
    user_id: &str,
    code: &str,
    now: DateTime<Utc>,
) -> AppResult<Option<Opened>> {
    write_tx(conn, |c| {
        let Some(totp) = rows::find_totp(c, user_id)?.filter(|t| t.confirmed_at.is_some()) else {
            return Ok(None);
        };
        let secret = TotpSecret::from_base32(&totp.secret)
            .map_err(|e| AppError::Internal(anyhow::anyhow!("stored secret: {e}")))?;
        let last = totp.last_step.and_then(|s| u64::try_from(s).ok());
        if let Some(step) = secret.check(code, unix(now), last) {
            let step = i64::try_from(step).unwrap_or(i64::MAX);
            return Ok(rows::take_step(c, user_id, step)?.then_some(Opened::Totp));
        }
        let used = rows::use_recovery_code(c, user_id, &recovery_digest(code), row_time(now))?;
        Ok(used.then_some(Opened::RecoveryCode))
    })
}

/// How many recovery codes the account has left.
pub fn recovery_codes_left(conn: &mut DbConn, user_id: &str) -> AppResult<i64> {
    Ok(rows::recovery_codes_left(conn, user_id)?)
}

/// Removes the account's second factor and its recovery codes.
pub fn remove_second_factor(conn: &mut DbConn, user_id: &str) -> AppResult<()> {
    write_tx(conn, |c| {
        rows::delete_factors(c, user_id)?;
        Ok(())
    })
}

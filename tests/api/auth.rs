//! Accounts and credentials over HTTP: API tokens (CLI and JSON API), the refusal of forged,
//! `none`, wrong-algorithm, wrong-key, expired and revoked tokens, roles, and console sessions
//! (sign-in, cookie flags, rate limiting, CSRF, sign-out).

mod sessions;
mod throttle;
mod tokens;

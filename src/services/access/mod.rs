//! Who may read a page: what the public site needs to admit its readers in memory
//! ([`PageAccess`]), the page's password, its read tokens, and the sign-in links mailed to
//! readers of a private page. The pass and the links' tokens are signed in [`pass`].

pub mod pass;

use std::collections::HashSet;

use base64::Engine;
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::OptionalExtension;
use rand::RngCore;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::db::models::access::{self as rows, ReadToken, ReaderLink};
use crate::db::models::pages::{self, StatusPage};
use crate::db::new_id;
use crate::db::{DbConn, write_tx};
use crate::domain::access::domain_allows;
use crate::domain::lang::Lang;
use crate::domain::{EmailAddress, PageId, SupportReach, Visibility};
use crate::error::{AppError, AppResult};
use crate::jobs::Job;
use crate::services::pages::input::{FieldCheck, required_line};

/// The prefix of every read token (so a token found in a log or a repository is known for
/// what it is).
pub const TOKEN_PREFIX: &str = "hrt_";
/// The longest name of a read token.
pub const MAX_TOKEN_NAME_LEN: usize = 100;
/// The job that mails a reader the sign-in link they asked for.
#[derive(Debug, Serialize, Deserialize)]
pub struct ReaderLinkMail {
    pub link_id: String,
    /// The language the reader asked in (jobs queued before it existed: English).
    #[serde(default)]
    pub language: Option<String>,
}

impl Job for ReaderLinkMail {
    const NAME: &'static str = "reader.link";
}

/// What the public site needs to admit a page's readers without the database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageAccess {
    pub page_id: PageId,
    pub visibility: Visibility,
    /// The epoch a reader's pass must name.
    pub epoch: i64,
    /// The SHA-256 (hex) of each read token.
    pub token_hashes: HashSet<String>,
    pub has_password: bool,
    pub email_domains: Vec<String>,
    pub support_reach: SupportReach,
}

impl PageAccess {
    /// A public page's (nothing to check).
    pub fn public(page_id: PageId) -> Self {
        Self {
            page_id,
            visibility: Visibility::Public,
            epoch: 0,
            token_hashes: HashSet::new(),
            has_password: false,
            email_domains: Vec::new(),
            support_reach: SupportReach::Everyone,
        }
    }

    /// Whether `token` is one of the page's read tokens.
    pub fn token_admits(&self, token: &str) -> bool {
        token.starts_with(TOKEN_PREFIX) && self.token_hashes.contains(&token_hash(token))
    }

    /// Whether readers may sign in by themselves (a private page with a password or allowed
    /// domains); otherwise only responders and read tokens are let in.
    pub fn readers_may_sign_in(&self) -> bool {
        self.visibility == Visibility::Private
            && (self.has_password || !self.email_domains.is_empty())
    }
}

/// The stored form of a read token.
pub fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// The access of `page`.
pub fn load(conn: &mut DbConn, page: &StatusPage) -> AppResult<PageAccess> {
    if page.visibility == Visibility::Public {
        return Ok(PageAccess::public(page.id.clone()));
    }
    let token_hashes = rows::tokens(conn, &page.id)?
        .into_iter()
        .map(|t| t.token_hash)
        .collect();
    Ok(PageAccess {
        page_id: page.id.clone(),
        visibility: page.visibility,
        epoch: page.access_epoch,
        token_hashes,
        has_password: rows::password_hash(conn, &page.id)?.is_some(),
        email_domains: page.email_domains(),
        support_reach: page.support_reach,
    })
}

/// The page's password hash, if it has a password (for a reader's attempt).
pub fn password_hash(conn: &mut DbConn, page_id: &PageId) -> AppResult<Option<String>> {
    Ok(rows::password_hash(conn, page_id)?)
}

/// A read token as the API and the console show it (never the token).
#[derive(Debug, Clone, Serialize)]
pub struct TokenView {
    pub id: String,
    pub name: String,
    pub created_at: DateTime<Utc>,
}

impl From<ReadToken> for TokenView {
    fn from(t: ReadToken) -> Self {
        Self {
            id: t.id,
            name: t.name,
            created_at: t.created_at.and_utc(),
        }
    }
}

/// The page's read tokens.
pub fn list_tokens(conn: &mut DbConn, page_id: &PageId) -> AppResult<Vec<TokenView>> {
    Ok(rows::tokens(conn, page_id)?
        .into_iter()
        .map(TokenView::from)
        .collect())
}

/// Makes a read token named `name`; answers it with the token itself (shown once).
pub fn create_token(
    conn: &mut DbConn,
    page_id: &PageId,
    name: &str,
) -> AppResult<(TokenView, String)> {
    let mut check = FieldCheck::default();
    let name = check.check("name", required_line(name, MAX_TOKEN_NAME_LEN));
    let name = check.done(name)?;
    let mut bytes = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut bytes);
    let token = format!(
        "{TOKEN_PREFIX}{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    );
    let row = ReadToken {
        id: new_id(),
        page_id: page_id.clone(),
        name,
        token_hash: token_hash(&token),
        created_at: crate::db::now(),
    };
    write_tx(conn, |conn| {
        pages::find(conn, page_id)
            .optional()?
            .ok_or_else(|| AppError::NotFound("page".into()))?;
        rows::insert_token(conn, &row)?;
        Ok::<_, AppError>(())
    })?;
    Ok((row.into(), token))
}

/// Deletes one of the page's read tokens: it stops working once the site has refreshed.
pub fn revoke_token(conn: &mut DbConn, page_id: &PageId, id: &str) -> AppResult<()> {
    match rows::delete_token(conn, page_id, id)? {
        true => Ok(()),
        false => Err(AppError::NotFound(format!("read token {id}"))),
    }
}

/// Where a sign-in request ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkRequest {
    /// A link was stored and its mail queued.
    Sent,
    /// The page does not take this address (not private, or not an allowed domain): nothing is
    /// sent, and the reader is told the same as when it is.
    NotAllowed,
}

/// Stores a sign-in link for `email` to `page` and queues its mail, when the page is private
/// and allows the address's domain. Old links of the page are cleared on the way. The mail is
/// written in `lang`, the language the reader asked in.
pub fn request_link(
    conn: &mut DbConn,
    page: &StatusPage,
    (email, lang): (&EmailAddress, Lang),
    next_path: &str,
    now: DateTime<Utc>,
) -> AppResult<LinkRequest> {
    if page.visibility != Visibility::Private || !domain_allows(&page.email_domains(), email) {
        return Ok(LinkRequest::NotAllowed);
    }
    let link = ReaderLink {
        id: new_id(),
        page_id: page.id.clone(),
        email: email.as_str().to_owned(),
        next_path: next_path.to_owned(),
        expires_at: (now + pass::LINK_LIFETIME).naive_utc(),
        used_at: None,
        created_at: now.naive_utc(),
    };
    write_tx(conn, |conn| {
        rows::delete_old_links(conn, (now - chrono::Duration::days(1)).naive_utc())?;
        rows::insert_link(conn, &link)?;
        ReaderLinkMail {
            link_id: link.id.clone(),
            language: Some(lang.as_str().to_owned()),
        }
        .enqueue(conn)?;
        Ok::<_, AppError>(())
    })?;
    Ok(LinkRequest::Sent)
}

/// The link `id` and its page (for its mail).
pub fn find_link(conn: &mut DbConn, id: &str) -> AppResult<Option<(ReaderLink, StatusPage)>> {
    let Some(link) = rows::find_link(conn, id)? else {
        return Ok(None);
    };
    let page = pages::find(conn, &link.page_id).optional()?;
    Ok(page.map(|page| (link, page)))
}

/// Uses the sign-in link `id` at `now`: answers its page and where the reader was going when
/// the link was unused and unexpired and the page still admits its address; `None` otherwise
/// (a second use among them).
pub fn use_link(
    conn: &mut DbConn,
    id: &str,
    now: NaiveDateTime,
) -> AppResult<Option<(StatusPage, String)>> {
    write_tx(conn, |conn| {
        if !rows::use_link(conn, id, now)? {
            return Ok(None);
        }
        let Some((link, page)) = find_link(conn, id)? else {
            return Ok(None);
        };
        let still = page.visibility == Visibility::Private
            && EmailAddress::parse(&link.email)
                .is_ok_and(|email| domain_allows(&page.email_domains(), &email));
        Ok(still.then_some((page, link.next_path)))
    })
}

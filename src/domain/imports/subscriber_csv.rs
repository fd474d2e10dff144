//! Reading a subscriber list to import (`herald import subscribers`): Statuspage's import
//! template, Statuspage's and Herald's exports, or any sheet with a header naming its columns.
//!
//! Two layouts are read:
//! - **Headed**: the first row names the columns (`type`/`mode`, `email`, `endpoint`/`url`,
//!   `contact_email`, `components`; case, spaces and punctuation do not matter). A row without
//!   a type is an email subscriber when it has an email, a webhook when it has an endpoint.
//! - **Statuspage's import template** (no header): each row starts with the subscriber's type,
//!   `email`, `sms`, `webhook` or `slack`, then its address (`email,ADDRESS[,yes|no]`,
//!   `webhook,ENDPOINT[,EMAIL]`), then its components.
//!
//! Components are named by id (a Statuspage id the page import remembered, or a Herald id) or
//! by name, several in one cell separated by `;`, `|` or `,`, or in cells of their own. None
//! named: the whole page. Statuspage's "skip confirmation" yes/no is read and ignored: whether
//! an address counts as confirmed is the operator's `--confirmed`, never the file's.

use std::collections::HashMap;

/// The most rows one file may hold.
pub const MAX_ROWS: usize = 200_000;

/// One subscriber row of the file, with its line (1-based, as an editor shows it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub line: u64,
    pub entry: Entry,
}

/// What a row asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Email {
        address: String,
        components: Vec<String>,
        /// The file says the address never confirmed (Herald's export, state `pending`): it
        /// stays pending, whatever the operator vouches for the rest.
        unconfirmed: bool,
    },
    Webhook {
        url: String,
        contact_email: Option<String>,
        components: Vec<String>,
    },
    /// A row Herald cannot take, and why (an SMS or Slack subscriber, no address).
    Refused { shown: String, reason: String },
}

/// Reads the file. Only a file that cannot be read at all is an error; a row that cannot be
/// taken is an [`Entry::Refused`] with its reason.
pub fn read(bytes: &[u8]) -> Result<Vec<Row>, String> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if std::str::from_utf8(bytes).is_err() {
        return Err("the file is not UTF-8 text (save the sheet as CSV UTF-8)".to_owned());
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(bytes);
    let mut lines = Lines::new(bytes);
    let mut header: Option<Header> = None;
    let mut rows = Vec::new();
    for (n, record) in reader.records().enumerate() {
        let record = record.map_err(|e| format!("the file is not valid CSV: {e}"))?;
        let line = record
            .position()
            .map_or(n as u64 + 1, |p| lines.of(p.byte()));
        let cells: Vec<&str> = record.iter().map(without_formula_guard).collect();
        if cells.iter().all(|c| c.is_empty()) {
            continue;
        }
        if n == 0 && is_header(&cells) {
            header = Some(Header::of(&cells)?);
            continue;
        }
        if rows.len() == MAX_ROWS {
            return Err(format!(
                "the file has more than {MAX_ROWS} subscribers; split it"
            ));
        }
        let entry = match &header {
            Some(header) => header.entry(&cells),
            None => template_entry(&cells),
        };
        rows.push(Row { line, entry });
    }
    if rows.is_empty() {
        return Err("the file has no subscribers".to_owned());
    }
    Ok(rows)
}

/// A cell as it was before an export guarded it from spreadsheets: Herald's export (and most
/// others) write `'` before a cell starting with `=`, `+`, `-`, `@`, a tab or a carriage
/// return, so that no spreadsheet runs it as a formula; the `'` is not part of the value.
fn without_formula_guard(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if rest.starts_with(['=', '+', '-', '@', '\t', '\r']) => rest,
        _ => cell,
    }
}

/// Lines of the records, in file order. The reader's own line count is off after CRLF line
/// ends and blank lines, and its record position may point at the line end before the record:
/// line ends are stepped over first. Counting goes on from the last record (one pass).
struct Lines<'a> {
    bytes: &'a [u8],
    at: usize,
    line: u64,
}

impl<'a> Lines<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            at: 0,
            line: 1,
        }
    }

    /// The line (1-based) of the record that starts at `byte`.
    fn of(&mut self, byte: u64) -> u64 {
        let bytes = self.bytes;
        let mut start = usize::try_from(byte)
            .unwrap_or(bytes.len())
            .min(bytes.len());
        while start < bytes.len() && matches!(bytes[start], b'\r' | b'\n') {
            start += 1;
        }
        if start > self.at {
            self.line += bytes[self.at..start]
                .iter()
                .filter(|b| **b == b'\n')
                .count() as u64;
            self.at = start;
        }
        self.line
    }
}

/// Whether the first row names columns: it does not start with a subscriber type, or it does
/// (a column called "Email") but has no address beside it (a list with one "email" column) or a
/// column name there.
fn is_header(cells: &[&str]) -> bool {
    kind_of(cells[0]).is_none() || cells.len() == 1 || column_of(cells[1]).is_some()
}

/// The subscriber types of Statuspage's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Email,
    Webhook,
    Sms,
    Slack,
    Teams,
}

fn kind_of(cell: &str) -> Option<Kind> {
    match cell.trim().to_ascii_lowercase().as_str() {
        "email" | "e-mail" => Some(Kind::Email),
        "webhook" => Some(Kind::Webhook),
        "sms" => Some(Kind::Sms),
        "slack" => Some(Kind::Slack),
        "teams" | "msteams" | "microsoft_teams" => Some(Kind::Teams),
        _ => None,
    }
}

fn unsupported(kind: Kind, shown: &str) -> Entry {
    let what = match kind {
        Kind::Sms => "SMS subscribers",
        Kind::Slack => "Slack subscribers",
        _ => "Microsoft Teams subscribers",
    };
    Entry::Refused {
        shown: shown.to_owned(),
        reason: format!(
            "{what} are not carried over: Herald sends email and webhooks (a chat channel can \
             subscribe through a webhook)"
        ),
    }
}

/// A column's meaning, from its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Column {
    Kind,
    Email,
    Url,
    Contact,
    Components,
    /// The subscriber's state where it comes from (Herald's export: `pending`, `confirmed`,
    /// `quarantined`, `unsubscribed`).
    State,
}

fn column_of(name: &str) -> Option<Column> {
    let key: String = name
        .to_ascii_lowercase()
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    match key.as_str() {
        "type" | "mode" | "kind" | "channel" | "subscribertype" | "subscriptiontype" | "method" => {
            Some(Column::Kind)
        }
        "email" | "emailaddress" | "subscriberemail" | "recipient" => Some(Column::Email),
        "url" | "endpoint" | "webhook" | "webhookurl" | "endpointurl" => Some(Column::Url),
        "contactemail" | "webhookemail" | "notificationemail" | "endpointemail" => {
            Some(Column::Contact)
        }
        "components" | "component" | "componentids" | "componentnames" | "subscribedcomponents" => {
            Some(Column::Components)
        }
        "state" | "subscriberstate" | "subscriptionstate" => Some(Column::State),
        _ => None,
    }
}

/// The columns of a headed file.
#[derive(Debug)]
struct Header {
    at: HashMap<Column, usize>,
}

impl Header {
    fn of(cells: &[&str]) -> Result<Self, String> {
        let mut at = HashMap::new();
        for (i, cell) in cells.iter().enumerate() {
            if let Some(column) = column_of(cell) {
                at.entry(column).or_insert(i);
            }
        }
        if !at.contains_key(&Column::Email) && !at.contains_key(&Column::Url) {
            let first: String = cells[0].chars().take(40).collect();
            return Err(format!(
                "the first row is neither a subscriber (it starts with '{first}', not email, \
                 sms, webhook or slack) nor a header naming an email or endpoint column"
            ));
        }
        Ok(Self { at })
    }

    fn cell<'a>(&self, cells: &[&'a str], column: Column) -> &'a str {
        self.at
            .get(&column)
            .and_then(|&i| cells.get(i))
            .copied()
            .unwrap_or("")
    }

    fn entry(&self, cells: &[&str]) -> Entry {
        let email = self.cell(cells, Column::Email);
        let url = self.cell(cells, Column::Url);
        let kind = match self.cell(cells, Column::Kind) {
            "" if !email.is_empty() => Kind::Email,
            "" if !url.is_empty() => Kind::Webhook,
            "" => return missing("an email address or an endpoint", ""),
            named => match kind_of(named) {
                Some(kind) => kind,
                None => {
                    return Entry::Refused {
                        shown: named.chars().take(40).collect(),
                        reason: "the type is not email, webhook, sms or slack".to_owned(),
                    };
                }
            },
        };
        let components = split_components(&[self.cell(cells, Column::Components)]);
        let contact = self.cell(cells, Column::Contact);
        let state = self.cell(cells, Column::State).to_ascii_lowercase();
        if state == "unsubscribed" {
            return Entry::Refused {
                shown: if email.is_empty() { url } else { email }
                    .chars()
                    .take(200)
                    .collect(),
                reason: "unsubscribed where the file comes from: a file does not subscribe it \
                         again"
                    .to_owned(),
            };
        }
        match kind {
            // Statuspage's webhook rows keep the failure address in the email column.
            Kind::Webhook => webhook(
                url,
                if contact.is_empty() { email } else { contact },
                components,
            ),
            Kind::Email => match self::email(email, components) {
                Entry::Email {
                    address,
                    components,
                    ..
                } => Entry::Email {
                    address,
                    components,
                    unconfirmed: matches!(state.as_str(), "pending" | "unconfirmed"),
                },
                refused => refused,
            },
            other => unsupported(other, email),
        }
    }
}

fn missing(what: &str, shown: &str) -> Entry {
    Entry::Refused {
        shown: shown.to_owned(),
        reason: format!("the row has no {what}"),
    }
}

fn email(address: &str, components: Vec<String>) -> Entry {
    if address.is_empty() {
        return missing("email address", "");
    }
    Entry::Email {
        address: address.to_owned(),
        components,
        unconfirmed: false,
    }
}

fn webhook(url: &str, contact: &str, components: Vec<String>) -> Entry {
    if url.is_empty() {
        return missing("endpoint", contact);
    }
    Entry::Webhook {
        url: url.to_owned(),
        contact_email: (!contact.is_empty()).then(|| contact.to_owned()),
        components,
    }
}

/// A row of Statuspage's import template: the type first, then its own cells.
fn template_entry(cells: &[&str]) -> Entry {
    let Some(kind) = kind_of(cells[0]) else {
        return Entry::Refused {
            shown: cells[0].chars().take(40).collect(),
            reason: "the row does not start with email, webhook, sms or slack".to_owned(),
        };
    };
    let address = cells.get(1).copied().unwrap_or("");
    let rest = cells.get(2..).unwrap_or_default();
    match kind {
        Kind::Email => {
            let rest: Vec<&str> = rest.iter().copied().filter(|c| !is_yes_no(c)).collect();
            email(address, split_components(&rest))
        }
        Kind::Webhook => {
            let (contact, rest) = match rest.split_first() {
                Some((first, rest)) if first.contains('@') || first.is_empty() => (*first, rest),
                _ => ("", rest),
            };
            webhook(address, contact, split_components(rest))
        }
        other => unsupported(other, address),
    }
}

fn is_yes_no(cell: &str) -> bool {
    matches!(
        cell.to_ascii_lowercase().as_str(),
        "yes" | "no" | "true" | "false"
    )
}

/// The component references of some cells, each split on `;`, `|`, `,` and line breaks.
fn split_components(cells: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for cell in cells {
        for part in cell.split([';', '|', ',', '\n', '\r']) {
            let part = part.trim();
            if !part.is_empty() && !out.iter().any(|p| p == part) {
                out.push(part.to_owned());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;

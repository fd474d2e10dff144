//! Chat products' incoming webhooks (Slack, Discord, Microsoft Teams) do not take Herald's
//! Statuspage-shaped body: they get a message in their own format, built from a
//! [`ChatMessage`]. Every other URL gets the standard body as is.

use serde_json::{Value, json};

use super::webhook::WebhookRequest;

/// What a chat message says: a linked title, the status, and the text.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChatMessage {
    /// E.g. "Acme: API errors".
    pub title: String,
    /// The update's text: markdown markers pass through when a responder wrote it, and are
    /// shown as typed when anyone may have ([`Author`]).
    pub text: String,
    /// Who wrote `text`.
    pub author: Author,
    /// Where to read more (the incident's public page).
    pub url: String,
    /// E.g. "investigating", "resolved", "major_outage".
    pub status: String,
}

/// Who wrote a chat message's text, which decides how it is escaped for each product.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Author {
    /// Anyone at all (a support form's sender): the text is shown as typed, so it can carry
    /// no formatting, mention or disguised link (`[your bank](https://evil.example)`) into
    /// responders' channels.
    #[default]
    Anyone,
    /// A signed-in responder: their markdown renders.
    Responder,
}

/// Which body format a destination takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    Slack,
    Discord,
    Teams,
    Standard,
}

/// Recognises chat products' incoming-webhook URLs.
pub fn flavor(url: &url::Url) -> Flavor {
    let host = url.host_str().unwrap_or("").to_ascii_lowercase();
    let path = url.path();
    let host_is = |domain: &str| host == domain || host.ends_with(&format!(".{domain}"));
    if host == "hooks.slack.com" || host == "hooks.slack-gov.com" {
        Flavor::Slack
    } else if (host_is("discord.com") || host_is("discordapp.com"))
        && path.starts_with("/api/webhooks/")
    {
        Flavor::Discord
    } else if host.ends_with(".webhook.office.com")
        || (host == "outlook.office.com" && path.starts_with("/webhook"))
        || (host.ends_with(".logic.azure.com") && path.contains("/workflows/"))
        || (host.ends_with(".powerplatform.com") && path.contains("/workflows/"))
    {
        Flavor::Teams
    } else {
        Flavor::Standard
    }
}

/// The JSON body for a destination of this flavour.
pub fn body(flavor: Flavor, req: &WebhookRequest) -> Value {
    let m = &req.summary;
    match flavor {
        Flavor::Standard => req.body.to_value(),
        Flavor::Slack => slack(m),
        Flavor::Discord => discord(m),
        Flavor::Teams => teams(m),
    }
}

/// A status as words: `major_outage` -> "Major outage".
fn status_words(status: &str) -> String {
    let spaced = status.replace('_', " ");
    let mut chars = spaced.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A colour for the status: green when fine, red when down, orange in between, blue for
/// maintenance.
fn colour(status: &str) -> u32 {
    match status {
        "resolved" | "operational" | "completed" | "postmortem" => 0x2e_b8_86,
        "investigating" | "major_outage" | "critical" | "major" => 0xd9_3f_0b,
        "scheduled" | "in_progress" | "verifying" | "under_maintenance" => 0x31_78_c6,
        _ => 0xe8_a2_3b,
    }
}

fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Slack's mrkdwn treats `&`, `<` and `>` as control characters.
fn slack_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn slack(m: &ChatMessage) -> Value {
    let title = slack_escape(&m.title);
    let heading = if m.url.is_empty() {
        format!("*{title}*")
    } else {
        format!("*<{}|{title}>*", slack_escape(&m.url))
    };
    let section = truncate(
        &format!(
            "{heading}\n_{}_\n{}",
            status_words(&m.status),
            slack_escape(&m.text)
        ),
        3000,
    );
    // The fallback text (notifications, screen readers) is mrkdwn too: escaped the same way.
    let fallback = format!("{} ({}): {}", m.title, status_words(&m.status), m.text);
    json!({
        "text": truncate(&slack_escape(&fallback), 4000),
        "blocks": [
            { "type": "section", "text": { "type": "mrkdwn", "text": section } }
        ],
    })
}

/// Discord's markdown, shown as typed: each marker (and `<` of `<https://...>` links) gets
/// its backslash.
fn discord_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '*'
                | '_'
                | '~'
                | '`'
                | '|'
                | '>'
                | '<'
                | '#'
                | '-'
                | '['
                | ']'
                | '('
                | ')'
                | ':'
                | '@'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn discord(m: &ChatMessage) -> Value {
    let text = match m.author {
        Author::Responder => m.text.clone(),
        Author::Anyone => discord_escape(&m.text),
    };
    let mut embed = json!({
        "title": truncate(&m.title, 256),
        "description": truncate(&text, 4096),
        "color": colour(&m.status),
        "footer": { "text": truncate(&status_words(&m.status), 2048) },
    });
    if !m.url.is_empty() {
        embed["url"] = Value::String(m.url.clone());
    }
    json!({
        "content": truncate(&format!("{} ({})", m.title, status_words(&m.status)), 2000),
        "embeds": [embed],
        // Text from responders must not ping @everyone or anyone else.
        "allowed_mentions": { "parse": [] },
    })
}

fn teams(m: &ChatMessage) -> Value {
    // A TextBlock renders markdown, links included; a RichTextBlock's TextRun never does.
    let text = match m.author {
        Author::Responder => json!({ "type": "TextBlock", "wrap": true, "text": m.text }),
        Author::Anyone => json!({
            "type": "RichTextBlock",
            "inlines": [{ "type": "TextRun", "text": m.text }],
        }),
    };
    let mut card = json!({
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "type": "AdaptiveCard",
        "version": "1.4",
        "body": [
            { "type": "TextBlock", "size": "Medium", "weight": "Bolder", "wrap": true,
              "text": m.title },
            { "type": "TextBlock", "isSubtle": true, "spacing": "None", "wrap": true,
              "text": status_words(&m.status) },
            text,
        ],
    });
    if !m.url.is_empty() {
        card["actions"] = json!([{ "type": "Action.OpenUrl", "title": "View", "url": m.url }]);
    }
    json!({
        "type": "message",
        "summary": truncate(&m.title, 200),
        "attachments": [{
            "contentType": "application/vnd.microsoft.card.adaptive",
            "contentUrl": null,
            "content": card,
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> url::Url {
        url::Url::parse(s).unwrap()
    }

    fn request(to: &str) -> WebhookRequest {
        WebhookRequest {
            id: "msg_1".into(),
            url: to.into(),
            secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw".into(),
            body: json!({"meta": {"generated_at": "2026-01-01T00:00:00Z"}}).into(),
            summary: ChatMessage {
                title: "Acme: API <errors> & timeouts".into(),
                text: "We are investigating. @everyone".into(),
                author: Author::Responder,
                url: "https://status.example.com/status/acme/incidents/1".into(),
                status: "major_outage".into(),
            }
            .into(),
        }
    }

    #[test]
    fn chat_products_are_recognised_by_their_webhook_urls() {
        let cases = [
            ("https://hooks.slack.com/services/T0/B0/XXX", Flavor::Slack),
            ("https://discord.com/api/webhooks/1/abc", Flavor::Discord),
            ("https://discordapp.com/api/webhooks/1/abc", Flavor::Discord),
            (
                "https://ptb.discord.com/api/webhooks/1/abc",
                Flavor::Discord,
            ),
            ("https://discord.com/channels/1/2", Flavor::Standard),
            (
                "https://acme.webhook.office.com/webhookb2/x/IncomingWebhook/y/z",
                Flavor::Teams,
            ),
            (
                "https://outlook.office.com/webhook/x/IncomingWebhook/y",
                Flavor::Teams,
            ),
            (
                "https://prod-01.westus.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke",
                Flavor::Teams,
            ),
            ("https://example.com/hooks.slack.com", Flavor::Standard),
            (
                "https://hooks.slack.com.evil.example/services/x",
                Flavor::Standard,
            ),
            (
                "https://notdiscord.com/api/webhooks/1/abc",
                Flavor::Standard,
            ),
            ("https://receiver.example.com/herald", Flavor::Standard),
        ];
        for (u, expected) in cases {
            assert_eq!(flavor(&url(u)), expected, "{u}");
        }
    }

    #[test]
    fn standard_destinations_get_the_statuspage_body_unchanged() {
        let req = request("https://example.com/hook");
        assert_eq!(body(Flavor::Standard, &req), req.body.to_value());
    }

    #[test]
    fn slack_gets_text_and_blocks_with_escaped_mrkdwn() {
        let b = body(
            Flavor::Slack,
            &request("https://hooks.slack.com/services/x"),
        );
        assert!(b["text"].as_str().unwrap().contains("Major outage"));
        let section = b["blocks"][0]["text"]["text"].as_str().unwrap();
        assert!(
            section.contains("&lt;errors&gt; &amp; timeouts"),
            "{section}"
        );
        assert!(section.starts_with("*<https://status.example.com/status/acme/incidents/1|"));
    }

    #[test]
    fn discord_gets_an_embed_and_pings_nobody() {
        let b = body(
            Flavor::Discord,
            &request("https://discord.com/api/webhooks/1/x"),
        );
        assert_eq!(b["embeds"][0]["title"], "Acme: API <errors> & timeouts");
        assert_eq!(b["embeds"][0]["color"], 0xd9_3f_0b);
        assert_eq!(b["allowed_mentions"]["parse"], json!([]));
        assert!(b["content"].as_str().unwrap().len() <= 2000);
    }

    #[test]
    fn teams_gets_an_adaptive_card() {
        let b = body(
            Flavor::Teams,
            &request("https://acme.webhook.office.com/webhookb2/x"),
        );
        assert_eq!(b["type"], "message");
        let card = &b["attachments"][0]["content"];
        assert_eq!(card["type"], "AdaptiveCard");
        assert_eq!(card["body"][0]["text"], "Acme: API <errors> & timeouts");
        assert_eq!(
            card["actions"][0]["url"],
            "https://status.example.com/status/acme/incidents/1"
        );
    }

    /// A support message from anyone, with a disguised link in each product's syntax.
    fn from_anyone(to: &str) -> WebhookRequest {
        let mut req = request(to);
        let summary = std::sync::Arc::make_mut(&mut req.summary);
        summary.title = "Acme: support request SUP-1".into();
        summary.text =
            "Sign-in broken <https://evil.example|your SSO> [log in here](https://evil.example) **now** & @here".into();
        summary.author = Author::Anyone;
        req
    }

    #[test]
    fn slack_escapes_anyones_text_in_the_blocks_and_the_fallback() {
        let b = body(
            Flavor::Slack,
            &from_anyone("https://hooks.slack.com/services/x"),
        );
        let fallback = b["text"].as_str().unwrap();
        let section = b["blocks"][0]["text"]["text"].as_str().unwrap();
        for text in [fallback, section] {
            assert!(!text.contains("<https://evil"), "{text}");
            assert!(
                text.contains("&lt;https://evil.example|your SSO&gt;"),
                "{text}"
            );
            assert!(text.contains(" &amp; @here"), "{text}");
        }
    }

    #[test]
    fn discord_shows_anyones_markdown_as_typed() {
        let b = body(
            Flavor::Discord,
            &from_anyone("https://discord.com/api/webhooks/1/x"),
        );
        let description = b["embeds"][0]["description"].as_str().unwrap();
        assert!(
            description.contains(r"\[log in here\]\(https\://evil.example\)"),
            "{description}"
        );
        assert!(description.contains(r"\*\*now\*\*"), "{description}");
        assert!(
            description.contains(r"\<https\://evil.example\|your SSO\>"),
            "{description}"
        );
        let responder = body(
            Flavor::Discord,
            &request("https://discord.com/api/webhooks/1/x"),
        );
        assert_eq!(
            responder["embeds"][0]["description"], "We are investigating. @everyone",
            "a responder's text is left as written"
        );
    }

    #[test]
    fn teams_puts_anyones_text_where_markdown_does_not_render() {
        let b = body(
            Flavor::Teams,
            &from_anyone("https://acme.webhook.office.com/webhookb2/x"),
        );
        let text = &b["attachments"][0]["content"]["body"][2];
        assert_eq!(text["type"], "RichTextBlock");
        assert_eq!(text["inlines"][0]["type"], "TextRun");
        assert!(
            text["inlines"][0]["text"]
                .as_str()
                .unwrap()
                .contains("[log in here]")
        );
        let responder = body(
            Flavor::Teams,
            &request("https://acme.webhook.office.com/webhookb2/x"),
        );
        assert_eq!(
            responder["attachments"][0]["content"]["body"][2]["type"],
            "TextBlock"
        );
    }

    #[test]
    fn long_texts_are_cut_to_the_products_limits() {
        let mut req = request("https://discord.com/api/webhooks/1/x");
        let summary = std::sync::Arc::make_mut(&mut req.summary);
        summary.text = "x".repeat(10_000);
        summary.title = "t".repeat(1000);
        let d = body(Flavor::Discord, &req);
        assert_eq!(
            d["embeds"][0]["description"]
                .as_str()
                .unwrap()
                .chars()
                .count(),
            4096
        );
        assert_eq!(
            d["embeds"][0]["title"].as_str().unwrap().chars().count(),
            256
        );
        let s = body(Flavor::Slack, &req);
        assert!(
            s["blocks"][0]["text"]["text"]
                .as_str()
                .unwrap()
                .chars()
                .count()
                <= 3000
        );
    }
}

//! Every mail Herald sends, as handlebars templates embedded from `templates/email/`:
//! `<name>/{subject.txt,body.txt,body.html}.hbs` (HTML escaped, text not; the subject is kept
//! on one line), Herald's words in the reader's language. Notifications, readers' sign-in
//! links and support notices all render through the one [`Mailbook`].

use anyhow::Context as _;
use handlebars::Handlebars;
use rust_embed::RustEmbed;
use serde_json::{Value, json};

use crate::domain::lang::Lang;

#[derive(RustEmbed)]
#[folder = "templates/email/"]
struct EmailTemplates;

/// The email templates: `<name>/subject`, `<name>/text` (not escaped) and `<name>/html`.
pub struct Mailbook {
    text: Handlebars<'static>,
    html: Handlebars<'static>,
}

impl Mailbook {
    /// The embedded templates, strict mode.
    pub fn load() -> anyhow::Result<Self> {
        let mut text = Handlebars::new();
        text.set_strict_mode(true);
        text.register_escape_fn(handlebars::no_escape);
        let mut html = Handlebars::new();
        html.set_strict_mode(true);
        html.register_escape_fn(handlebars::html_escape);
        super::i18n::register(&mut text);
        super::i18n::register(&mut html);
        for path in EmailTemplates::iter() {
            let file = EmailTemplates::get(&path).with_context(|| format!("email/{path}"))?;
            let source = std::str::from_utf8(&file.data)
                .with_context(|| format!("email/{path} is not UTF-8"))?;
            let Some((name, part)) = path.rsplit_once('/') else {
                continue;
            };
            match part {
                // Pieces every HTML mail of a page shares (`{{> brand}}`: its logo and colour).
                _ if name == "partials" => {
                    html.register_partial(part.trim_end_matches(".html.hbs"), source)
                }
                "subject.txt.hbs" => {
                    text.register_template_string(&format!("{name}/subject"), source)
                }
                "body.txt.hbs" => text.register_template_string(&format!("{name}/text"), source),
                "body.html.hbs" => html.register_template_string(&format!("{name}/html"), source),
                _ => continue,
            }
            .with_context(|| format!("email/{path}"))?;
        }
        Ok(Self { text, html })
    }

    /// Renders `(subject, text, html)` of template `name` with `view`, Herald's words in
    /// `lang`.
    pub fn render(
        &self,
        name: &str,
        lang: Lang,
        view: &Value,
    ) -> anyhow::Result<(String, String, String)> {
        let mut view = view.clone();
        view["lang"] = json!(lang.as_str());
        let view = &view;
        let subject = self.text.render(&format!("{name}/subject"), view)?;
        let subject: String = subject
            .split(['\r', '\n'])
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        let text = self.text.render(&format!("{name}/text"), view)?;
        let html = self.html.render(&format!("{name}/html"), view)?;
        Ok((subject, text, html))
    }
}

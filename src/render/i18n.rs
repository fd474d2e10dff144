//! Herald's own words in the reader's language: Fluent messages (`templates/locales/<lang>/`,
//! embedded at compile time by `fluent-templates`), looked up from Rust ([`text`], [`text_with`])
//! and from templates (`{{t "key" name=value}}`, reading the view's top-level `lang`).
//!
//! A message missing from a language falls back to English; a key missing from English is an
//! error when rendering (so a typo in a template fails its tests, not a reader's page), and the
//! tests below keep every language's keys equal to English's.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::LazyLock;

use fluent_templates::fluent_bundle::FluentValue;
use fluent_templates::{LanguageIdentifier, Loader};
use handlebars::{
    Context, Handlebars, Helper, HelperResult, Output, RenderContext, RenderError,
    RenderErrorReason,
};

use crate::domain::lang::Lang;

fluent_templates::static_loader! {
    static LOCALES = {
        locales: "./templates/locales",
        fallback_language: "en",
        // No Unicode isolation marks around values: they would land in HTML attributes, mail
        // subjects and tests' expectations, and every value here is a plain word or number.
        customise: |bundle| bundle.set_use_isolating(false),
    };
}

/// Each language's identifier, in the order of [`Lang::ALL`].
#[allow(
    clippy::expect_used,
    reason = "the codes are constants; a unit test parses them all"
)]
static IDS: LazyLock<Vec<LanguageIdentifier>> = LazyLock::new(|| {
    Lang::ALL
        .iter()
        .map(|lang| {
            lang.as_str()
                .parse()
                .expect("every language code is a language identifier")
        })
        .collect()
});

fn id(lang: Lang) -> &'static LanguageIdentifier {
    let index = Lang::ALL.iter().position(|l| *l == lang).unwrap_or(0);
    &IDS[index]
}

/// The message `key` in `lang` (English when `lang` lacks it); the key itself when English
/// lacks it too (the template helper refuses that instead).
pub fn text(lang: Lang, key: &str) -> String {
    text_with(lang, key, &[])
}

/// The message `key` in `lang` with its arguments (`{ $name }` in the message).
pub fn text_with(lang: Lang, key: &str, args: &[(&'static str, FluentValue<'_>)]) -> String {
    let args: Args = args
        .iter()
        .map(|(name, value)| (Cow::Borrowed(*name), value.clone().into_owned()))
        .collect();
    lookup(lang, key, &args).unwrap_or_else(|| key.to_owned())
}

/// A message's arguments by name.
type Args = HashMap<Cow<'static, str>, FluentValue<'static>>;

fn lookup(lang: Lang, key: &str, args: &Args) -> Option<String> {
    let args = (!args.is_empty()).then_some(args);
    LOCALES.try_lookup_complete(id(lang), key, args)
}

/// `{{t "key" name=value ...}}`: the message in the language of the view's top-level `lang`,
/// escaped as the registry escapes values.
fn t(
    h: &Helper,
    registry: &Handlebars,
    ctx: &Context,
    _: &mut RenderContext,
    out: &mut dyn Output,
) -> HelperResult {
    let key = h
        .param(0)
        .and_then(|p| p.value().as_str())
        .ok_or_else(|| RenderErrorReason::ParamNotFoundForIndex("t", 0))?;
    let lang = ctx
        .data()
        .get("lang")
        .and_then(|l| l.as_str())
        .and_then(|l| l.parse::<Lang>().ok())
        .ok_or_else(|| {
            RenderErrorReason::Other(format!("{{{{t {key:?}}}}} needs the view's lang"))
        })?;
    let mut html: Vec<String> = Vec::new();
    let args: Args = h
        .hash()
        .iter()
        .map(|(name, value)| {
            let value = match value.value() {
                serde_json::Value::Number(n) => FluentValue::from(n.as_f64().unwrap_or_default()),
                serde_json::Value::String(s) => FluentValue::from(s.clone()),
                object @ serde_json::Value::Object(_) => match markup(object) {
                    Some(element) => {
                        html.push(element);
                        FluentValue::from(sentinel(html.len() - 1))
                    }
                    None => FluentValue::from(object.to_string()),
                },
                other => FluentValue::from(other.to_string()),
            };
            (Cow::Owned((*name).to_owned()), value)
        })
        .collect();
    let message = lookup(lang, key, &args).ok_or_else(|| {
        RenderError::from(RenderErrorReason::Other(format!(
            "no message {key:?} in the locales"
        )))
    })?;
    // Escaped as the registry escapes (HTML pages and mails; plain-text mails not at all).
    let mut text = (registry.get_escape_fn())(&message);
    for (i, element) in html.iter().enumerate() {
        text = text.replace(&sentinel(i), element);
    }
    out.write(&text)?;
    Ok(())
}

/// Where the `i`th element argument goes in a message until the message is escaped: private-use
/// characters, which no message holds and escaping leaves alone.
fn sentinel(i: usize) -> String {
    format!("\u{E000}{i}\u{E001}")
}

/// An argument drawn as an element: a time (`{iso, text}`, a `TimeView`) as `<time>`, which the
/// page's script shows in the reader's own zone, and a link (`{href, label}`) as `<a>`.
fn markup(value: &serde_json::Value) -> Option<String> {
    let field = |name: &str| value.get(name).and_then(|v| v.as_str());
    let escape = |text: &str| super::html::escape_markup(text, "&#39;");
    if let (Some(iso), Some(text)) = (field("iso"), field("text")) {
        return Some(format!(
            r#"<time datetime="{}" data-local>{}</time>"#,
            escape(iso),
            escape(text)
        ));
    }
    if let (Some(href), Some(label)) = (field("href"), field("label")) {
        return Some(format!(
            r#"<a href="{}" rel="noopener noreferrer">{}</a>"#,
            escape(href),
            escape(label)
        ));
    }
    None
}

/// Registers `t` on a registry.
pub fn register(registry: &mut Handlebars<'_>) {
    registry.register_helper("t", Box::new(t));
}

/// A view with its language, as the templates read it (`lang` beside the view's own fields).
pub fn with_lang<T: serde::Serialize>(lang: Lang, view: &T) -> anyhow::Result<serde_json::Value> {
    let mut value = serde_json::to_value(view)?;
    match value.as_object_mut() {
        Some(fields) => {
            fields.insert("lang".to_owned(), lang.as_str().into());
            Ok(value)
        }
        None => anyhow::bail!("a view must be an object to carry its language"),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    use super::*;

    /// The message keys of one language's files.
    fn keys(lang: Lang) -> BTreeSet<String> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("templates/locales")
            .join(lang.as_str());
        let mut keys = BTreeSet::new();
        for entry in std::fs::read_dir(&dir).expect("the language's folder") {
            let text = std::fs::read_to_string(entry.expect("entry").path()).expect("ftl");
            let resource = fluent_templates::fluent_bundle::FluentResource::try_new(text)
                .unwrap_or_else(|(_, errors)| panic!("{lang}: {errors:?}"));
            for entry in resource.entries() {
                if let fluent_syntax::ast::Entry::Message(m) = entry {
                    keys.insert(m.id.name.to_owned());
                }
            }
        }
        keys
    }

    #[test]
    fn every_language_has_exactly_englishs_messages() {
        let english = keys(Lang::En);
        assert!(english.len() > 20, "{english:?}");
        for lang in Lang::ALL {
            let theirs = keys(*lang);
            let missing: Vec<_> = english.difference(&theirs).collect();
            let extra: Vec<_> = theirs.difference(&english).collect();
            assert!(missing.is_empty(), "{lang} lacks {missing:?}");
            assert!(extra.is_empty(), "{lang} has unknown {extra:?}");
        }
    }

    #[test]
    fn every_key_a_template_names_is_an_english_message() {
        let english = keys(Lang::En);
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
        let mut named = 0;
        for path in walk(&root) {
            let Some(ext) = path.extension() else {
                continue;
            };
            if ext != "hbs" {
                continue;
            }
            let source = std::fs::read_to_string(&path).expect("template");
            for (_, rest) in source
                .match_indices("{{t \"")
                .map(|(i, _)| source.split_at(i + 5))
            {
                let key = rest.split('"').next().unwrap_or_default();
                named += 1;
                assert!(
                    english.contains(key),
                    "{}: no message {key:?}",
                    path.display()
                );
            }
        }
        assert!(named > 20, "only {named} keys found in templates");
    }

    fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).expect("dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                out.extend(walk(&path));
            } else {
                out.push(path);
            }
        }
        out
    }

    #[test]
    fn messages_are_found_in_each_language_with_their_arguments() {
        assert_eq!(text(Lang::En, "nav-history"), "History");
        assert_eq!(text(Lang::De, "nav-history"), "Verlauf");
        assert_eq!(text(Lang::En, "no-such-key"), "no-such-key");
        let named = text_with(Lang::En, "page-status-title", &[("name", "Acme".into())]);
        assert_eq!(named, "Acme status");
    }

    #[test]
    fn the_template_helper_reads_the_views_language_and_escapes() {
        let mut registry = Handlebars::new();
        registry.register_escape_fn(|text| crate::render::html::escape_markup(text, "&#39;"));
        register(&mut registry);
        let view = with_lang(Lang::De, &serde_json::json!({"name": "<A&B>"})).expect("object");
        let out = registry
            .render_template(
                r#"{{t "nav-history"}}|{{t "page-status-title" name=name}}"#,
                &view,
            )
            .expect("renders");
        assert_eq!(out, "Verlauf|Status von &lt;A&amp;B&gt;");
        let view = with_lang(
            Lang::En,
            &serde_json::json!({
                "at": {"iso": "2026-11-30T14:05:00Z", "text": "30 Nov 2026, <15:05>"},
                "vendor": {"href": "https://x.example/?a=1&b=\"", "label": "X & Y"},
                "component": "<b>",
            }),
        )
        .expect("object");
        let out = registry
            .render_template(
                r#"{{t "started-at" time=at}}|{{t "component-vendor" vendor=vendor component=component}}"#,
                &view,
            )
            .expect("renders");
        assert_eq!(
            out,
            "Started <time datetime=\"2026-11-30T14:05:00Z\" data-local>30 Nov 2026, &lt;15:05&gt;</time>|\
             Status from <a href=\"https://x.example/?a=1&amp;b=&quot;\" rel=\"noopener noreferrer\">X &amp; Y</a>&#39;s page (&lt;b&gt;)"
        );
        let missing = registry.render_template(r#"{{t "no-such-key"}}"#, &view);
        assert!(missing.is_err());
        let no_lang = registry.render_template(r#"{{t "nav-history"}}"#, &serde_json::json!({}));
        assert!(no_lang.is_err());
    }
}

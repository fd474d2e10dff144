//! The handlebars registry of the public pages: every template under `templates/layouts`,
//! `templates/partials` and `templates/pages` embedded in the binary, strict mode, optional
//! overrides from a directory, and the few helpers the templates use.

use std::path::Path;

use anyhow::Context as _;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use handlebars::{
    Context, Handlebars, Helper, HelperResult, Output, RenderContext, RenderError,
    RenderErrorReason, handlebars_helper,
};
use rust_embed::RustEmbed;
use serde::Serialize;

use super::format::{self, ICONS};
use crate::domain::lang::Lang;
use crate::render::i18n;

/// The embedded `templates/` folder (only the public-page folders are registered).
#[derive(RustEmbed)]
#[folder = "templates/"]
struct Embedded;

/// Folders of `templates/` that hold the public pages.
const FOLDERS: &[&str] = &["layouts/", "partials/", "pages/", "admin/"];
/// The suffix of a template file; the name is the path without it (`pages/overview`).
const SUFFIX: &str = ".html.hbs";

/// The templates of the public pages, ready to render.
pub struct Templates {
    registry: Handlebars<'static>,
}

impl std::fmt::Debug for Templates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut names: Vec<_> = self.registry.get_templates().keys().collect();
        names.sort();
        f.debug_struct("Templates").field("names", &names).finish()
    }
}

impl Templates {
    /// The embedded templates.
    pub fn load() -> anyhow::Result<Self> {
        Self::load_with_override(None)
    }

    /// The embedded templates, then every `*.html.hbs` below `dir` registered by its relative
    /// path (`pages/overview.html.hbs` replaces `pages/overview`).
    pub fn load_with_override(dir: Option<&Path>) -> anyhow::Result<Self> {
        let mut registry = Handlebars::new();
        registry.set_strict_mode(true);
        // Indenting partials would change the text of `<pre>` blocks in bodies.
        registry.set_prevent_indent(true);
        registry.register_escape_fn(escape_html);
        register_helpers(&mut registry);
        for path in Embedded::iter() {
            let Some(name) = template_name(&path) else {
                continue;
            };
            let file = Embedded::get(&path).with_context(|| format!("embedded {path}"))?;
            let source = std::str::from_utf8(&file.data)
                .with_context(|| format!("template {path} is not UTF-8"))?;
            register(&mut registry, &name, source).with_context(|| format!("template {path}"))?;
        }
        if let Some(dir) = dir {
            register_dir(&mut registry, dir, dir)?;
        }
        Ok(Self { registry })
    }

    /// Whether a template of this name is registered.
    pub fn has(&self, name: &str) -> bool {
        self.registry.has_template(name)
    }

    /// Renders the template `name` with `view`, in English.
    pub fn render<T: Serialize>(&self, name: &str, view: &T) -> anyhow::Result<String> {
        self.render_in(Lang::En, name, view)
    }

    /// Renders the template `name` with `view`, Herald's own words in `lang`.
    pub fn render_in<T: Serialize>(
        &self,
        lang: Lang,
        name: &str,
        view: &T,
    ) -> anyhow::Result<String> {
        let view = i18n::with_lang(lang, view)?;
        self.registry
            .render(name, &view)
            .with_context(|| format!("rendering {name}"))
    }
}

/// Escapes text for HTML content and quoted attribute values (every attribute in the templates
/// is quoted). Unlike handlebars' default it leaves `=` alone, so URLs such as
/// `history?page=2` stay readable in the source.
pub fn escape_html(text: &str) -> String {
    escape_markup(text, "&#39;")
}

/// Escapes `&`, `<`, `>`, `"` and `'` (the last as `apostrophe`: `&#39;` in HTML, `&apos;` in
/// XML) for markup content and quoted attribute values.
pub fn escape_markup(text: &str, apostrophe: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str(apostrophe),
            c => out.push(c),
        }
    }
    out
}

/// `pages/overview.html.hbs` -> `pages/overview`, for files of the public-page folders only.
fn template_name(path: &str) -> Option<String> {
    let path = path.replace('\\', "/");
    if !FOLDERS.iter().any(|f| path.starts_with(f)) {
        return None;
    }
    path.strip_suffix(SUFFIX).map(str::to_owned)
}

/// Registers one template; its final newline is dropped so that partials used inline (a time,
/// an icon) add no stray space.
fn register(registry: &mut Handlebars<'static>, name: &str, source: &str) -> anyhow::Result<()> {
    let source = source.strip_suffix('\n').unwrap_or(source);
    let source = source.strip_suffix('\r').unwrap_or(source);
    registry.register_template_string(name, source)?;
    Ok(())
}

fn register_dir(registry: &mut Handlebars<'static>, root: &Path, dir: &Path) -> anyhow::Result<()> {
    let entries = std::fs::read_dir(dir)
        .with_context(|| format!("reading templates in {}", dir.display()))?;
    let mut paths: Vec<_> = entries
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    paths.sort();
    for path in paths {
        if path.is_dir() {
            register_dir(registry, root, &path)?;
            continue;
        }
        let Some(relative) = path.strip_prefix(root).ok().and_then(|p| p.to_str()) else {
            continue;
        };
        let Some(name) = template_name(relative) else {
            continue;
        };
        let source = std::fs::read_to_string(&path)
            .with_context(|| format!("reading template {}", path.display()))?;
        register(registry, &name, &source)
            .with_context(|| format!("template {}", path.display()))?;
    }
    Ok(())
}

handlebars_helper!(local_time: |at: str, tz: str| {
    match (DateTime::parse_from_rfc3339(at), tz.parse::<Tz>()) {
        (Ok(at), Ok(tz)) => format::local_text(at.with_timezone(&Utc), tz),
        _ => at.to_owned(),
    }
});
handlebars_helper!(percent: |value: f64, decimals: u64| {
    format::percent_text(value, decimals.min(4) as u32)
});
handlebars_helper!(sentence: |label: str| format::sentence_case(label));

/// `{{icon "ok"}}`: a decorative icon from the sprite (words always sit next to it).
fn icon(
    h: &Helper,
    _: &Handlebars,
    _: &Context,
    _: &mut RenderContext,
    out: &mut dyn Output,
) -> HelperResult {
    let name = h
        .param(0)
        .and_then(|p| p.value().as_str())
        .ok_or_else(|| RenderErrorReason::ParamNotFoundForIndex("icon", 0))?;
    if !ICONS.contains(&name) {
        return Err(RenderError::from(RenderErrorReason::Other(format!(
            "unknown icon {name:?}"
        ))));
    }
    out.write(&format!(
        r##"<svg class="icon" aria-hidden="true"><use href="#i-{name}"/></svg>"##
    ))?;
    Ok(())
}

fn register_helpers(registry: &mut Handlebars<'static>) {
    registry.register_helper("local_time", Box::new(local_time));
    registry.register_helper("percent", Box::new(percent));
    registry.register_helper("sentence", Box::new(sentence));
    registry.register_helper("icon", Box::new(icon));
    i18n::register(registry);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_public_template_is_embedded_by_name() {
        let templates = Templates::load().expect("templates load");
        for name in [
            "layouts/base",
            "partials/icons",
            "partials/time",
            "pages/overview",
            "pages/incident",
            "pages/history",
            "pages/home",
            "pages/not_found",
            "pages/unavailable",
            "pages/error",
        ] {
            assert!(templates.has(name), "{name} missing: {templates:?}");
        }
    }

    #[test]
    fn helpers_format_times_percentages_and_icons() {
        let templates = Templates::load().expect("templates load");
        let out = templates
            .registry
            .render_template(
                r#"{{local_time "2026-11-30T14:05:00Z" "Europe/Berlin"}}|{{percent 99.95 1}}|{{sentence "Major Outage"}}|{{icon "ok"}}"#,
                &(),
            )
            .expect("renders");
        assert_eq!(
            out,
            r##"30 Nov 2026, 15:05 CET|99.9 %|Major outage|<svg class="icon" aria-hidden="true"><use href="#i-ok"/></svg>"##
        );
        assert!(
            templates
                .registry
                .render_template(r#"{{icon "x\" onload=\"alert(1)"}}"#, &())
                .is_err()
        );
    }

    #[test]
    fn strict_mode_refuses_missing_fields() {
        let templates = Templates::load().expect("templates load");
        let err = templates
            .registry
            .render_template("{{nope}}", &serde_json::json!({}));
        assert!(err.is_err());
    }

    #[test]
    fn an_override_directory_replaces_templates_by_name() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("pages")).expect("mkdir");
        std::fs::write(
            dir.path().join("pages/not_found.html.hbs"),
            "custom {{frame.title}}\n",
        )
        .expect("write");
        std::fs::write(dir.path().join("pages/ignored.txt"), "x").expect("write");
        let templates = Templates::load_with_override(Some(dir.path())).expect("loads");
        let out = templates
            .render(
                "pages/not_found",
                &serde_json::json!({"frame": {"title": "T"}}),
            )
            .expect("renders");
        assert_eq!(out, "custom T");
        assert!(templates.has("pages/overview"));
        assert!(!templates.has("pages/ignored"));
    }
}

//! `history.atom`: an Atom 1.0 (RFC 4287) feed with one entry per record.

use anyhow::Context;
use atom_syndication::{Category, Content, Entry, Feed, Generator, Link, Person, Text};

use super::{Item, content_html, entry_id, feed_id, feed_updated, items, page_url, title};
use crate::services::public::data::PageData;

/// The Atom feed of `data`.
pub fn render(data: &PageData) -> anyhow::Result<Vec<u8>> {
    let items = items(data);
    let feed = Feed {
        title: Text::plain(title(data)),
        id: feed_id(data),
        updated: feed_updated(data, &items).fixed_offset(),
        authors: vec![Person {
            name: data.page.name.clone(),
            uri: Some(data.page.url.clone()),
            ..Person::default()
        }],
        generator: Some(Generator {
            value: "Herald".to_owned(),
            ..Generator::default()
        }),
        links: vec![
            link(&data.page.url, "alternate", "text/html"),
            link(
                &page_url(data, "history.atom"),
                "self",
                "application/atom+xml",
            ),
        ],
        subtitle: data.page.description.clone().map(Text::plain),
        entries: items.iter().map(|item| entry(data, item)).collect(),
        ..Feed::default()
    };
    feed.write_to(Vec::new()).context("writing the Atom feed")
}

fn entry(data: &PageData, item: &Item<'_>) -> Entry {
    let record = item.record;
    Entry {
        title: Text::plain(record.name.clone()),
        id: entry_id(record),
        updated: item.updated.fixed_offset(),
        published: Some(item.published.fixed_offset()),
        links: vec![link(&record.url, "alternate", "text/html")],
        categories: vec![Category {
            term: record.kind.as_str().to_owned(),
            label: Some(record.kind.label().to_owned()),
            ..Category::default()
        }],
        content: Some(Content {
            content_type: Some("html".to_owned()),
            value: Some(content_html(data, record)),
            ..Content::default()
        }),
        ..Entry::default()
    }
}

fn link(href: &str, rel: &str, mime_type: &str) -> Link {
    Link {
        href: href.to_owned(),
        rel: rel.to_owned(),
        mime_type: Some(mime_type.to_owned()),
        ..Link::default()
    }
}

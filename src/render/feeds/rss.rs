//! `history.rss`: an RSS 2.0 feed with one item per record.

use anyhow::Context;
use rss::extension::atom::{AtomExtension, Link};
use rss::{Category, Channel, Guid, Item as RssItem};

use super::{Item, content_html, entry_id, feed_updated, items, page_url, title};
use crate::services::public::data::PageData;

/// The RSS feed of `data`.
pub fn render(data: &PageData) -> anyhow::Result<Vec<u8>> {
    let items = items(data);
    let updated = feed_updated(data, &items).to_rfc2822();
    let description = match &data.page.description {
        Some(description) => description.clone(),
        None => format!("Incidents and maintenance of {}", data.page.name),
    };
    let channel = Channel {
        title: title(data),
        link: data.page.url.clone(),
        description,
        pub_date: Some(updated.clone()),
        last_build_date: Some(updated),
        generator: Some("Herald".to_owned()),
        atom_ext: Some(AtomExtension {
            links: vec![Link {
                href: page_url(data, "history.rss"),
                rel: "self".to_owned(),
                mime_type: Some("application/rss+xml".to_owned()),
                ..Link::default()
            }],
        }),
        items: items.iter().map(|item| rss_item(data, item)).collect(),
        ..Channel::default()
    };
    channel.write_to(Vec::new()).context("writing the RSS feed")
}

fn rss_item(data: &PageData, item: &Item<'_>) -> RssItem {
    let record = item.record;
    RssItem {
        title: Some(record.name.clone()),
        link: Some(record.url.clone()),
        description: Some(content_html(data, record)),
        guid: Some(Guid {
            value: entry_id(record),
            permalink: false,
        }),
        pub_date: Some(item.published.to_rfc2822()),
        categories: vec![Category {
            name: record.kind.label().to_owned(),
            domain: None,
        }],
        ..RssItem::default()
    }
}

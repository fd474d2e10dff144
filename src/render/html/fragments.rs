//! Each component's part of the overview, rendered once and kept while what it shows stays the
//! same: a page of a thousand components whose one component changed renders one fragment,
//! not a thousand. A fragment is kept under its page, language and component, with a
//! fingerprint of everything it is rendered from (the component, where its days link to, and
//! the reader's locale); a different fingerprint renders it again.

use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::Arc;

use quick_cache::Weighter;
use quick_cache::sync::Cache;

use crate::domain::lang::Lang;
use crate::services::public::data::ComponentInfo;

/// The bytes the fragments of every page hold at most.
pub const FRAGMENT_BYTES: u64 = 32 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    page: String,
    lang: Lang,
    component: String,
}

#[derive(Clone)]
struct Bytes;

impl Weighter<Key, Arc<(u64, String)>> for Bytes {
    fn weight(&self, key: &Key, value: &Arc<(u64, String)>) -> u64 {
        (value.1.len() + key.page.len() + key.component.len() + 64) as u64
    }
}

/// The site's rendered component fragments.
pub struct Fragments {
    cache: Cache<Key, Arc<(u64, String)>, Bytes>,
    /// Keys the fingerprints with this process's own random seed (foldhash: a fingerprint
    /// hashes a component's 90 days, for every component of the overview on every render;
    /// SipHash made that 5 % of a write on a 1,000-component page).
    state: foldhash::quality::RandomState,
}

impl Default for Fragments {
    fn default() -> Self {
        Self {
            cache: Cache::with_weighter(4096, FRAGMENT_BYTES, Bytes),
            state: foldhash::quality::RandomState::default(),
        }
    }
}

impl Fragments {
    /// The fragment of `component` on `page` in `lang`: the kept one when `context` and the
    /// component are as they were, else made by `render` and kept.
    pub fn get_or_render(
        &self,
        page: &str,
        lang: Lang,
        component: &ComponentInfo,
        context: &impl Hash,
        render: impl FnOnce() -> anyhow::Result<String>,
    ) -> anyhow::Result<String> {
        let mut hasher = self.state.build_hasher();
        context.hash(&mut hasher);
        fingerprint(component, &mut hasher);
        let print = hasher.finish();
        let key = Key {
            page: page.to_owned(),
            lang,
            component: component.id.clone(),
        };
        if let Some(kept) = self.cache.get(&key).filter(|kept| kept.0 == print) {
            return Ok(kept.1.clone());
        }
        let html = render()?;
        self.cache.insert(key, Arc::new((print, html.clone())));
        Ok(html)
    }
}

/// Feeds everything of `c` a fragment shows to `h`.
fn fingerprint(c: &ComponentInfo, h: &mut impl Hasher) {
    (&c.id, &c.group_id, &c.name, &c.description, &c.region).hash(h);
    (c.status, c.position, c.showcase, c.signin).hash(h);
    (c.created_at, c.updated_at).hash(h);
    c.uptime.percent.map(f64::to_bits).hash(h);
    for day in &c.uptime.days {
        (day.date, day.today, day.worst, day.downtime_secs).hash(h);
        day.percent.map(f64::to_bits).hash(h);
    }
    c.incidents_by_day.hash(h);
    if let Some(v) = &c.vendor {
        (&v.name, &v.url, &v.component, &v.problem).hash(h);
        (v.confirmed_at, v.failing_since).hash(h);
    }
}

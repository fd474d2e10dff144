//! Documents rendered on their first read: old incident pages, history pages, the feeds and
//! the longer v2 lists, in every language a page is read in, and the documents held ahead in
//! a page's languages but its default. Rendering them all ahead, on every change, is what made
//! a write cost what the page ever held; they are read rarely.
//!
//! A document is rendered from the page data the snapshot holds (never from the database, so it
//! answers while the database is down) and kept in one cache bounded in bytes for the whole
//! site. Its key names the data it shows (the stamp the refresher gave the document when its
//! data last changed), so a reader still holding an older snapshot can never put an old
//! rendering where a newer one is read; the refresher also drops the entries a change makes
//! old, so they do not wait for eviction.

use std::sync::Arc;
use std::time::Duration;

use quick_cache::Weighter;
use quick_cache::sync::Cache;
use tokio::sync::Semaphore;

use super::Representation;
use super::change::Doc;
use crate::domain::lang::Lang;

/// The bytes the cache holds at most (every coding of every document it keeps).
pub const CACHE_BYTES: u64 = 64 * 1024 * 1024;

/// Renders at once at most (each a blocking thread); more wait, up to [`RENDER_WAIT`].
pub const RENDERS_AT_ONCE: usize = 4;

/// How long a read waits for a render slot before it is answered 503.
pub const RENDER_WAIT: Duration = Duration::from_secs(2);

/// One document of one page in one language, as of one change of its data.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Key {
    pub page: String,
    pub lang: Lang,
    pub doc: Doc,
    pub stamp: u64,
}

#[derive(Debug, Clone)]
struct Bytes;

impl Weighter<Key, Arc<Representation>> for Bytes {
    fn weight(&self, key: &Key, rep: &Arc<Representation>) -> u64 {
        (rep.held_bytes() + key.page.len() + 64) as u64
    }
}

/// The site's cache of documents rendered on demand.
pub struct OnDemand {
    cache: Arc<Cache<Key, Arc<Representation>, Bytes>>,
    slots: Semaphore,
}

impl Default for OnDemand {
    fn default() -> Self {
        Self::with_capacity(CACHE_BYTES)
    }
}

/// Why a document could not be answered from the cache or rendered.
#[derive(Debug)]
pub enum Unrendered {
    /// Every render slot stayed taken for [`RENDER_WAIT`].
    Busy,
    /// The document does not exist (an unknown incident, a history page past the last).
    Missing,
    Failed(anyhow::Error),
}

impl OnDemand {
    /// A cache of at most `bytes`.
    pub fn with_capacity(bytes: u64) -> Self {
        Self {
            cache: Arc::new(Cache::with_weighter(4096, bytes, Bytes)),
            slots: Semaphore::new(RENDERS_AT_ONCE),
        }
    }

    /// The document at `key`, if it is in the cache.
    pub fn get(&self, key: &Key) -> Option<Arc<Representation>> {
        self.cache.get(key)
    }

    /// The document at `key`: from the cache, or rendered by `render` on a blocking thread
    /// (one render for readers asking at once) and kept.
    pub async fn get_or_render<F>(
        &self,
        key: Key,
        render: F,
    ) -> Result<Arc<Representation>, Unrendered>
    where
        F: FnOnce() -> anyhow::Result<Option<Representation>> + Send + 'static,
    {
        if let Some(rep) = self.cache.get(&key) {
            return Ok(rep);
        }
        let _slot = tokio::time::timeout(RENDER_WAIT, self.slots.acquire())
            .await
            .map_err(|_| Unrendered::Busy)?
            .map_err(|_| Unrendered::Busy)?;
        let cache = self.cache.clone();
        tokio::task::spawn_blocking(move || {
            cache.get_or_insert_with(&key, || match render() {
                Ok(Some(rep)) => {
                    metrics::counter!("herald_renders_total", "when" => "on_demand").increment(1);
                    Ok(Arc::new(rep))
                }
                Ok(None) => Err(Unrendered::Missing),
                Err(e) => Err(Unrendered::Failed(e)),
            })
        })
        .await
        .map_err(|e| Unrendered::Failed(e.into()))?
    }

    /// Renders a document this cache does not hold (the home page, held by the snapshot that
    /// lists its lines) on a blocking thread, in a render slot like the cache's own.
    pub async fn render_off_thread<F>(&self, render: F) -> Result<Arc<Representation>, Unrendered>
    where
        F: FnOnce() -> anyhow::Result<Representation> + Send + 'static,
    {
        let _slot = tokio::time::timeout(RENDER_WAIT, self.slots.acquire())
            .await
            .map_err(|_| Unrendered::Busy)?
            .map_err(|_| Unrendered::Busy)?;
        let rep = tokio::task::spawn_blocking(render)
            .await
            .map_err(|e| Unrendered::Failed(e.into()))?
            .map_err(Unrendered::Failed)?;
        metrics::counter!("herald_renders_total", "when" => "on_demand").increment(1);
        Ok(Arc::new(rep))
    }

    /// Drops the entry at `key` (its data changed).
    pub fn drop_entry(&self, key: &Key) {
        self.cache.remove(key);
    }

    /// The bytes the cache holds now.
    pub fn held_bytes(&self) -> u64 {
        self.cache.weight()
    }

    /// How many documents it holds now.
    pub fn len(&self) -> usize {
        self.cache.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.cache.is_empty()
    }
}

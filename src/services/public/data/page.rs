//! The page, its look and its components as [`PageData`](super::PageData) holds them.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde::Serialize;

use crate::domain::{ComponentStatus, UptimeBar};

/// Where a mirrored component's status comes from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VendorInfo {
    /// The vendor's page name.
    pub name: String,
    /// Where people read the vendor's page.
    pub url: Option<String>,
    /// The vendor's component ("Group - Component").
    pub component: String,
    /// When the vendor's page was last read.
    pub confirmed_at: Option<DateTime<Utc>>,
    /// Since when the vendor's page cannot be read (its status is then the last known one).
    pub failing_since: Option<DateTime<Utc>>,
    /// Why the vendor's page, though read, does not serve this component any more.
    pub problem: Option<String>,
}

impl VendorInfo {
    /// Whether the status shown is only the last one known.
    pub fn stale(&self) -> bool {
        self.failing_since.is_some() || self.problem.is_some()
    }
}

/// One of a vendor's incidents, shown on a page that mirrors a component it names.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VendorIncidentInfo {
    pub vendor: String,
    pub vendor_url: Option<String>,
    /// This page's components it concerns.
    pub components: Vec<String>,
    #[serde(flatten)]
    pub incident: crate::domain::vendor::Named,
}

/// The page itself.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PageInfo {
    pub id: String,
    pub slug: String,
    pub name: String,
    pub description: Option<String>,
    /// The page's canonical public address (custom domain, configured URL, or
    /// `{base_url}/status/{slug}`), without a trailing slash.
    pub url: String,
    /// Herald's own base URL (`HERALD_PUBLIC_URL`), without a trailing slash.
    pub base_url: String,
    /// Path prefix of this page's routes on Herald, e.g. `/status/demo`.
    pub path: String,
    #[serde(serialize_with = "serialize_tz")]
    pub time_zone: Tz,
    pub support_email: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// The sites that may frame the page's status embed (none when empty).
    pub embed_origins: Vec<String>,
    /// How its status embed looks, as its owner set it.
    pub embed_look: crate::domain::embed::Look,
    /// Its own look.
    #[serde(skip)]
    pub brand: Brand,
    /// The languages it is read in (the default among them).
    #[serde(skip)]
    pub languages: Vec<crate::domain::lang::Lang>,
    /// The language a reader who asks for none of the others gets, and the v2 JSON's.
    #[serde(skip)]
    pub default_language: crate::domain::lang::Lang,
}

/// A page's own look, ready to render: what its settings say, checked when they were taken.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Brand {
    /// The brand colour (checked: readable on white).
    pub color: Option<crate::domain::brand::BrandColor>,
    pub theme: crate::domain::Theme,
    pub header_links: Vec<crate::domain::brand::HeaderLink>,
    /// The footer: its Markdown rendered as sanitised HTML.
    pub footer: Option<String>,
    pub custom_css: Option<String>,
    pub logo: Option<BrandImage>,
    pub favicon: Option<BrandImage>,
    /// The page's own stylesheet (made by [`Brand::with_stylesheet`]).
    pub stylesheet: Option<Stylesheet>,
}

impl Brand {
    /// The same look with its stylesheet made: the brand colour in both themes, then the
    /// custom CSS; none when it has neither.
    pub fn with_stylesheet(mut self) -> Self {
        let text = crate::domain::brand::stylesheet(self.color, self.custom_css.as_deref());
        self.stylesheet = (!text.is_empty()).then(|| {
            use sha2::Digest;
            let digest = hex::encode(&sha2::Sha256::digest(text.as_bytes())[..8]);
            Stylesheet {
                file_name: format!("brand.{digest}.css"),
                text,
            }
        });
        self
    }
}

/// A page's own stylesheet, served below the page under a name that changes with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Stylesheet {
    pub file_name: String,
    pub text: String,
}

/// An image a page carries, as served.
#[derive(Debug, Clone, PartialEq)]
pub struct BrandImage {
    pub kind: crate::domain::image::ImageKind,
    pub bytes: bytes::Bytes,
    /// SHA-256 of the bytes, hex.
    pub digest: String,
}

impl BrandImage {
    /// Its file name below the page (`logo.3f9a1c2b4d5e6f70.svg`): a new image is a new name,
    /// so it can be cached forever.
    pub fn file_name(&self, stem: &str) -> String {
        image_file_name(stem, self.kind, &self.digest)
    }
}

/// The file name below its page of an image of `kind` whose SHA-256 (hex) is `digest`.
pub fn image_file_name(stem: &str, kind: crate::domain::image::ImageKind, digest: &str) -> String {
    let short = digest.get(..16).unwrap_or(digest);
    format!("{stem}.{short}.{}", kind.extension())
}

fn serialize_tz<S: serde::Serializer>(tz: &Tz, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(tz.name())
}

/// A component group.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupInfo {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    pub position: i32,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Its components, in display order.
    pub component_ids: Vec<String>,
}

/// A component with its uptime bar.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComponentInfo {
    pub id: String,
    pub group_id: Option<String>,
    pub name: String,
    pub description: Option<String>,
    pub position: i32,
    pub region: Option<String>,
    pub status: ComponentStatus,
    pub showcase: bool,
    /// Marked as meaning "signing in" (see the support form).
    pub signin: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// `UPTIME_DAYS` days ending with the day of `as_of` (UTC).
    pub uptime: UptimeBar,
    /// Per day of the bar, the ids of the incidents that affected this component that day.
    pub incidents_by_day: Vec<Vec<String>>,
    /// Set when the component mirrors a vendor's.
    pub vendor: Option<VendorInfo>,
    /// What the bar was computed from (the day, the status history, the incidents felt), so
    /// a later read of the page with the same reuses the bar instead of computing it again.
    #[serde(skip)]
    pub bar_source: u64,
}

//! The overview page: banner, open incidents, maintenance, and components by group with their
//! 90-day uptime bars.

use std::collections::{HashMap, HashSet};

use chrono::NaiveDate;
use serde::Serialize;

use super::Templates;
use super::events::EventCard;
use super::format::{
    Locale, StatusLook, TimeView, day_text_in, in_sentence, percent_text, sentence_case,
};
use super::fragments::Fragments;
use super::frame::{Frame, Links, Section};
use super::history::{day_href, event_day};
use crate::domain::{ComponentStatus, DayUptime, severity, stretches};
use crate::render::assets::Assets;
use crate::services::public::data::ComponentInfo;
use crate::services::public::data::PageData;

/// What `pages/overview` renders.
#[derive(Debug, Serialize)]
pub struct OverviewView {
    pub frame: Frame,
    pub name: String,
    pub description: Option<String>,
    pub banner: StatusLook,
    pub incidents: Vec<EventCard>,
    pub active_maintenances: Vec<EventCard>,
    pub upcoming_maintenances: Vec<EventCard>,
    /// Top-level entries in display order: a group, or one ungrouped component.
    pub sections: Vec<SectionView>,
    pub links: Links,
    pub time_zone: String,
    /// "Can't sign in? Contact support", while something is wrong.
    pub support_prompt: Option<SupportPrompt>,
    /// Vendors' incidents naming components this page mirrors.
    pub vendor_incidents: Vec<VendorIncidentView>,
}

/// One of a vendor's incidents, labelled as the vendor's.
#[derive(Debug, Serialize)]
pub struct VendorIncidentView {
    pub vendor: String,
    pub name: String,
    /// E.g. "Investigating", "In progress".
    pub status: String,
    pub maintenance: bool,
    /// The vendor's own page about it.
    pub url: Option<String>,
    pub started: Option<TimeView>,
    /// This page's components it concerns, e.g. "Payments API, Card processing".
    pub components: String,
}

/// Where a mirrored component's status comes from.
#[derive(Debug, Serialize)]
pub struct VendorView {
    pub name: String,
    pub url: Option<String>,
    /// The vendor's name linked to its page, when it has an address.
    pub link: Option<super::Link>,
    pub component: String,
    /// The status shown is only the last one known.
    pub stale: bool,
    pub as_of: Option<TimeView>,
    pub failing_since: Option<TimeView>,
    pub problem: Option<String>,
}

/// The pointer to the support form shown while an incident is open or a component marked as
/// meaning "signing in" is affected (then `urgent`).
#[derive(Debug, Serialize)]
pub struct SupportPrompt {
    pub href: String,
    pub urgent: bool,
}

impl SupportPrompt {
    fn new(data: &PageData, links: &Links) -> Option<Self> {
        let open = data.open_incidents().next().is_some();
        let urgent = data.signin_affected();
        (open || urgent).then(|| Self {
            href: links.support.clone(),
            urgent,
        })
    }
}

/// A group with its components, or a single ungrouped component (`group` is then `None`).
#[derive(Debug, Serialize)]
pub struct SectionView {
    pub group: Option<GroupView>,
    pub components: Vec<ComponentCell>,
}

/// A component's part of the overview, rendered (`partials/component` of a [`ComponentView`]).
#[derive(Debug, Serialize)]
pub struct ComponentCell {
    pub id: String,
    pub html: String,
    /// Its status, for its group's worst.
    #[serde(skip)]
    pub status: ComponentStatus,
}

/// A component group's heading line.
#[derive(Debug, Serialize)]
pub struct GroupView {
    pub name: String,
    pub description: Option<String>,
    /// The worst status of its components.
    pub status: StatusLook,
    pub count: usize,
    /// Whether it starts expanded: a small group, or one with a component not operational.
    pub open: bool,
}

/// A group of more components than this starts collapsed (its heading still shows its worst
/// status) while all of them are operational, so a page of hundreds stays readable.
pub const COLLAPSED_OVER: usize = 10;

/// One component.
#[derive(Debug, Serialize)]
pub struct ComponentView {
    pub id: String,
    pub name: String,
    /// The name with its region, where a label must tell components apart on its own.
    pub label: String,
    pub description: Option<String>,
    pub region: Option<String>,
    pub status: StatusLook,
    pub uptime: UptimeView,
    pub vendor: Option<VendorView>,
}

/// A component's uptime bar.
#[derive(Debug, Serialize)]
pub struct UptimeView {
    /// E.g. "99.95 % uptime", or "No data".
    pub percent: String,
    pub days: Vec<DayView>,
    pub day_count: usize,
    /// "90 days ago" (what the left end of the bar is).
    pub from: String,
}

/// One day of an uptime bar, or a run of quiet days drawn as one cell.
#[derive(Debug, Serialize)]
pub struct DayView {
    /// Days with incidents link to them in the history; the others are plain cells with a
    /// tooltip.
    pub linked: bool,
    pub href: String,
    /// E.g. "30 Nov 2026: 99.2 % uptime, Partial outage, 1 incident".
    pub label: String,
    /// CSS tone of the day's worst status.
    pub tone: &'static str,
    /// How many days it draws: more than one for a run of quiet days alike.
    #[serde(skip)]
    pub span: usize,
    /// Before the last 30 days (not drawn on narrow screens).
    pub old: bool,
    /// The cell's classes: `day`, its tone, `n{span}` for a run, `old`.
    pub class: String,
}

impl OverviewView {
    /// The overview of `data`, read in `loc`; each component's part rendered by `templates`,
    /// or kept from `fragments` when it shows what it showed.
    pub fn new(
        data: &PageData,
        assets: &Assets,
        loc: Locale,
        templates: &Templates,
        fragments: &Fragments,
    ) -> anyhow::Result<Self> {
        let (path, tz, as_of) = (&data.page.path, data.page.time_zone, data.as_of);
        let card = |e| EventCard::new(e, path, loc, as_of);
        let targets = DayTargets::new(data);
        let links = Links::in_lang(path, loc.in_links());
        let sections = sections(data, &targets, loc, templates, fragments)?;
        Ok(Self {
            frame: Frame::page(None, Section::Overview, data, assets, loc, path),
            name: data.page.name.clone(),
            description: data.page.description.clone(),
            banner: StatusLook::indicator_in(data.status.indicator, loc.lang),
            incidents: data.open_incidents().map(card).collect(),
            active_maintenances: data.active_maintenances().into_iter().map(card).collect(),
            upcoming_maintenances: data.upcoming_maintenances().into_iter().map(card).collect(),
            sections,
            support_prompt: SupportPrompt::new(data, &links),
            links,
            time_zone: tz.name().to_owned(),
            vendor_incidents: data
                .vendor_incidents
                .iter()
                .map(|v| VendorIncidentView {
                    vendor: v.vendor.clone(),
                    name: v.incident.name.clone(),
                    status: sentence_case(&v.incident.status.replace('_', " ")),
                    maintenance: v.incident.maintenance,
                    url: v.incident.url.clone(),
                    started: v.incident.started_at.map(|t| TimeView::local(t, loc)),
                    components: v.components.join(", "),
                })
                .collect(),
        })
    }
}

/// Groups and ungrouped components in display order; a group appears where its first component
/// does, and empty groups are left out.
fn sections(
    data: &PageData,
    targets: &DayTargets,
    loc: Locale,
    templates: &Templates,
    fragments: &Fragments,
) -> anyhow::Result<Vec<SectionView>> {
    let frame = (
        &data.page.path,
        data.page.time_zone.name(),
        (loc.lang, loc.default, loc.several),
        data.as_of.date_naive(),
    );
    let mut sections: Vec<SectionView> = Vec::new();
    let mut seen_groups: HashMap<&str, usize> = HashMap::new();
    for component in &data.components {
        // Where its days link to depends on the other incidents too.
        let links: Vec<NaiveDate> = component
            .uptime
            .days
            .iter()
            .zip(&component.incidents_by_day)
            .filter(|(_, ids)| !ids.is_empty())
            .map(|(day, ids)| targets.target(day.date, ids))
            .collect();
        let html =
            fragments.get_or_render(&data.page.id, loc.lang, component, &(frame, links), || {
                let view = component_view(component, data, targets, loc);
                templates.render_in(loc.lang, "partials/component", &view)
            })?;
        let view = ComponentCell {
            id: component.id.clone(),
            html,
            status: component.status,
        };
        let group = component
            .group_id
            .as_deref()
            .and_then(|id| data.groups.iter().find(|g| g.id == id));
        match group {
            None => sections.push(SectionView {
                group: None,
                components: vec![view],
            }),
            Some(group) => match seen_groups.get(group.id.as_str()) {
                Some(&i) => sections[i].components.push(view),
                None => {
                    seen_groups.insert(&group.id, sections.len());
                    sections.push(SectionView {
                        group: Some(GroupView {
                            name: group.name.clone(),
                            description: group.description.clone(),
                            status: StatusLook::component_in(component.status, loc.lang),
                            count: 0,
                            open: true,
                        }),
                        components: vec![view],
                    });
                }
            },
        }
    }
    for section in &mut sections {
        if let Some(group) = &mut section.group {
            group.count = section.components.len();
            let worst = section
                .components
                .iter()
                .map(|c| c.status)
                .max_by_key(|s| severity(*s));
            if let Some(worst) = worst {
                group.status = StatusLook::component_in(worst, loc.lang);
            }
            let calm = worst.is_none_or(|w| w == ComponentStatus::Operational);
            group.open = group.count <= COLLAPSED_OVER || !calm;
        }
    }
    Ok(sections)
}

fn component_view(
    c: &ComponentInfo,
    data: &PageData,
    targets: &DayTargets,
    loc: Locale,
) -> ComponentView {
    let all = &c.uptime.days;
    let ids = |i: usize| c.incidents_by_day.get(i).map(Vec::as_slice).unwrap_or(&[]);
    let narrow_from = all.len().saturating_sub(NARROW_DAYS);
    let days: Vec<DayView> = stretches(all, |i| !ids(i).is_empty())
        .into_iter()
        .map(|run| {
            let mut view = day_view(&all[run.start], ids(run.start), data, targets, loc);
            if run.len() > 1 {
                view.label = run_label(&all[run.start], &all[run.end - 1], loc);
                view.span = run.len();
            }
            view.old = run.end <= narrow_from;
            view.class = cell_class(&view, run.end.saturating_sub(run.start.max(narrow_from)));
            view
        })
        .collect();
    ComponentView {
        id: c.id.clone(),
        name: c.name.clone(),
        label: crate::domain::component_label(&c.name, c.region.as_deref()),
        description: c.description.clone(),
        region: c.region.clone(),
        status: StatusLook::component_in(c.status, loc.lang),
        vendor: c.vendor.as_ref().map(|v| VendorView {
            name: v.name.clone(),
            url: v.url.clone(),
            link: v.url.as_ref().map(|href| super::Link {
                href: href.clone(),
                label: v.name.clone(),
            }),
            component: v.component.clone(),
            stale: v.stale(),
            as_of: v.confirmed_at.map(|t| TimeView::local(t, loc)),
            failing_since: v.failing_since.map(|t| TimeView::local(t, loc)),
            problem: v.problem.clone(),
        }),
        uptime: UptimeView {
            percent: match c.uptime.percent {
                Some(p) => {
                    loc.text_with("uptime-percent", &[("percent", percent_text(p, 2).into())])
                }
                None => loc.text("no-data"),
            },
            day_count: all.len(),
            from: loc.text_with("days-ago", &[("days", all.len().into())]),
            days,
        },
    }
}

/// The classes of a bar's cell (a plain cell is the list item; a linked day's item holds
/// the link, which carries `day` and the tone): a run of `n` days is `n{n}`, and one only
/// `w` of whose days narrow screens show (the last 30 days) also `w{w}`; a cell none of
/// whose days they show is `old`.
fn cell_class(view: &DayView, narrow: usize) -> String {
    let mut class = format!("day s-{}", view.tone);
    if view.span > 1 {
        class.push_str(&format!(" n{}", view.span));
    }
    if view.old {
        class.push_str(" old");
    } else if narrow < view.span {
        class.push_str(&format!(" w{narrow}"));
    }
    class
}

/// Days narrow screens show of a bar (as Statuspage does).
const NARROW_DAYS: usize = 30;

/// The tooltip of a run of quiet days: its dates, and what each of its days says (full
/// uptime, or no data).
fn run_label(first: &DayUptime, last: &DayUptime, loc: Locale) -> String {
    let range = loc.text_with(
        "day-range",
        &[
            ("from", day_text_in(first.date, loc.lang).into()),
            ("to", day_text_in(last.date, loc.lang).into()),
        ],
    );
    match first.percent {
        // Full uptime says it was operational throughout.
        Some(p) => loc.text_with(
            "day-uptime",
            &[
                ("date", range.into()),
                ("percent", percent_text(p, 2).into()),
            ],
        ),
        None => day_words(first, range, loc),
    }
}

/// What a day (or a run of days alike) says after its date.
fn day_words(day: &DayUptime, date: String, loc: Locale) -> String {
    let date = || date.clone().into();
    let percent = |p: f64| percent_text(p, 2).into();
    let worst = |w| in_sentence(&StatusLook::component_in(w, loc.lang).label, loc.lang).into();
    match (day.percent, day.worst) {
        (Some(p), Some(w)) => loc.text_with(
            "day-uptime-worst",
            &[
                ("date", date()),
                ("percent", percent(p)),
                ("worst", worst(w)),
            ],
        ),
        (Some(p), None) => {
            loc.text_with("day-uptime", &[("date", date()), ("percent", percent(p))])
        }
        (None, Some(w)) if day.today => {
            loc.text_with("day-today-worst", &[("date", date()), ("worst", worst(w))])
        }
        (None, _) => loc.text_with("day-no-data", &[("date", date())]),
    }
}

fn day_view(
    day: &DayUptime,
    incident_ids: &[String],
    data: &PageData,
    targets: &DayTargets,
    loc: Locale,
) -> DayView {
    let mut label = day_words(day, day_text_in(day.date, loc.lang), loc);
    if !incident_ids.is_empty() {
        let count = incident_ids.len().into();
        label.push_str(&loc.text_with("day-incidents", &[("count", count)]));
    }
    let tone = match (day.percent, day.worst) {
        (Some(_), Some(worst)) => StatusLook::component_tone(worst),
        (None, Some(worst)) if day.today => StatusLook::component_tone(worst),
        (Some(_), None) => "ok",
        (None, _) => StatusLook::NO_DATA_TONE,
    };
    let linked = !incident_ids.is_empty();
    DayView {
        linked,
        href: if linked {
            let target = targets.target(day.date, incident_ids);
            loc.href(&day_href(&data.page.path, data.as_of, target))
        } else {
            String::new()
        },
        label,
        tone,
        span: 1,
        old: false,
        class: String::new(),
    }
}

/// Where a day of a bar links to in the history: the day itself when something started that
/// day, otherwise the day an incident still under way that day started.
struct DayTargets {
    started_days: HashSet<NaiveDate>,
    day_of: HashMap<String, NaiveDate>,
}

impl DayTargets {
    fn new(data: &PageData) -> Self {
        let events = data.incidents.iter().chain(&data.maintenances);
        let day_of: HashMap<String, NaiveDate> =
            events.map(|e| (e.id.clone(), event_day(e))).collect();
        Self {
            started_days: day_of.values().copied().collect(),
            day_of,
        }
    }

    fn target(&self, day: NaiveDate, incident_ids: &[String]) -> NaiveDate {
        if self.started_days.contains(&day) {
            return day;
        }
        incident_ids
            .iter()
            .find_map(|id| self.day_of.get(id).copied())
            .unwrap_or(day)
    }
}

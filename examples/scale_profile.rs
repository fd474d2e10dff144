//! Where the refresher's time goes on a large page, step by step: seeds one page through
//! Herald's services (components in groups, a year of resolved incidents of five updates each,
//! back-dated as a year of real use leaves them, in as many languages as asked) into a new
//! SQLite file, then reads and renders it `rounds` times and prints the median of each step.
//!
//!   cargo run --release --example scale_profile -- COMPONENTS GROUPS INCIDENTS LANGUAGES [ROUNDS]
//!   cargo run --release --example scale_profile -- 1000 20 0 1
//!   cargo run --release --example scale_profile -- 20 1 1000 1
//!
//! It measures the library's functions in one process, without HTTP; `bench/scale.sh` measures
//! the server. With `OVERVIEW_OUT=FILE` it writes the overview there; with `DOCS_OUT=DIR`,
//! every document held ahead, uncompressed.

// A measuring tool: it prints its figures, and stops on what it cannot measure.
#![allow(clippy::print_stdout, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use herald::config::DatabaseUrl;
use herald::db::connection::establish;
use herald::db::write_tx;
use herald::render::site::Renderer;
use herald::services;
use serde_json::json;

fn main() -> anyhow::Result<()> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    let [components, groups, incidents, languages] = args[..4] else {
        anyhow::bail!("usage: scale_profile COMPONENTS GROUPS INCIDENTS LANGUAGES [ROUNDS]");
    };
    let rounds = args.get(4).copied().unwrap_or(5);
    let dir = tempfile::tempdir()?;
    let url = DatabaseUrl::parse(&format!("sqlite://{}/scale.db", dir.path().display()))?;
    let mut conn = establish(&url)?;
    herald::db::migrations::run_pending(&mut conn)?;
    let started = Instant::now();
    let page_id = seed(&mut conn, components, groups.max(1), incidents, languages)?;
    eprintln!("seeded in {:.1} s", started.elapsed().as_secs_f64());

    let renderer = Renderer::load()?;
    let read = |conn: &mut herald::db::DbConn,
                before: Option<&herald::services::public::data::PageData>|
     -> anyhow::Result<_> {
        let page = services::pages::get_page(conn, &page_id)?;
        let access = Arc::new(services::access::load(conn, &page)?);
        let data = services::public::reload_page_data(
            conn,
            &page_id,
            Utc::now(),
            "http://127.0.0.1:8080",
            before,
        )?;
        Ok((data, access))
    };
    // The first render: everything held ahead.
    let (mut load, mut render) = (Vec::new(), Vec::new());
    let mut snapshot = None;
    for _ in 0..rounds {
        let t = Instant::now();
        let (data, access) = read(&mut conn, None)?;
        load.push(t.elapsed());
        let t = Instant::now();
        snapshot = Some(renderer.render_page(data, access, None, 1)?.0);
        render.push(t.elapsed());
    }
    let Some(mut snapshot) = snapshot else {
        anyhow::bail!("no rounds");
    };
    println!(
        "components={components} groups={groups} incidents={incidents} languages={languages}: \
         first render: load {:.1} ms, render {:.1} ms, held {:.2} MB",
        median_ms(&mut load),
        median_ms(&mut render),
        snapshot.held_bytes() as f64 / 1e6
    );
    // A write: one component's status changes, the page is read and what it touches rendered.
    let component = herald::domain::ComponentId::from(snapshot.data.components[0].id.clone());
    let (mut load, mut render, mut count) = (Vec::new(), Vec::new(), 0);
    for round in 0..rounds {
        let status = match round % 2 {
            0 => herald::domain::ComponentStatus::MajorOutage,
            _ => herald::domain::ComponentStatus::Operational,
        };
        services::components::set_component_status(&mut conn, &component, status, None)
            .map_err(|e| anyhow::anyhow!(e.to_string()))?;
        let t = Instant::now();
        let (data, access) = read(&mut conn, Some(&snapshot.data))?;
        load.push(t.elapsed());
        let t = Instant::now();
        snapshot = renderer
            .render_page(data, access, Some(&snapshot), round as u64 + 2)?
            .0;
        render.push(t.elapsed());
        count = snapshot.rendered.len();
    }
    println!(
        "  a component's status: load {:.1} ms, render {:.1} ms ({count} documents rendered)",
        median_ms(&mut load),
        median_ms(&mut render),
    );
    // A write: an update to an open incident (opened first, unmeasured).
    let opened = services::incidents::open_incident(
        &mut conn,
        &page_id,
        &from(json!({"name": "Slow dashboard loads", "impact": "minor",
                     "body": "Some customers see slow dashboard loads.", "notify": false}))?,
        None,
        Utc::now(),
    )
    .map_err(|e| anyhow::anyhow!(e.to_string()))?
    .incident;
    let (data, access) = read(&mut conn, Some(&snapshot.data))?;
    snapshot = renderer.render_page(data, access, Some(&snapshot), 1000)?.0;
    let (mut load, mut render, mut count) = (Vec::new(), Vec::new(), 0);
    let mut per_doc: BTreeMap<String, Vec<Duration>> = BTreeMap::new();
    for round in 0..rounds {
        let body = format!("Update {round}: still investigating.");
        services::incidents::post_update(
            &mut conn,
            &opened.id,
            &from(json!({"body": body, "notify": false}))?,
            None,
            Utc::now(),
        )
        .map_err(|e| anyhow::anyhow!(e.to_string()))?;
        let t = Instant::now();
        let (data, access) = read(&mut conn, Some(&snapshot.data))?;
        load.push(t.elapsed());
        let t = Instant::now();
        let next = renderer
            .render_page(data, access, Some(&snapshot), round as u64 + 1001)?
            .0;
        render.push(t.elapsed());
        count = next.rendered.len();
        for (lang, doc) in &next.rendered {
            let t = Instant::now();
            let _ = renderer.render_doc(&next.data, *lang, doc, &mut None)?;
            per_doc.entry(doc.key()).or_default().push(t.elapsed());
        }
        snapshot = next;
    }
    println!(
        "  an incident's update: load {:.1} ms, render {:.1} ms ({count} documents rendered)",
        median_ms(&mut load),
        median_ms(&mut render),
    );
    for (key, times) in &mut per_doc {
        let name = if key.is_empty() { "overview" } else { key };
        println!("    {name}: {:.1} ms", median_ms(times));
    }
    // Every document held ahead, as served without compression, for bench/compression.sh.
    if let Ok(dir) = std::env::var("DOCS_OUT") {
        for (key, rep) in &snapshot.reps {
            let name = if key.is_empty() {
                "overview.html"
            } else {
                key.as_str()
            };
            let path = std::path::Path::new(&dir).join(name.replace('/', "_"));
            std::fs::write(path, &rep.identity)?;
        }
    }
    // The parts of the costliest document: rendering the overview, then compressing it.
    let lang = snapshot.data.page.default_language;
    let overview = herald::render::change::Doc::Overview;
    let (mut render, mut compress) = (Vec::new(), Vec::new());
    let mut size = 0;
    for _ in 0..rounds {
        let t = Instant::now();
        let rep = renderer.render_doc(&snapshot.data, lang, &overview, &mut None)?;
        let body = rep.map(|r| r.identity).unwrap_or_default();
        render.push(t.elapsed());
        size = body.len();
        if let Ok(path) = std::env::var("OVERVIEW_OUT") {
            std::fs::write(path, &body)?;
        }
        let t = Instant::now();
        let _ = herald::render::Representation::new(
            "text/html",
            body,
            herald::render::CachePolicy::PUBLIC,
        );
        compress.push(t.elapsed());
    }
    println!(
        "  the overview ({:.0} KB): rendered and compressed {:.1} ms, of which compressing {:.1} ms",
        size as f64 / 1024.0,
        median_ms(&mut render),
        median_ms(&mut compress),
    );
    Ok(())
}

fn median_ms(times: &mut [Duration]) -> f64 {
    times.sort();
    times[times.len() / 2].as_secs_f64() * 1000.0
}

fn from<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> anyhow::Result<T> {
    Ok(serde_json::from_value(value)?)
}

fn seed(
    conn: &mut herald::db::DbConn,
    components: usize,
    groups: usize,
    incidents: usize,
    languages: usize,
) -> anyhow::Result<herald::domain::PageId> {
    let err = |e: herald::error::AppError| anyhow::anyhow!(e.to_string());
    let now = Utc::now();
    let langs: Vec<&str> = ["en", "de", "fr", "es", "pt", "ja"]
        .into_iter()
        .take(languages.max(1))
        .collect();
    let page = services::pages::create_page(
        conn,
        &from(json!({"slug": "big", "name": "Big", "time_zone": "Europe/London"}))?,
    )
    .map_err(err)?;
    services::pages::update_page(conn, &page.id, &from(json!({"languages": langs}))?)
        .map_err(err)?;
    let year_ago = (now - chrono::Duration::days(366)).naive_utc();
    let mut ids = Vec::new();
    write_tx(conn, |c| {
        for g in 0..groups {
            let group = services::components::create_group(
                c,
                &page.id,
                &from(json!({"name": format!("Region {g}")}))?,
            )?;
            for i in (g..components).step_by(groups) {
                let input = from(json!({
                    "name": format!("Location {i}"),
                    "group_id": group.id.to_string(),
                }))?;
                let component = services::components::create_component(c, &page.id, &input)?;
                herald::db::models::seed::backdate_component(c, &component.id, year_ago)?;
                ids.push(component.id);
            }
        }
        Ok::<_, herald::error::AppError>(())
    })
    .map_err(err)?;
    let steps = ["identified", "monitoring", "monitoring", "resolved"];
    for k in 0..incidents {
        let start = now - chrono::Duration::minutes(((k + 1) * 525) as i64);
        let component = &ids[k % ids.len()];
        let mut open = json!({
            "name": format!("Elevated errors {k}"),
            "body": format!("We are investigating elevated error rates (**{k}**)."),
            "components": {component.to_string(): "partial_outage"},
            "notify": false,
        });
        if langs.len() > 1 {
            let tr: BTreeMap<&str, serde_json::Value> = langs[1..]
                .iter()
                .map(|l| {
                    (
                        *l,
                        json!({"name": format!("{l} {k}"), "body": format!("{l} body")}),
                    )
                })
                .collect();
            open["translations"] = json!(tr);
        }
        let incident =
            services::incidents::open_incident(conn, &page.id, &from(open)?, None, start)
                .map_err(err)?
                .incident;
        for (n, status) in steps.iter().enumerate() {
            let mut update = json!({
                "status": status,
                "body": format!("Step {n} of incident {k}: a [link](https://example.com/{k}) and some *words*."),
                "notify": false,
            });
            if *status == "resolved" {
                update["components"] = json!({component.to_string(): "operational"});
            }
            services::incidents::post_update(
                conn,
                &incident.id,
                &from(update)?,
                None,
                start + chrono::Duration::minutes(20 * (n as i64 + 1)),
            )
            .map_err(err)?;
        }
    }
    Ok(page.id)
}

//! What holds for every document: escaping, determinism, accessibility, no inline code.

use super::*;

#[test]
fn a_hostile_incident_name_renders_inert_everywhere() {
    let evil = "<script>alert(1)</script>";
    let mut data = fixture::page();
    data.page.name = format!("Acme {evil}");
    data.page.description = Some(evil.to_owned());
    data.components[0].name = evil.to_owned();
    data.components[2].region = Some(evil.to_owned());
    data.groups[0].name = evil.to_owned();
    let mut incident = open_incident("i-evil", evil, as_of() + Duration::hours(1));
    incident.user_impact = Some(evil.to_owned());
    incident.affected_components[0].name = evil.to_owned();
    incident.updates[0].body_html = crate::domain::markdown::to_safe_html(evil);
    data.incidents.push(incident);
    data.maintenances
        .push(maintenance("m-evil", evil, as_of() + Duration::days(1)));
    let reps = render(&data);
    let home = render_home(&[&data], &Templates::load().unwrap(), &Assets::load()).unwrap();
    let mut bodies: Vec<_> = reps.values().map(|r| body(r)).collect();
    bodies.push(body(&home));
    for html in &bodies {
        assert!(!html.contains("<script>alert"), "{html}");
        assert!(!html.contains("alert(1)</script>"));
    }
    assert!(page(&reps, "").contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(
        page(&reps, "incidents/i-evil")
            .contains("<h1 class=\"page-title\">&lt;script&gt;alert(1)&lt;/script&gt;</h1>")
    );
    assert!(body(&home).contains("Acme &lt;script&gt;alert(1)&lt;/script&gt;"));
}

#[test]
fn the_same_data_renders_to_the_same_bytes() {
    let mut data = resolved_and_open();
    data.maintenances
        .push(maintenance("m-db", "Upgrade", as_of() + Duration::days(2)));
    let one = render(&data);
    let two = render(&data.clone());
    assert_eq!(one.len(), two.len());
    for (key, rep) in &one {
        assert_eq!(rep.identity, two[key].identity, "{key}");
        assert_eq!(rep.tag, two[key].tag, "{key}");
    }
}

#[test]
fn pages_are_accessible_documents_without_inline_script_or_style() {
    let data = resolved_and_open();
    let templates = Templates::load().unwrap();
    let assets = Assets::load();
    let mut bodies: Vec<_> = render(&data).values().map(|r| body(r)).collect();
    bodies.push(body(&render_home(&[&data], &templates, &assets).unwrap()));
    bodies.push(body(&render_home(&[], &templates, &assets).unwrap()));
    bodies.push(body(&render_not_found(&templates, &assets).unwrap()));
    bodies.push(body(&render_unavailable(&templates, &assets).unwrap()));
    let js = assets.url("app.js");
    for html in &bodies {
        assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
        assert_eq!(html.matches("<h1").count(), 1, "{html}");
        for landmark in [
            "<header",
            "<main id=\"main\"",
            "<footer",
            "<a class=\"skip-link\" href=\"#main\">",
        ] {
            assert!(html.contains(landmark), "{landmark}");
        }
        assert_eq!(html.matches("<script").count(), 1);
        assert!(html.contains(&format!("<script src=\"{js}\" defer></script>")));
        assert!(!html.contains(" style="), "no inline style");
        assert!(!html.contains(" onclick=") && !html.contains(" onload="));
        assert!(
            !html.contains("src=\"http") && !html.contains("href=\"http://"),
            "no external resources"
        );
        assert!(html.contains(&format!(
            "<link rel=\"stylesheet\" href=\"{}\">",
            assets.url("app.css")
        )));
    }
}

#[test]
fn headings_never_skip_a_level() {
    let data = resolved_and_open();
    for (key, rep) in render(&data) {
        let html = body(&rep);
        let mut last = 0;
        for (i, _) in html.match_indices("<h") {
            let Some(level) = html[i + 2..].chars().next().and_then(|c| c.to_digit(10)) else {
                continue;
            };
            assert!(level <= last + 1, "{key}: h{level} after h{last}");
            last = level;
        }
    }
}

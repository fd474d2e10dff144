//! The subscriber export cannot run in a spreadsheet: every cell that starts as a formula
//! would (`=`, `+`, `-`, `@`, a tab or a carriage return) starts with `'` instead, in the
//! export and in the list's CSV form.

use herald::domain::Role;
use herald::workers::Registry;
use serde_json::json;

use crate::helpers::{TestApp, TestDb};

on_both_backends!(formula_cells_of_the_subscriber_export_start_with_a_quote);

/// The cells of a CSV line without quoted cells (none of these holds a comma or a quote).
fn cells(line: &str) -> Vec<&str> {
    line.split(',').collect()
}

/// Asserts no cell of `csv` starts as a formula, and answers its rows by column name.
fn defused(what: &str, csv: &str) -> Vec<std::collections::HashMap<String, String>> {
    let mut lines = csv.split("\r\n").filter(|l| !l.is_empty());
    let head: Vec<String> = cells(lines.next().unwrap())
        .into_iter()
        .map(str::to_owned)
        .collect();
    let mut rows = Vec::new();
    for line in lines {
        assert!(
            !line.contains('"'),
            "{what}: no quoted cell expected: {line}"
        );
        let row = cells(line);
        assert_eq!(row.len(), head.len(), "{what}: {line}");
        for cell in &row {
            assert!(
                !cell.starts_with(['=', '+', '-', '@', '\t', '\r']),
                "{what}: {cell:?} starts as a formula"
            );
        }
        rows.push(
            head.iter()
                .cloned()
                .zip(row.into_iter().map(str::to_owned))
                .collect(),
        );
    }
    rows
}

async fn formula_cells_of_the_subscriber_export_start_with_a_quote(db: TestDb) {
    // The webhook's receiver is on loopback (it is never called here).
    let extra = [("HERALD_ALLOW_PRIVATE_WEBHOOKS", "true")];
    let app = TestApp::spawn_with(db, &extra, Registry::standard()).await;
    let token = app.token(Role::Owner).await;
    app.page("acme").through_api(&token).create().await;
    let emails = [
        "=1+2@example.com",
        "+sum@example.com",
        "-neg@example.com",
        "plain@example.com",
    ];
    for email in emails {
        app.subscriber("acme").email(email).add(&token).await;
    }
    app.subscriber("acme")
        .webhook("http://127.0.0.1:9/hook")
        .with(json!({"contact_email": "-ops@example.com"}))
        .add(&token)
        .await;

    let res = app
        .client
        .get(format!(
            "{}/api/v1/pages/acme/subscribers/export",
            app.address
        ))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let export = res.text().await.unwrap();
    let (status, listed) = app
        .api(&token)
        .get("/pages/acme/subscribers?format=csv")
        .await;
    assert_eq!(status, 200);
    let listed = listed.as_str().unwrap().to_owned();

    for (what, csv) in [("export", &export), ("list as CSV", &listed)] {
        let rows = defused(what, csv);
        assert_eq!(rows.len(), emails.len() + 1, "{what}: {csv}");
        let column = |name: &str| -> Vec<String> { rows.iter().map(|r| r[name].clone()).collect() };
        let shown = column("email");
        for email in emails {
            let expected = match email.starts_with(['=', '+', '-', '@']) {
                true => format!("'{}", email.to_lowercase()),
                false => email.to_lowercase(),
            };
            assert!(
                shown.iter().any(|s| s.to_lowercase() == expected),
                "{what}: {expected} in {shown:?}"
            );
        }
        assert!(
            column("contact_email").contains(&"'-ops@example.com".to_owned()),
            "{what}: {csv}"
        );
    }
}

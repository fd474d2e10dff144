//! Tests of reading subscriber lists: both layouts, Herald's own export, and refusals.

use super::*;

fn entries(text: &str) -> Vec<(u64, Entry)> {
    read(text.as_bytes())
        .unwrap()
        .into_iter()
        .map(|r| (r.line, r.entry))
        .collect()
}

fn mail(address: &str, components: &[&str]) -> Entry {
    Entry::Email {
        address: address.to_owned(),
        components: components.iter().map(|c| (*c).to_owned()).collect(),
        unconfirmed: false,
    }
}

#[test]
fn statuspage_template_rows_are_read_by_their_type() {
    let got = entries(
        "email,ann@example.com,yes,\"abc123def456;API\"\n\
         \n\
         webhook,https://hooks.example.com/x,ops@example.com,API\n\
         webhook,https://hooks.example.com/y,API|Web\n\
         sms,5551234567,US\n",
    );
    assert_eq!(
        got[0],
        (1, mail("ann@example.com", &["abc123def456", "API"]))
    );
    assert_eq!(
        got[1],
        (
            3,
            Entry::Webhook {
                url: "https://hooks.example.com/x".into(),
                contact_email: Some("ops@example.com".into()),
                components: vec!["API".into()],
            }
        )
    );
    assert_eq!(
        got[2].1,
        Entry::Webhook {
            url: "https://hooks.example.com/y".into(),
            contact_email: None,
            components: vec!["API".into(), "Web".into()],
        }
    );
    let Entry::Refused { shown, reason } = &got[3].1 else {
        panic!("{:?}", got[3]);
    };
    assert_eq!(shown, "5551234567");
    assert!(
        reason.starts_with("SMS subscribers are not carried over"),
        "{reason}"
    );
}

#[test]
fn a_headed_export_is_read_by_column_names_in_any_order() {
    let got = entries(
        "\u{feff}Components,Email Address,Mode,Endpoint,Created At\r\n\
         ,bob@example.com,email,,2024-01-01\r\n\
         \"API, Web\",,webhook,https://h.example.com/,2024-01-02\r\n\
         ,carol@example.com,,,\r\n\
         ,,,,\r\n\
         ,dan@example.com,fax,,\r\n",
    );
    assert_eq!(got[0], (2, mail("bob@example.com", &[])));
    assert_eq!(
        got[1].1,
        Entry::Webhook {
            url: "https://h.example.com/".into(),
            contact_email: None,
            components: vec!["API".into(), "Web".into()],
        }
    );
    assert_eq!(got[2], (4, mail("carol@example.com", &[])));
    assert_eq!(got.len(), 4, "{got:?}");
    assert!(matches!(&got[3].1, Entry::Refused { reason, .. } if reason.contains("not email")));
}

#[test]
fn herald_s_own_export_reads_back() {
    let got = entries(
        "id,type,email,url,contact_email,components,component_updates,state,confirmed_at,created_at\r\n\
         s1,webhook,,https://h.example.com/,ops@example.com,c1 c2,true,confirmed,,\r\n",
    );
    assert_eq!(
        got[0].1,
        Entry::Webhook {
            url: "https://h.example.com/".into(),
            contact_email: Some("ops@example.com".into()),
            components: vec!["c1 c2".into()],
        }
    );
}

#[test]
fn herald_s_export_keeps_pending_addresses_pending_and_loses_its_formula_guards() {
    let got = entries(
        "id,type,email,url,contact_email,components,component_updates,state,confirmed_at,created_at\r\n\
         s1,email,'=1+2@example.com,,,,false,confirmed,,\r\n\
         s2,email,pat@example.com,,,,false,pending,,\r\n\
         s3,email,'-lee@example.com,,,,false,Pending,,\r\n\
         s4,email,gone@example.com,,,,false,unsubscribed,,\r\n\
         s5,email,'quoted@example.com,,,,false,confirmed,,\r\n",
    );
    assert_eq!(got[0].1, mail("=1+2@example.com", &[]));
    let pending = |address: &str| Entry::Email {
        address: address.to_owned(),
        components: vec![],
        unconfirmed: true,
    };
    assert_eq!(got[1].1, pending("pat@example.com"));
    assert_eq!(got[2].1, pending("-lee@example.com"));
    let Entry::Refused { shown, reason } = &got[3].1 else {
        panic!("{:?}", got[3]);
    };
    assert_eq!(shown, "gone@example.com");
    assert!(reason.starts_with("unsubscribed where the file comes from"));
    // Only a guard before a formula's first character is taken off.
    assert_eq!(got[4].1, mail("'quoted@example.com", &[]));
}

#[test]
fn a_file_that_cannot_be_read_is_refused_whole() {
    assert!(read(b"\xff\xfe e\x00m").unwrap_err().contains("not UTF-8"));
    assert!(read(b"\n\n").unwrap_err().contains("no subscribers"));
    let err = read(b"name,phone\nAnn,555\n").unwrap_err();
    assert!(err.contains("neither a subscriber"), "{err}");
}

#[test]
fn a_header_may_start_with_a_column_called_email() {
    let got = entries("Email,Components\nann@example.com,API\n");
    assert_eq!(got, [(2, mail("ann@example.com", &["API"]))]);
    let got = entries("email\nann@example.com\nbob@example.com\n");
    assert_eq!(got[1], (3, mail("bob@example.com", &[])));
}

#[test]
fn rows_without_an_address_are_refused_with_the_reason() {
    let got = entries("email,\nwebhook,,ops@example.com\nfax,123\n");
    let reasons: Vec<String> = got
        .into_iter()
        .map(|(_, e)| match e {
            Entry::Refused { reason, .. } => reason,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        reasons,
        [
            "the row has no email address",
            "the row has no endpoint",
            "the row does not start with email, webhook, sms or slack",
        ]
    );
}

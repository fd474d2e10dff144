use super::*;

fn from() -> Mailbox {
    "Herald <herald@status.example.com>".parse().unwrap()
}

fn message() -> EmailMessage {
    EmailMessage {
        to: "jo@example.com".into(),
        subject: "[Acme] API errors: investigating".into(),
        text: "We are investigating.".into(),
        html: "<p>We are investigating.</p>".into(),
        message_id: "inc-1.d2@status.example.com".into(),
        in_reply_to: Some("inc-1.d1@status.example.com".into()),
        references: vec!["inc-1.d1@status.example.com".into()],
        list_id: "Acme status <acme.status.example.com>".into(),
        unsubscribe_url: "https://status.example.com/unsubscribe?t=abc".into(),
        manage_url: Some("https://status.example.com/manage?t=abc".into()),
        inline: None,
    }
}

fn render(msg: &EmailMessage) -> Result<String, MessageError> {
    build_message(&from(), msg).map(|m| String::from_utf8(m.formatted()).unwrap())
}

/// The header block, unfolded: one entry per header.
fn headers(raw: &str) -> Vec<String> {
    let head = raw.split("\r\n\r\n").next().unwrap();
    let mut out: Vec<String> = Vec::new();
    for line in head.split("\r\n") {
        if line.starts_with([' ', '\t']) {
            out.last_mut().unwrap().push_str(line);
        } else {
            out.push(line.to_owned());
        }
    }
    out
}

#[test]
fn the_message_carries_threading_and_list_headers() {
    let raw = render(&message()).unwrap();
    let h = headers(&raw);
    for expected in [
        "Message-ID: <inc-1.d2@status.example.com>",
        "In-Reply-To: <inc-1.d1@status.example.com>",
        "References: <inc-1.d1@status.example.com>",
        "List-Id: Acme status <acme.status.example.com>",
        "List-Unsubscribe: <https://status.example.com/unsubscribe?t=abc>",
        "List-Unsubscribe-Post: List-Unsubscribe=One-Click",
        "List-Help: <https://status.example.com/manage?t=abc>",
        "To: jo@example.com",
    ] {
        assert!(
            h.iter().any(|l| l == expected),
            "missing {expected} in {h:#?}"
        );
    }
    assert!(raw.contains("multipart/alternative"));
    assert!(raw.contains("text/plain") && raw.contains("text/html"));
}

#[test]
fn line_breaks_in_the_subject_cannot_add_a_header() {
    let mut msg = message();
    msg.subject = "Down\r\nBcc: victim@example.com\nX-Evil: 1".into();
    let raw = render(&msg).unwrap();
    let h = headers(&raw);
    assert!(!h.iter().any(|l| l.starts_with("Bcc:")), "{h:#?}");
    assert!(!h.iter().any(|l| l.starts_with("X-Evil:")), "{h:#?}");
    let subject = h.iter().find(|l| l.starts_with("Subject:")).unwrap();
    assert!(
        subject.contains("Bcc"),
        "the text stays in the subject: {subject}"
    );
}

#[test]
fn non_ascii_subjects_are_encoded_and_stay_one_header() {
    let mut msg = message();
    msg.subject = "Störung — API\r\nBcc: victim@example.com".into();
    let raw = render(&msg).unwrap();
    let h = headers(&raw);
    assert!(!h.iter().any(|l| l.starts_with("Bcc:")), "{h:#?}");
    let subject = h.iter().find(|l| l.starts_with("Subject:")).unwrap();
    assert!(subject.contains("=?utf-8?"), "{subject}");
    assert!(raw.is_ascii());
}

#[test]
fn line_breaks_in_ids_and_addresses_are_refused() {
    let cases: [fn(&mut EmailMessage); 7] = [
        |m| m.message_id = "a@b\r\nBcc: x@y".into(),
        |m| m.in_reply_to = Some("a@b\nX-Evil: 1".into()),
        |m| m.references = vec!["ok@host".into(), "a@b>\r\nBcc: <x@y".into()],
        |m| m.to = "jo@example.com\r\nBcc: x@y".into(),
        |m| m.list_id = "x <a.b>\r\nBcc: x@y".into(),
        |m| m.message_id = "no-at-sign".into(),
        |m| m.unsubscribe_url = "javascript:alert(1)".into(),
    ];
    for (i, change) in cases.iter().enumerate() {
        let mut msg = message();
        change(&mut msg);
        assert!(render(&msg).is_err(), "case {i} was accepted");
    }
}

#[test]
fn urls_are_serialised_without_breaks_or_brackets() {
    let mut msg = message();
    msg.unsubscribe_url = "https://status.example.com/u?t=a b>\r\nBcc: x@y".into();
    if let Ok(raw) = render(&msg) {
        let h = headers(&raw);
        assert!(!h.iter().any(|l| l.starts_with("Bcc:")), "{h:#?}");
    }
}

#[test]
fn a_bare_list_id_and_a_long_thread_are_fine() {
    let mut msg = message();
    msg.list_id = "acme.status.example.com".into();
    msg.references = (0..40)
        .map(|i| format!("inc-1.d{i}@status.example.com"))
        .collect();
    let raw = render(&msg).unwrap();
    let h = headers(&raw);
    assert!(h.iter().any(|l| l == "List-Id: <acme.status.example.com>"));
    let refs = h.iter().find(|l| l.starts_with("References:")).unwrap();
    assert_eq!(refs.matches('<').count(), 40);
    assert!(raw.split("\r\n").all(|l| l.len() <= 998));
}

fn direct() -> DirectMessage {
    DirectMessage {
        to: "support@example.com".into(),
        reply_to: Some((Some("Jo Doe".into()), "jo@example.com".into())),
        subject: "[Acme] Support request SUP-7K3Q9: I can't sign in".into(),
        text: "Jo cannot sign in.".into(),
        html: "<p>Jo cannot sign in.</p>".into(),
        message_id: "support.1.notice@status.example.com".into(),
    }
}

#[test]
fn a_direct_message_carries_reply_to_and_no_list_headers() {
    let raw = String::from_utf8(
        build_direct_message(&from(), &direct())
            .unwrap()
            .formatted(),
    )
    .unwrap();
    let h = headers(&raw);
    for expected in [
        "To: support@example.com",
        "Message-ID: <support.1.notice@status.example.com>",
        "Auto-Submitted: auto-generated",
    ] {
        assert!(
            h.iter().any(|l| l == expected),
            "missing {expected} in {h:#?}"
        );
    }
    let reply_to = h.iter().find(|l| l.starts_with("Reply-To:")).unwrap();
    assert!(reply_to.contains("<jo@example.com>"), "{reply_to}");
    assert!(!h.iter().any(|l| l.starts_with("List-")), "{h:#?}");
    assert!(raw.contains("text/plain") && raw.contains("text/html"));
}

#[test]
fn line_breaks_in_a_direct_message_cannot_add_a_header() {
    let mut msg = direct();
    msg.reply_to = Some((
        Some("Jo\r\nBcc: victim@example.com".into()),
        "jo@example.com".into(),
    ));
    msg.subject = "Help\r\nBcc: victim@example.com".into();
    let raw = String::from_utf8(build_direct_message(&from(), &msg).unwrap().formatted()).unwrap();
    let h = headers(&raw);
    assert!(!h.iter().any(|l| l.starts_with("Bcc:")), "{h:#?}");
    for bad in [
        "jo@example.com\r\nBcc: x@y",
        "jo@example.com>\nX-Evil: 1",
        "not an address",
    ] {
        let mut msg = direct();
        msg.reply_to = Some((None, bad.into()));
        assert!(build_direct_message(&from(), &msg).is_err(), "{bad}");
        let mut msg = direct();
        msg.to = bad.into();
        assert!(build_direct_message(&from(), &msg).is_err(), "{bad}");
    }
}

#[test]
fn the_smtp_url_is_checked_and_its_password_never_shown() {
    let err = Mailer::new("smtps://me:hunter2@mail.example.com", "Herald <h@x.y>").unwrap_err();
    assert_eq!(err, MailConfigError::NoRuntime);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        for url in ["http://me:hunter2@x", "nonsense", "smtp://"] {
            let err = Mailer::new(url, "Herald <h@x.y>").unwrap_err().to_string();
            assert!(err.starts_with("HERALD_SMTP_URL"), "{err}");
            assert!(!err.contains("hunter2"), "{err}");
        }
        let m = Mailer::new("smtps://me:hunter2@mail.example.com", "Herald <h@x.y>").unwrap();
        assert!(!format!("{m:?}").contains("hunter2"));
        assert!(Mailer::new("smtp+starttls://mail.example.com:587", "Herald <h@x.y>").is_ok());
        assert!(Mailer::new("smtp://127.0.0.1:2525", "nobody").is_err());
        let settings = |pairs: &[(&str, &str)]| {
            Settings::from_env(&crate::config::Env::from_pairs(pairs.iter().copied())).unwrap()
        };
        assert!(Mailer::from_settings(&settings(&[])).unwrap().is_none());
        let m = Mailer::from_settings(&settings(&[
            ("HERALD_SMTP_URL", "smtp://127.0.0.1:2525"),
            ("HERALD_MAIL_FROM", "Acme status <status@acme.test>"),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(m.server(), "smtp://127.0.0.1:2525");
    });
}

#[test]
fn an_inline_logo_goes_beside_the_html_and_the_text_stays_an_alternative() {
    let mut msg = message();
    msg.html = r#"<img src="cid:logo.0123abcd@herald" alt="Acme"><p>Hi</p>"#.into();
    msg.inline = Some(InlineImage {
        cid: "logo.0123abcd@herald".into(),
        content_type: "image/png",
        bytes: bytes::Bytes::from_static(b"\x89PNG\r\n\x1a\nfake"),
    });
    let raw = render(&msg).unwrap();
    let alternative = raw.find("multipart/alternative").expect("alternative");
    let related = raw.find("multipart/related").expect("related");
    assert!(alternative < related, "{raw}");
    assert!(
        raw.find("text/plain").unwrap() < related,
        "the text is not in the related part"
    );
    assert!(raw.contains("Content-ID: <logo.0123abcd@herald>"), "{raw}");
    assert!(raw.contains("Content-Disposition: inline"), "{raw}");
    assert!(raw.contains("Content-Type: image/png"), "{raw}");
    msg.inline.as_mut().unwrap().cid = "logo\r\nBcc: x@evil.test".into();
    assert!(render(&msg).is_err(), "a Content-ID cannot add a header");
}

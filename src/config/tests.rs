use super::*;

fn load(file: &str, env: &[(&str, &str)]) -> Result<Settings, ConfigError> {
    let file = file_table(file, Path::new("herald.toml"))?;
    Settings::resolve(&file, &Env::from_pairs(env.iter().copied()))
}

#[test]
fn defaults_need_no_configuration() {
    let s = load("", &[]).unwrap();
    assert_eq!(s.database_url, DatabaseUrl::Sqlite("herald.db".into()));
    assert_eq!(s.bind.to_string(), "127.0.0.1:8080");
    assert_eq!(s.public_url, "http://127.0.0.1:8080");
    assert_eq!(s.shutdown_grace, Duration::from_secs(30));
    assert!(s.secret_key.is_none());
    assert_eq!(s.notify_poll, Duration::from_millis(250));
}

#[test]
fn mail_and_webhook_settings_are_checked() {
    let s = load("", &[]).unwrap();
    assert!(s.smtp_url.is_none());
    assert_eq!(s.mail_from, "Herald <herald@localhost>");
    assert!(!s.allow_private_webhooks);
    assert_eq!(s.reminder_lead_minutes, 10);
    assert_eq!(
        s.mirror_poll,
        Duration::from_secs(60),
        "a vendor's page is read every minute"
    );
    let poll = load("", &[("HERALD_MIRROR_POLL_SECS", "15")]).unwrap();
    assert_eq!(poll.mirror_poll, Duration::from_secs(15));
    assert_eq!(
        s.support_spool_max_mb, 64,
        "the spool cap fits a small disk"
    );
    let lead = load("reminder_lead_minutes = 30", &[]).unwrap();
    assert_eq!(lead.reminder_lead_minutes, 30);
    let lead = load("", &[("HERALD_REMINDER_LEAD_MINUTES", "5")]).unwrap();
    assert_eq!(lead.reminder_lead_minutes, 5);
    let s = load(
        "allow_private_webhooks = true",
        &[
            ("HERALD_SMTP_URL", "smtps://me:hunter2@mail.example.com"),
            ("HERALD_MAIL_FROM", "Status <status@example.com>"),
        ],
    )
    .unwrap();
    assert!(s.allow_private_webhooks);
    assert_eq!(s.mail_from, "Status <status@example.com>");
    assert!(!format!("{s:?}").contains("hunter2"));
    for (key, value) in [
        ("HERALD_SMTP_URL", "http://mail.example.com"),
        ("HERALD_SMTP_URL", "not a url"),
        ("HERALD_MAIL_FROM", "not an address"),
        ("HERALD_ALLOW_PRIVATE_WEBHOOKS", "maybe"),
        ("HERALD_WEBHOOK_HOST_CONCURRENCY", "0"),
        ("HERALD_WEBHOOK_HOST_CONCURRENCY", "many"),
        ("HERALD_WEBHOOK_CA_FILE", "/nonexistent/ca.pem"),
        ("HERALD_WEBHOOK_CA_FILE", "Cargo.toml"),
        ("HERALD_SUPPORT_SPOOL_MAX_MB", "0"),
        ("HERALD_SUPPORT_SPOOL_MAX_MB", "lots"),
        ("HERALD_REMINDER_LEAD_MINUTES", "0"),
        ("HERALD_REMINDER_LEAD_MINUTES", "1441"),
        ("HERALD_REMINDER_LEAD_MINUTES", "soon"),
        ("HERALD_MIRROR_POLL_SECS", "0"),
        ("HERALD_MIRROR_POLL_SECS", "3601"),
    ] {
        let err = load("", &[(key, value)]).unwrap_err().to_string();
        assert!(err.starts_with(key), "{err}");
    }
    let err = load("", &[("HERALD_SMTP_URL", "ftp://u:hunter2@x")])
        .unwrap_err()
        .to_string();
    assert!(!err.contains("hunter2"), "{err}");
    let clear = load(
        "",
        &[("HERALD_SMTP_URL", "smtp://u:hunter2@mail.example.com")],
    )
    .unwrap_err()
    .to_string();
    assert!(
        clear.contains("would cross the network in clear text"),
        "{clear}"
    );
    assert!(!clear.contains("hunter2"), "{clear}");
    for allowed in [
        "smtp://u:p@127.0.0.1:25?plain_auth=allow",
        "smtp+starttls://u:p@mail.example.com",
        "smtp://u:p@mail.example.com?tls=required",
    ] {
        assert!(
            load("", &[("HERALD_SMTP_URL", allowed)]).is_ok(),
            "{allowed}"
        );
    }
}

#[test]
fn environment_overrides_the_file() {
    let s = load(
        "bind = \"127.0.0.1:9000\"\nshutdown_grace_secs = 5",
        &[("HERALD_BIND", "0.0.0.0:7000")],
    )
    .unwrap();
    assert_eq!(s.bind.port(), 7000);
    assert_eq!(s.public_url, "http://localhost:7000");
    assert_eq!(s.shutdown_grace, Duration::from_secs(5));
}

#[test]
fn unknown_file_keys_are_named() {
    let err = load("colour = \"blue\"", &[]).unwrap_err().to_string();
    assert!(
        err.contains("unknown key 'colour'; the keys are database_url, db_pool_size"),
        "{err}"
    );
}

#[test]
fn malformed_values_name_their_key() {
    let err = load("", &[("HERALD_SHUTDOWN_GRACE_SECS", "soon")])
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("HERALD_SHUTDOWN_GRACE_SECS"), "{err}");
    let err = load("", &[("HERALD_BIND", "not an address")])
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("HERALD_BIND"), "{err}");
    let err = load("", &[("HERALD_PUBLIC_URL", "ftp://x")])
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("HERALD_PUBLIC_URL"), "{err}");
    let err = load("", &[("HERALD_SECRET_KEY", "short")])
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("HERALD_SECRET_KEY"), "{err}");
    let err = load("shutdown_grace_secs = \"x\"", &[])
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("shutdown_grace_secs: 'x' is not a whole"),
        "a value from the file names the file's key: {err}"
    );
}

#[test]
fn each_out_of_range_value_names_its_own_key_and_range() {
    let err = load("", &[("HERALD_SHUTDOWN_DELAY_SECS", "4000")])
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "HERALD_SHUTDOWN_DELAY_SECS: must be between 0 and 3600 seconds, got 4000"
    );
    let err = load("db_pool_size = 0", &[]).unwrap_err().to_string();
    assert_eq!(err, "db_pool_size: must be between 1 and 256, got 0");
}

#[test]
fn file_values_keep_their_toml_types_and_the_environment_wins() {
    let s = load("workers = 3\nallow_private_webhooks = true", &[]).unwrap();
    assert_eq!((s.workers, s.allow_private_webhooks), (3, true));
    let s = load("workers = 3", &[("HERALD_WORKERS", "5")]).unwrap();
    assert_eq!(s.workers, 5);
    let err = load("allow_private_webhooks = 2", &[])
        .unwrap_err()
        .to_string();
    assert_eq!(err, "allow_private_webhooks: '2' is not true or false");
}

#[test]
fn other_database_schemes_are_refused_with_the_accepted_list() {
    let err = DatabaseUrl::parse("mysql://x").unwrap_err();
    assert!(matches!(err, ConfigError::UnsupportedDatabase(ref s) if s == "mysql"));
    assert!(err.to_string().contains("sqlite://") && err.to_string().contains("postgres://"));
}

#[test]
fn database_urls_pick_their_backend() {
    assert_eq!(
        DatabaseUrl::parse("sqlite:///var/lib/h.db").unwrap(),
        DatabaseUrl::Sqlite("/var/lib/h.db".into())
    );
    assert_eq!(
        DatabaseUrl::parse("sqlite:h.db").unwrap(),
        DatabaseUrl::Sqlite("h.db".into())
    );
    assert!(matches!(
        DatabaseUrl::parse("postgresql://a@b/c").unwrap(),
        DatabaseUrl::Postgres(_)
    ));
}

#[test]
fn passwords_are_masked_in_logs() {
    let url = DatabaseUrl::parse("postgres://me:hunter2@db/herald").unwrap();
    assert!(!url.redacted().contains("hunter2"));
    assert!(
        !format!(
            "{:?}",
            load("secret_key = \"0123456789abcdef0123456789abcdef\"", &[]).unwrap()
        )
        .contains("0123456789abcdef")
    );
}

#[test]
fn history_is_kept_its_days_by_default_and_zero_keeps_it_for_ever() {
    let day = Duration::from_secs(86_400);
    let s = load("", &[]).unwrap();
    assert_eq!(
        s.retention,
        Retention {
            deliveries: Some(day * 90),
            jobs: Some(day * 30),
            support: Some(day * 365),
            alerts: Some(day * 30),
        }
    );
    let s = load(
        "retention_support_days = 0",
        &[("HERALD_RETENTION_DELIVERIES_DAYS", "7")],
    )
    .unwrap();
    assert_eq!(s.retention.support, None);
    assert_eq!(s.retention.deliveries, Some(day * 7));
    let err = load("", &[("HERALD_RETENTION_JOBS_DAYS", "-1")]).unwrap_err();
    assert!(
        err.to_string().contains("HERALD_RETENTION_JOBS_DAYS"),
        "{err}"
    );
}

use super::*;

fn strict() -> Policy {
    Policy::default()
}

#[test]
fn ca_files_must_hold_usable_pem_certificates() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let err = read_ca_file(&dir.path().join("missing.pem")).unwrap_err();
    assert!(err.starts_with("cannot read the CA file"), "{err}");
    let err = read_ca_file(&write("notes.txt", "no certificates here\n")).unwrap_err();
    assert!(err.ends_with("holds no PEM certificate"), "{err}");
    let garbage = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
    let err = read_ca_file(&write("bad.pem", garbage)).unwrap_err();
    assert!(err.contains("holds an unusable certificate"), "{err}");
}

#[test]
fn non_public_addresses_are_classified() {
    for addr in [
        "127.0.0.1",
        "127.255.0.9",
        "0.0.0.0",
        "0.1.2.3",
        "10.0.0.1",
        "10.255.255.255",
        "172.16.0.1",
        "172.31.255.254",
        "192.168.1.1",
        "169.254.169.254",
        "169.254.0.1",
        "100.64.0.1",
        "100.127.255.255",
        "100.100.100.200",
        "168.63.129.16",
        "192.0.0.192",
        "255.255.255.255",
        "224.0.0.1",
        "239.255.255.250",
        "192.0.2.1",
        "198.51.100.7",
        "203.0.113.9",
        "192.0.0.170",
        "198.18.0.1",
        "240.0.0.1",
        "::",
        "::1",
        "::ffff:127.0.0.1",
        "::ffff:10.1.2.3",
        "::ffff:169.254.169.254",
        "::ffff:0:127.0.0.1",
        "::ffff:0:10.0.0.1",
        "::ffff:0:169.254.169.254",
        "::127.0.0.1",
        "2001:2::1",
        "2001:2:0:ffff::1",
        "2001:10::1",
        "2001:1f:ffff::1",
        "64:ff9b::7f00:1",
        "64:ff9b::a9fe:a9fe",
        "2002:7f00:1::1",
        "2002:c0a8:101::1",
        "fc00::1",
        "fd00:ec2::254",
        "fe80::1",
        "febf::1",
        "fec0::1",
        "ff02::1",
        "2001:db8::1",
        "2001:0:4136:e378::1",
        "100::1",
    ] {
        let ip: IpAddr = addr.parse().unwrap();
        assert!(non_public_kind(ip).is_some(), "{addr} should be refused");
    }
}

#[test]
fn public_addresses_pass() {
    for addr in [
        "1.1.1.1",
        "8.8.8.8",
        "93.184.216.34",
        "100.63.255.255",
        "100.128.0.1",
        "172.15.255.255",
        "172.32.0.1",
        "192.167.1.1",
        "169.253.1.1",
        "198.20.0.1",
        "223.255.255.255",
        "2606:4700:4700::1111",
        "2a00:1450:4007:80e::200e",
        "::ffff:8.8.8.8",
        "64:ff9b::808:808",
        "2002:808:808::1",
        "::ffff:0:8.8.8.8",
        "2001:4860:4860::8888",
        "2001:2:1::1",
    ] {
        let ip: IpAddr = addr.parse().unwrap();
        assert_eq!(non_public_kind(ip), None, "{addr} should pass");
    }
}

#[test]
fn url_syntax_is_checked() {
    assert!(check_url("https://hooks.example.com/x?y=1", &strict()).is_ok());
    assert!(check_url("http://93.184.216.34:8080/in", &strict()).is_ok());
    assert_eq!(
        check_url("not a url", &strict()),
        Err(UrlRefusal::Malformed)
    );
    assert!(matches!(
        check_url("ftp://example.com/", &strict()),
        Err(UrlRefusal::Scheme(s)) if s == "ftp"
    ));
    assert!(matches!(
        check_url("file:///etc/passwd", &strict()),
        Err(UrlRefusal::Scheme(_))
    ));
    assert_eq!(
        check_url("https://user:pw@example.com/", &strict()),
        Err(UrlRefusal::Userinfo)
    );
    assert_eq!(
        check_url("https://user@example.com/", &strict()),
        Err(UrlRefusal::Userinfo)
    );
}

#[test]
fn literal_private_addresses_are_refused_unless_allowed() {
    for url in [
        "http://127.0.0.1:8080/",
        "http://10.0.0.5/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/",
        "http://[::ffff:7f00:1]/",
        "http://2130706433/",
        "http://0x7f.1/",
    ] {
        let err = check_url(url, &strict()).unwrap_err();
        assert!(matches!(err, UrlRefusal::NotPublic { .. }), "{url}: {err}");
        assert!(err.to_string().contains("public addresses only"));
        let open = Policy {
            allow_private: true,
            ..Policy::default()
        };
        assert!(check_url(url, &open).is_ok(), "{url}");
    }
}

#[tokio::test]
async fn names_resolving_to_loopback_are_refused_at_check_time() {
    let url = check_url("http://localhost:9/hook", &strict()).unwrap();
    let err = check_destination(&url, &strict()).await.unwrap_err();
    assert!(
        matches!(
            &err,
            UrlRefusal::NotPublic {
                kind: "loopback",
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("localhost"), "{err}");
    let open = Policy {
        allow_private: true,
        ..Policy::default()
    };
    assert!(check_destination(&url, &open).await.is_ok());
}

#[tokio::test]
async fn pinned_names_are_checked_like_resolved_ones() {
    let loopback: IpAddr = "127.0.0.1".parse().unwrap();
    let public: IpAddr = "93.184.216.34".parse().unwrap();
    let strict = GuardedResolver::new(false)
        .pin("Internal.Example", vec![loopback])
        .pin("hooks.example", vec![public]);
    assert!(matches!(
        strict.lookup("internal.example").await,
        Err(UrlRefusal::NotPublic { .. })
    ));
    assert_eq!(
        strict.lookup("hooks.example").await.unwrap(),
        vec![SocketAddr::new(public, 0)]
    );
    let open = GuardedResolver::new(true).pin("internal.example", vec![loopback]);
    assert_eq!(
        open.lookup("internal.example").await.unwrap(),
        vec![SocketAddr::new(loopback, 0)]
    );
    assert!(matches!(
        strict.lookup("localhost").await,
        Err(UrlRefusal::NotPublic { .. })
    ));
}

#[tokio::test]
async fn unresolvable_names_are_refused() {
    let url = check_url("http://no-such-host.invalid/", &strict()).unwrap();
    assert!(matches!(
        check_destination(&url, &strict()).await,
        Err(UrlRefusal::Unresolvable { .. })
    ));
}

//! Herald's one-time passwords against an independent implementation, pyotp (PyPI), which
//! authenticator apps agree with: the same code at the same time from the same secret, a code
//! pyotp makes now opens once in Herald, and pyotp reads Herald's `otpauth://` address.

use herald::domain::second_factor::TotpSecret;
use serde_json::Value;

use crate::helpers::tools;

/// What pyotp says of `secret` and `url` at the Unix times `at`.
fn pyotp(secret: &str, url: &str, at: &[u64]) -> Value {
    let script = "import json, sys, time\n\
        import pyotp\n\
        secret, url, times = sys.argv[1], sys.argv[2], [int(t) for t in sys.argv[3:]]\n\
        totp = pyotp.TOTP(secret)\n\
        parsed = pyotp.parse_uri(url)\n\
        print(json.dumps({'codes': [totp.at(t) for t in times], 'now': totp.now(),\n\
                          'time': int(time.time()), 'secret': parsed.secret,\n\
                          'issuer': parsed.issuer, 'name': parsed.name}))\n";
    let mut command = std::process::Command::new(tools::python_bin().join("python"));
    command.args(["-c", script, secret, url]);
    command.args(at.iter().map(u64::to_string));
    let out = command.output().expect("the test tools' python starts");
    assert!(
        out.status.success(),
        "pyotp did not run: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("pyotp's answer is JSON")
}

#[test]
fn an_independent_implementation_makes_and_reads_the_same_codes() {
    let secret = TotpSecret::generate();
    let url = secret
        .otpauth_url("Acme status", "ops@example.com")
        .unwrap();
    let times = [59, 1_111_111_109, 1_700_000_000, 2_000_000_000];
    let said = pyotp(secret.base32(), &url, &times);
    for (i, at) in times.iter().enumerate() {
        assert_eq!(said["codes"][i], secret.code_at(*at).unwrap(), "at {at}");
    }
    // pyotp's code of now opens once (the step it belongs to is then used).
    let now = said["time"].as_u64().unwrap();
    let code = said["now"].as_str().unwrap();
    let step = secret
        .check(code, now, None)
        .expect("pyotp's current code opens");
    assert_eq!(secret.check(code, now, Some(step)), None, "and only once");
    assert_eq!(said["secret"], secret.base32());
    assert_eq!(said["issuer"], "Acme status");
    assert_eq!(said["name"], "ops@example.com");
}

on_both_backends!(an_accounts_totp_factor_is_set_up_once_and_each_code_opens_one_sign_in);

async fn an_accounts_totp_factor_is_set_up_once_and_each_code_opens_one_sign_in(
    db: crate::helpers::TestDb,
) {
    use chrono::{Duration, Utc};
    use herald::services::auth::second_factor::{self as factor, Opened};

    let app = crate::helpers::TestApp::spawn(db).await;
    let user = app
        .user("ops@example.com", herald::domain::Role::Owner)
        .await;
    let now = Utc::now();
    let (id, at) = (user.clone(), now);
    let enrolment = app
        .db
        .run(move |c| factor::begin_totp(c, &id, "ops@example.com", "Acme status", at))
        .await
        .unwrap();
    let secret = TotpSecret::from_base32(&enrolment.secret).unwrap();
    assert!(enrolment.otpauth_url.contains(&enrolment.secret));
    let id = user.clone();
    let has = app
        .db
        .run(move |c| factor::has_second_factor(c, &id))
        .await
        .unwrap();
    assert!(!has, "not asked for before it is confirmed");

    // A wrong code does not confirm it; the app's current code does, once, with ten codes.
    let id = user.clone();
    let wrong = app
        .db
        .run(move |c| factor::confirm_totp(c, &id, "000000", at))
        .await;
    assert!(
        matches!(&wrong, Err(herald::error::AppError::Validation(f)) if f.contains_key("code")),
        "{wrong:?}"
    );
    let secs = |t: chrono::DateTime<Utc>| u64::try_from(t.timestamp()).unwrap();
    let code = secret.code_at(secs(now)).unwrap();
    let id = user.clone();
    let recovery = app
        .db
        .run(move |c| factor::confirm_totp(c, &id, &code, at))
        .await
        .unwrap();
    assert_eq!(recovery.len(), 10);
    let id = user.clone();
    let again = app
        .db
        .run(move |c| factor::begin_totp(c, &id, "ops@example.com", "Acme status", at))
        .await;
    assert!(
        matches!(again, Err(herald::error::AppError::Conflict(_))),
        "a confirmed factor is removed before another is set up"
    );

    // Sign-ins: the code of the next step opens once; the confirming step's code never again.
    let check = |code: String, when: chrono::DateTime<Utc>| {
        let (db, id) = (app.db.clone(), user.clone());
        async move {
            db.run(move |c| factor::check_second_factor(c, &id, &code, when))
                .await
                .unwrap()
        }
    };
    let later = now + Duration::seconds(30);
    let next = secret.code_at(secs(later)).unwrap();
    let used = secret.code_at(secs(now)).unwrap();
    assert_eq!(
        check(used, later).await,
        None,
        "the confirming code is spent"
    );
    assert_eq!(check(next.clone(), later).await, Some(Opened::Totp));
    assert_eq!(check(next, later).await, None, "a code opens one sign-in");
    assert_eq!(check("123456".into(), later).await, None);

    // A recovery code opens once, typed any way; nine are left.
    let typed = recovery[3].to_lowercase().replace('-', " ");
    assert_eq!(
        check(typed.clone(), later).await,
        Some(Opened::RecoveryCode)
    );
    assert_eq!(
        check(typed, later).await,
        None,
        "a recovery code opens once"
    );
    let id = user.clone();
    let left = app
        .db
        .run(move |c| factor::recovery_codes_left(c, &id))
        .await
        .unwrap();
    assert_eq!(left, 9);

    // Removed, it opens nothing and is not asked for.
    let id = user.clone();
    app.db
        .run(move |c| factor::remove_second_factor(c, &id))
        .await
        .unwrap();
    let fresh = secret.code_at(secs(later + Duration::seconds(30))).unwrap();
    assert_eq!(check(fresh, later + Duration::seconds(30)).await, None);
    let id = user.clone();
    let has = app
        .db
        .run(move |c| factor::has_second_factor(c, &id))
        .await
        .unwrap();
    assert!(!has);
}

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

//! The shared test harness: `TestApp` (a real Herald with its own fresh database), the
//! `on_both_backends!` macro, and the helpers every suite uses to write its tests as sentences:
//! accounts and tokens ([`builders`]: `app.token(Role::Owner)`), pages and subscribers
//! (`app.page("acme").with_components(&["API"]).create()`), one JSON API client
//! (`app.api(&token).post(path, body)`) and one signed-in console ([`Console`]); the outside
//! tools some tests drive, installed on first use ([`tools`]).

use herald::config::{Env, Settings};

mod app;
mod builders;
mod db;
mod requests;
pub mod tools;
mod vendor;

pub use app::TestApp;
pub use builders::PASSWORD;
pub use db::TestDb;
pub use requests::Console;
pub use vendor::Vendor;

/// Declares an async test body once and runs it on each backend: `NAME::sqlite` always, and
/// `NAME::postgres` against a fresh database on the suite's PostgreSQL ([`crate::pg_server`]:
/// `HERALD_TEST_POSTGRES_URL`, or a cluster of the suite's own).
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                super::$name(crate::helpers::TestDb::sqlite()).await
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                if let Some(db) = crate::helpers::TestDb::postgres() {
                    super::$name(db).await
                }
            }
        }
    )*};
}

/// A client that shows redirects instead of following them (the console answers 303s).
pub fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// The `name=value` pair of the cookie `name` that `res` sets, if it sets one.
pub fn set_cookie_pair(res: &reqwest::Response, name: &str) -> Option<String> {
    let prefix = format!("{name}=");
    res.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with(&prefix))
        .and_then(|v| v.split(';').next())
        .map(str::to_owned)
}

/// Settings for a test app on `db`: port 0, a small pool, quiet logs.
pub fn test_settings(db: &TestDb, extra: &[(&str, &str)]) -> Settings {
    let url = db.url();
    let mut pairs = vec![
        ("DATABASE_URL", url.as_str()),
        ("HERALD_BIND", "127.0.0.1:0"),
        ("HERALD_WORKERS", "2"),
        ("HERALD_DB_POOL_SIZE", "4"),
        ("HERALD_SHUTDOWN_GRACE_SECS", "5"),
    ];
    pairs.extend_from_slice(extra);
    Settings::from_env(&Env::from_pairs(pairs)).expect("test settings are valid")
}

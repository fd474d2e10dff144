//! A small Chrome DevTools Protocol client for the browser tests: starts Debian's headless
//! Chromium, opens a page target and sends commands over its WebSocket. Nothing waits on the
//! browser without a deadline.

use std::collections::VecDeque;
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

use crate::helpers::tools;

/// The longest any exchange with the browser may take: a command's answer, an event, a read.
const DEADLINE: Duration = Duration::from_secs(30);

/// The Chromium binary: `HERALD_CHROMIUM`, else Debian's `/usr/bin/chromium`.
pub fn chromium_path() -> Option<PathBuf> {
    let path = std::env::var_os("HERALD_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| "/usr/bin/chromium".into());
    path.exists().then_some(path)
}

/// Chromium's path; `None` where it is not installed, after [`tools::missing`] (which fails
/// the test under CI, and otherwise notes that it is skipped).
pub fn chromium_or_skip() -> Option<PathBuf> {
    let found = chromium_path();
    if found.is_none() {
        tools::missing(
            "Chromium (/usr/bin/chromium, or HERALD_CHROMIUM)",
            "apt-get install chromium",
        );
    }
    found
}

/// axe-core's `axe.min.js`, installed on first use ([`tools::axe_core`]).
pub fn axe() -> String {
    let path = tools::axe_core();
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A running headless Chromium.
pub struct Browser {
    child: Child,
    port: u16,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// Starts Chromium headless with a fresh profile and a DevTools port chosen by the browser.
    pub fn launch(binary: &std::path::Path) -> Self {
        let profile = tempfile::tempdir().unwrap();
        let child = Command::new(binary)
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
                "--remote-debugging-port=0",
                "--window-size=1280,900",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromium starts");
        let port_file = profile.path().join("DevToolsActivePort");
        let started = Instant::now();
        let port = loop {
            if let Ok(text) = std::fs::read_to_string(&port_file)
                && let Some(port) = text.lines().next().and_then(|l| l.trim().parse().ok())
            {
                break port;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "chromium did not open its DevTools port"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        Self {
            child,
            port,
            _profile: profile,
        }
    }

    /// Opens a new tab and connects to it.
    pub fn new_page(&self) -> Page {
        let body = http(self.port, "PUT", "/json/new?about:blank");
        let target: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
        let url = target["webSocketDebuggerUrl"]
            .as_str()
            .expect("page websocket url")
            .to_owned();
        Self::connect(&url)
    }

    /// Connects to the frame showing `url` that the browser runs as a target of its own (a
    /// frame of another site than its document's), if there is one.
    pub fn frame(&self, url: &str) -> Option<Page> {
        let body = http(self.port, "GET", "/json/list");
        let targets: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
        let socket = targets
            .as_array()?
            .iter()
            .find(|t| t["type"] == "iframe" && t["url"] == url)?["webSocketDebuggerUrl"]
            .as_str()?
            .to_owned();
        Some(Self::connect(&socket))
    }

    fn connect(url: &str) -> Page {
        let (socket, _) = tungstenite::connect(url).expect("devtools websocket");
        if let MaybeTlsStream::Plain(stream) = socket.get_ref() {
            // A read that gets nothing fails the test instead of hanging it.
            stream
                .set_read_timeout(Some(DEADLINE))
                .expect("a read timeout on the devtools socket");
        }
        let mut page = Page {
            socket,
            next_id: 0,
            events: VecDeque::new(),
        };
        page.call("Page.enable", json!({}));
        page.call("Runtime.enable", json!({}));
        page
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A request to the DevTools HTTP endpoint.
fn http(port: u16, method: &str, path: &str) -> String {
    let client = reqwest::blocking::Client::builder()
        .timeout(DEADLINE)
        .build()
        .expect("an HTTP client");
    let url = format!("http://127.0.0.1:{port}{path}");
    let request = match method {
        "PUT" => client.put(url),
        _ => client.get(url),
    };
    request
        .send()
        .and_then(|r| r.text())
        .expect("devtools http endpoint answers")
}

/// How many events a page keeps while it waits for a command's answer (the oldest go first).
const KEPT_EVENTS: usize = 1024;

/// One tab.
pub struct Page {
    socket: WebSocket<MaybeTlsStream<TcpStream>>,
    next_id: u64,
    /// Events that arrived while a command's answer was awaited, oldest first: a key press or a
    /// script that navigates may see the page load before its own answer comes back, and
    /// `wait_for` must still find that load.
    events: VecDeque<Value>,
}

impl Page {
    /// The next message, before `deadline` (`what` is waited for, for the failure message).
    fn read(&mut self, what: &str, deadline: Instant) -> Message {
        assert!(
            Instant::now() < deadline,
            "no answer to {what} from the browser within {DEADLINE:?}"
        );
        match self.socket.read() {
            Ok(message) => message,
            Err(e) => panic!("waiting for {what} from the browser: {e}"),
        }
    }

    /// Sends a command and waits for its result (events in between are kept for `wait_for`).
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.socket
            .send(Message::text(
                json!({"id": id, "method": method, "params": params}).to_string(),
            ))
            .unwrap();
        let deadline = Instant::now() + DEADLINE;
        loop {
            let Message::Text(text) = self.read(method, deadline) else {
                continue;
            };
            let value: Value = serde_json::from_str(&text).unwrap();
            if value["id"] == id {
                assert!(value.get("error").is_none(), "{method} failed: {value}");
                return value["result"].clone();
            }
            if value.get("method").is_some() {
                if self.events.len() == KEPT_EVENTS {
                    self.events.pop_front();
                }
                self.events.push_back(value);
            }
        }
    }

    /// Waits for an event by name: the first one kept since the last wait or navigation, else
    /// the next to arrive. The events kept before it are dropped with it.
    pub fn wait_for(&mut self, event: &str) -> Value {
        if let Some(at) = self.events.iter().position(|e| e["method"] == event) {
            let found = self
                .events
                .drain(..=at)
                .next_back()
                .expect("the event found");
            return found["params"].clone();
        }
        self.events.clear();
        let deadline = Instant::now() + DEADLINE;
        loop {
            let Message::Text(text) = self.read(event, deadline) else {
                continue;
            };
            let value: Value = serde_json::from_str(&text).unwrap();
            if value["method"] == event {
                return value["params"].clone();
            }
        }
    }

    /// Navigates and waits for the load event.
    pub fn goto(&mut self, url: &str) {
        // A load kept from before is not this navigation's.
        self.events.clear();
        self.call("Page.navigate", json!({"url": url}));
        self.wait_for("Page.loadEventFired");
    }

    /// Presses a key as a keyboard would (down and up), with `modifiers` (the DevTools bits:
    /// 1 Alt, 2 Ctrl, 4 Meta, 8 Shift); `key` is a DOM key name ("Tab", "Enter",
    /// "ArrowRight") and `code` its Windows virtual key code.
    pub fn press(&mut self, key: &str, code: u32, modifiers: u32) {
        // Enter alone carries its character, as a real key does: a form's implicit submission
        // comes from the key press the character makes, not from the raw key down.
        let (down, text) = if key == "Enter" && modifiers == 0 {
            ("keyDown", "\r")
        } else {
            ("rawKeyDown", "")
        };
        for kind in [down, "keyUp"] {
            self.call(
                "Input.dispatchKeyEvent",
                json!({
                    "type": kind, "key": key, "code": key, "modifiers": modifiers,
                    "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code,
                    "text": if kind == "keyUp" { "" } else { text },
                }),
            );
        }
    }

    /// Types `text` into the focused element (one input event, as a paste or an IME would).
    pub fn type_text(&mut self, text: &str) {
        self.call("Input.insertText", json!({"text": text}));
    }

    /// Evaluates an expression in the page and returns its value.
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true}),
        );
        result["result"]["value"].clone()
    }

    /// Evaluates an expression whose value is a promise and returns what it resolves to.
    pub fn eval_async(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        );
        assert!(
            result.get("exceptionDetails").is_none(),
            "{expression} threw: {result}"
        );
        result["result"]["value"].clone()
    }

    /// Runs axe-core (`source`, its `axe.min.js`) on the current document against WCAG 2.1
    /// A and AA, and answers the violations of serious or critical impact, each as
    /// `rule: what (where)`.
    pub fn serious_accessibility_violations(&mut self, source: &str) -> Vec<String> {
        // DevTools evaluation is not subject to the page's Content-Security-Policy.
        self.call(
            "Runtime.evaluate",
            json!({"expression": source, "returnByValue": true}),
        );
        let found = self.eval_async(
            "axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}}).then(r => r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => v.id + ': ' + v.help + ' (' + v.nodes.map(n => n.target.join(' ')).slice(0, 5).join(', ') + ')'))",
        );
        found
            .as_array()
            .expect("axe answers a list")
            .iter()
            .map(|v| v.as_str().unwrap_or_default().to_owned())
            .collect()
    }

    /// The current document's HTML, read through the DOM domain (works with scripts disabled).
    pub fn html(&mut self) -> String {
        let root = self.call("DOM.getDocument", json!({"depth": 0}));
        let node = root["root"]["nodeId"].clone();
        self.call("DOM.getOuterHTML", json!({"nodeId": node}))["outerHTML"]
            .as_str()
            .unwrap_or("")
            .to_owned()
    }

    /// A PNG screenshot of the viewport.
    pub fn screenshot(&mut self) -> Vec<u8> {
        use base64::Engine;
        let shot = self.call("Page.captureScreenshot", json!({"format": "png"}));
        base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().unwrap())
            .unwrap()
    }
}

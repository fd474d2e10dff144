// Herald console: progressive enhancement for responders. Every form works without it.
// - A live preview beside each message field: the text is sent (with the form's CSRF token)
//   to /admin/preview as it is typed, at most one request in flight and one every 300 ms, and
//   the server's rendering (the public page's sanitizing Markdown) is shown beside it.
// - Ctrl+Enter (Cmd+Enter on a Mac) in a message field sends its form, as the first button.
(function () {
  "use strict";

  var DELAY_MS = 300;

  function livePreview(field) {
    var form = field.form;
    var box = document.getElementById(field.getAttribute("data-live-preview"));
    if (!form || !box) return;
    var out = box.querySelector("[data-preview-body]");
    var token = form.querySelector("input[name=csrf_token]");
    if (!out || !token) return;
    var empty = box.getAttribute("data-empty") || "";
    var timer = null, busy = false, again = false, shown = null;

    function show(html, state) {
      out.innerHTML = html || "<p class=\"console-meta\">" + empty + "</p>";
      box.setAttribute("data-state", state);
    }

    function send() {
      timer = null;
      if (busy) { again = true; return; }
      var text = field.value;
      if (text === shown) return;
      busy = true;
      box.setAttribute("aria-busy", "true");
      var body = new URLSearchParams();
      body.set("csrf_token", token.value);
      body.set("body", text);
      fetch("/admin/preview", {
        method: "POST",
        body: body,
        credentials: "same-origin",
        headers: { "Accept": "text/html" }
      }).then(function (res) {
        return res.text().then(function (html) {
          if (res.ok || res.status === 422) {
            shown = text;
            show(html, res.ok ? "shown" : "refused");
          } else {
            show("", "failed");
          }
        });
      }).catch(function () {
        show("", "failed");
      }).then(function () {
        busy = false;
        box.removeAttribute("aria-busy");
        if (again) { again = false; schedule(); }
      });
    }

    function schedule() {
      if (timer) clearTimeout(timer);
      timer = setTimeout(send, DELAY_MS);
    }

    // The server's own preview (the form's Preview button) gives way to the live one.
    var still = document.querySelectorAll(".console-preview:not([data-live])");
    for (var i = 0; i < still.length; i++) still[i].hidden = true;
    box.hidden = false;
    field.addEventListener("input", schedule);
    send();
  }

  function sendOnCtrlEnter(field) {
    field.addEventListener("keydown", function (event) {
      if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
      var form = field.form;
      if (!form) return;
      event.preventDefault();
      var button = form.querySelector("button[type=submit]:not([name=preview])");
      if (form.requestSubmit) form.requestSubmit(button || undefined);
      else form.submit();
    });
  }

  function start() {
    var fields = document.querySelectorAll("textarea[data-live-preview]");
    for (var i = 0; i < fields.length; i++) {
      livePreview(fields[i]);
      sendOnCtrlEnter(fields[i]);
    }
    var hints = document.querySelectorAll("[data-js-hint]");
    for (var j = 0; j < hints.length; j++) hints[j].hidden = false;
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();

// Herald public pages: a little progressive enhancement. Everything reads correctly without it.
// - <time datetime data-local> elements are rewritten into the reader's own time zone (the page's
//   time stays in the tooltip);
// - "Next update by" promises ([data-deadline]) get a live countdown and switch to the overdue
//   wording once the deadline passes (the server already renders the wording right as of the
//   snapshot; this only moves forward in time, never back) with how long ago it passed.
(function () {
  "use strict";

  // The page's language: dates, numbers and units are written in it; the words around a
  // countdown come from the page itself (data-in, data-ago on each promise).
  var lang = document.documentElement.lang || undefined;
  var main = document.querySelector("[data-page-time]");
  var pageTime = main ? main.getAttribute("data-page-time") : "page time";
  var localFormat;
  try {
    localFormat = new Intl.DateTimeFormat(lang, {
      year: "numeric", month: "short", day: "numeric",
      hour: "2-digit", minute: "2-digit", timeZoneName: "short"
    });
  } catch (e) {
    localFormat = null;
  }

  function parse(value) {
    var ms = Date.parse(value || "");
    return isNaN(ms) ? null : ms;
  }

  function localizeTimes(root) {
    if (!localFormat) return;
    var times = root.querySelectorAll("time[data-local]");
    for (var i = 0; i < times.length; i++) {
      var el = times[i];
      var ms = parse(el.getAttribute("datetime"));
      if (ms === null) continue;
      if (!el.title) el.title = el.textContent + " (" + pageTime + ")";
      el.textContent = localFormat.format(new Date(ms));
    }
  }

  var units = { day: "d", hour: "h", minute: "min", second: "s" };
  function unit(n, name) {
    try {
      return new Intl.NumberFormat(lang, { style: "unit", unit: name, unitDisplay: "short" })
        .format(n);
    } catch (e) {
      return n + " " + units[name];
    }
  }

  function duration(ms) {
    var s = Math.max(0, Math.floor(ms / 1000));
    var d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600);
    var m = Math.floor((s % 3600) / 60), sec = s % 60;
    if (d > 0) return unit(d, "day") + " " + unit(h, "hour");
    if (h > 0) return unit(h, "hour") + " " + unit(m, "minute");
    if (m > 0) return unit(m, "minute") + " " + unit(sec, "second");
    return unit(sec, "second");
  }

  function worded(el, name, fallback, ms) {
    var words = el.getAttribute(name) || fallback;
    return words.replace("{d}", duration(ms));
  }

  function tick(deadlines) {
    var now = Date.now();
    var pending = false;
    for (var i = 0; i < deadlines.length; i++) {
      var el = deadlines[i];
      var due = parse(el.getAttribute("data-deadline"));
      if (due === null) continue;
      var upcoming = el.querySelector(".deadline-due");
      var overdue = el.querySelector(".deadline-overdue");
      var countdown = el.querySelector("[data-countdown]");
      var late = el.querySelector("[data-overdue-for]");
      if (!upcoming || !overdue) continue;
      pending = true;
      if (now < due && !upcoming.hidden) {
        if (countdown) countdown.textContent = worded(el, "data-in", "(in {d})", due - now);
      } else {
        upcoming.hidden = true;
        overdue.hidden = false;
        if (late) late.textContent = worded(el, "data-ago", "({d} ago)", now - due);
      }
    }
    return pending;
  }

  function start() {
    localizeTimes(document);
    var deadlines = document.querySelectorAll("[data-deadline]");
    if (!deadlines.length) return;
    if (!tick(deadlines)) return;
    var timer = setInterval(function () {
      if (!tick(deadlines)) clearInterval(timer);
    }, 1000);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();

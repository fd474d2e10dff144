/* Herald status embed: <script src="https://STATUS-HOST/status/SLUG/embed.js" async></script>
 * Shows a dismissible banner while an incident or maintenance is active, linking to the status
 * page (and to the support form when signing in is affected). No cookies, nothing loaded from
 * anywhere else. Options on the script tag: data-target="CSS selector" (where the banner goes;
 * default: the top of the body), data-position="bottom" (a bar fixed at the bottom).
 * Without data-position, the page's own embed look applies (set by its owner: a corner, where
 * a bottom corner is a card fixed there, and colours for incidents and maintenances).
 * Theme it with CSS custom properties on any ancestor: --herald-embed-bg, --herald-embed-fg,
 * --herald-embed-link, --herald-embed-border, --herald-embed-font, --herald-embed-radius.
 * The element carries data-status (none, minor, major, critical, maintenance) once read. */
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || !window.fetch) return;
  var base = script.src.replace(/[^/]*([?#].*)?$/, "");
  var source = base + "widget.json";
  var key = "herald-embed:" + source;
  var host = document.createElement("div");
  host.setAttribute("data-herald-embed", "");
  host.hidden = true;
  var root = host.attachShadow ? host.attachShadow({ mode: "open" }) : host;
  var given = script.getAttribute("data-position");
  var bottom = given === "bottom";
  var hex = /^#[0-9a-f]{6}$/;
  /* The owner's look: a bottom corner's card, and the colours of each kind of event. */
  function lookCss(look) {
    if (!look) return "";
    var rules = "";
    var corner = look.position || "";
    if (!given && /^bottom-(left|right)$/.test(corner)) {
      var side = corner === "bottom-left" ? "left" : "right";
      rules += ".bar{position:fixed;bottom:1em;" + side + ":1em;width:auto;" +
        "max-width:min(26em,calc(100% - 2em));border-radius:var(--herald-embed-radius,8px);" +
        "z-index:2147483000}";
    }
    var kinds = [["incident", ".minor,.major,.critical"], ["maintenance", ".maintenance"]];
    kinds.forEach(function (kind) {
      var bg = look[kind[0] + "_background_color"], fg = look[kind[0] + "_text_color"];
      var decl = (hex.test(bg || "") ? "--tone:" + bg + ";" : "") +
        (hex.test(fg || "") ? "color:var(--herald-embed-fg," + fg + ");" : "");
      if (decl) rules += kind[1] + "{" + decl + "}";
      /* Links read in the owner's text colour on the owner's background. */
      if (hex.test(fg || "")) {
        rules += kind[1].split(",").map(function (c) { return c + " a"; }).join(",") +
          "{color:var(--herald-embed-link," + fg + ")}";
      }
    });
    return rules;
  }
  var css =
    ":host{all:initial}" +
    ".bar{display:flex;gap:.75em;align-items:center;box-sizing:border-box;width:100%;" +
    "padding:.6em 1em;font:var(--herald-embed-font,15px/1.4 system-ui,sans-serif);" +
    "color:var(--herald-embed-fg,#1f2328);background:var(--herald-embed-bg,var(--tone));" +
    "border:1px solid var(--herald-embed-border,#d1d9e0);border-radius:var(--herald-embed-radius,0)" +
    (bottom ? ";position:fixed;left:0;bottom:0;z-index:2147483000" : "") +
    "}.minor{--tone:#fff8c5}.major,.critical{--tone:#ffebe9}.maintenance,.none{--tone:#ddf4ff}" +
    "p{margin:0;flex:1}a{color:var(--herald-embed-link,#0550ae);font-weight:600}" +
    "button{font:inherit;font-size:1.25em;line-height:1;background:none;border:0;padding:.1em .4em;" +
    "color:inherit;cursor:pointer;border-radius:4px}" +
    "a:focus-visible,button:focus-visible{outline:3px solid var(--herald-embed-link,#0550ae);outline-offset:2px}";

  function el(tag, text, attrs) {
    var node = document.createElement(tag);
    if (text) node.textContent = text;
    for (var name in attrs || {}) node.setAttribute(name, attrs[name]);
    return node;
  }

  function remembered(signature) {
    try { return sessionStorage.getItem(key) === signature; } catch (e) { return false; }
  }

  function render(widget) {
    var active = widget.incidents.concat(widget.maintenances);
    var signature = active.map(function (e) { return e.id + "@" + e.updated_at; }).join(",");
    root.textContent = "";
    host.setAttribute("data-status", widget.status.indicator);
    if (!active.length || remembered(signature)) {
      host.hidden = true;
      return;
    }
    var first = active[0];
    var tone = widget.incidents.length ? first.impact : "maintenance";
    var bar = el("div", "", { "class": "bar " + tone, role: "region", "aria-label": widget.page.name + " status" });
    var text = el("p", "", { "aria-live": "polite" });
    text.appendChild(el("strong", first.name));
    var more = active.length > 1 ? " and " + (active.length - 1) + " more" : "";
    text.appendChild(document.createTextNode(more + " (" + widget.status.description + "). "));
    text.appendChild(el("a", "View status", { href: first.url, target: "_blank", rel: "noopener" }));
    if (widget.signin_affected) {
      text.appendChild(document.createTextNode(" \u00b7 "));
      text.appendChild(el("a", "Can't sign in? Contact support", {
        href: widget.support_url, target: "_blank", rel: "noopener"
      }));
    }
    var close = el("button", "\u00d7", { type: "button", "aria-label": "Dismiss the status message" });
    close.addEventListener("click", function () {
      try { sessionStorage.setItem(key, signature); } catch (e) { /* kept for this view only */ }
      host.hidden = true;
    });
    bar.appendChild(text);
    bar.appendChild(close);
    root.appendChild(el("style", css + lookCss(widget.look)));
    root.appendChild(bar);
    host.hidden = false;
  }

  function load() {
    fetch(source, { credentials: "omit", cache: "no-cache" })
      .then(function (res) { return res.ok ? res.json() : null; })
      .then(function (widget) { if (widget) render(widget); })
      .catch(function () { /* the status page is unreachable: show nothing */ })
      .then(function () { setTimeout(load, 60000); });
  }

  function place() {
    var target = script.getAttribute("data-target");
    var parent = (target && document.querySelector(target)) || document.body;
    if (parent === document.body && !bottom) parent.insertBefore(host, parent.firstChild);
    else parent.appendChild(host);
    load();
  }

  if (document.body) place();
  else document.addEventListener("DOMContentLoaded", place);
})();

// The browser's only state: the credential entered once, kept in sessionStorage (gone when the
// tab closes), sent on every htmx request exactly as an API client sends it.
(function () {
  "use strict";
  var KEY = "memlane.credential", TENANT = "memlane.tenant";

  function credentialHeaders() {
    var h = {};
    var c = sessionStorage.getItem(KEY);
    if (c) {
      if (/^eyJ[\w-]*\.[\w-]*\.[\w-]*$/.test(c)) h["Authorization"] = "Bearer " + c;
      else h["X-API-Key"] = c;
    }
    var t = sessionStorage.getItem(TENANT);
    if (t) h["X-Tenant-Id"] = t;
    return h;
  }

  // error pages are fragments too: show them instead of dropping them
  htmx.config.responseHandling = [{ code: "204", swap: false }, { code: "...", swap: true }];

  document.addEventListener("htmx:configRequest", function (e) {
    var h = credentialHeaders();
    for (var k in h) e.detail.headers[k] = h[k];
  });

  function showSession() {
    var status = document.getElementById("session-status");
    if (!status) return;
    var c = sessionStorage.getItem(KEY), t = sessionStorage.getItem(TENANT);
    status.textContent = c ? "credential set" + (t ? ", tenant " + t : "") : t ? "no credential, tenant " + t : "no credential (auth off)";
  }

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("session-form");
    if (form) {
      form.addEventListener("submit", function (e) {
        e.preventDefault();
        var c = form.elements["credential"].value.trim(), t = form.elements["tenant"].value.trim();
        if (c) sessionStorage.setItem(KEY, c); else sessionStorage.removeItem(KEY);
        if (t) sessionStorage.setItem(TENANT, t); else sessionStorage.removeItem(TENANT);
        form.elements["credential"].value = "";
        showSession();
        document.querySelectorAll("[data-reload]").forEach(function (el) { htmx.trigger(el, "reload"); });
      });
      form.querySelector("[data-forget]").addEventListener("click", function () {
        sessionStorage.removeItem(KEY); sessionStorage.removeItem(TENANT); showSession();
      });
    }
    showSession();
  });

  // actions post JSON to the public API with the same credential, then reload their panel
  document.addEventListener("click", function (e) {
    var btn = e.target.closest("[data-api]");
    if (!btn) return;
    e.preventDefault();
    var body = JSON.parse(btn.getAttribute("data-body"));
    var select = btn.getAttribute("data-select");
    if (select) body[btn.getAttribute("data-field")] = document.getElementById(select).value;
    var out = document.getElementById(btn.getAttribute("data-out"));
    var headers = credentialHeaders();
    headers["content-type"] = "application/json";
    var method = btn.getAttribute("data-method") || "POST";
    fetch(btn.getAttribute("data-api"), { method: method, headers: headers, body: method === "DELETE" ? undefined : JSON.stringify(body) })
      .then(function (r) { return r.json().catch(function () { return {}; }).then(function (j) { return [r.status, j]; }); })
      .then(function (res) {
        out.textContent = res[0] < 300 ? "done" : "refused (" + res[0] + "): " + (res[1].message || res[1].detail || "");
        if (res[0] < 300) {
          var panel = document.getElementById(btn.getAttribute("data-reload-target"));
          if (panel) htmx.trigger(panel, "reload");
        }
      });
  });
})();

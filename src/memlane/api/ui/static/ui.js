// The browser's only state: the credential entered once (and, with auth off, the tenant and the
// identity headers an API client would send), kept in sessionStorage (gone when the tab
// closes), sent on every htmx request and every action exactly as an API client sends it.
(function () {
  "use strict";
  var KEY = "memlane.credential";
  // session form field -> header; only sent when set (with auth on the credential decides)
  var IDENTITY = {
    tenant: "X-Tenant-Id", agent: "X-Agent-Id", user: "X-User-Id",
    session: "X-Session-Id", team: "X-Team-Id", project: "X-Project-Id", role: "X-Agent-Role"
  };

  function stored(name) { return sessionStorage.getItem("memlane." + name); }

  function credentialHeaders() {
    var h = {};
    var c = sessionStorage.getItem(KEY);
    if (c) {
      if (/^eyJ[\w-]*\.[\w-]*\.[\w-]*$/.test(c)) h["Authorization"] = "Bearer " + c;
      else h["X-API-Key"] = c;
    }
    for (var name in IDENTITY) {
      var v = stored(name);
      if (v) h[IDENTITY[name]] = v;
    }
    return h;
  }

  // error pages are fragments too: show them instead of dropping them
  htmx.config.responseHandling = [{ code: "204", swap: false }, { code: "...", swap: true }];
  // The pages run under a Content-Security-Policy allowing only these files (script-src 'self',
  // style-src 'self'): htmx must not add its own <style> element, evaluate attribute code or
  // run scripts found in fragments. Set here, before htmx starts on DOMContentLoaded.
  htmx.config.includeIndicatorStyles = false;
  htmx.config.allowEval = false;
  htmx.config.allowScriptTags = false;

  document.addEventListener("htmx:configRequest", function (e) {
    var h = credentialHeaders();
    for (var k in h) e.detail.headers[k] = h[k];
  });

  function showSession() {
    var status = document.getElementById("session-status");
    if (!status) return;
    var parts = [sessionStorage.getItem(KEY) ? "credential set" : "no credential (auth off)"];
    for (var name in IDENTITY) {
      var v = stored(name);
      if (v) parts.push(name + " " + v);
    }
    status.textContent = parts.join(", ");
  }

  function reloadPanels() {
    document.querySelectorAll("[data-reload]").forEach(function (el) { htmx.trigger(el, "reload"); });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("session-form");
    if (form) {
      for (var name in IDENTITY) {
        var field = form.elements[name];
        if (field) field.value = stored(name) || "";
      }
      form.addEventListener("submit", function (e) {
        e.preventDefault();
        var c = form.elements["credential"].value.trim();
        if (c) sessionStorage.setItem(KEY, c);
        for (var name in IDENTITY) {
          var field = form.elements[name];
          if (!field) continue;
          var v = field.value.trim();
          if (v) sessionStorage.setItem("memlane." + name, v); else sessionStorage.removeItem("memlane." + name);
        }
        form.elements["credential"].value = "";
        showSession();
        reloadPanels();
      });
      form.querySelector("[data-forget]").addEventListener("click", function () {
        sessionStorage.removeItem(KEY);
        for (var name in IDENTITY) {
          sessionStorage.removeItem("memlane." + name);
          if (form.elements[name]) form.elements[name].value = "";
        }
        showSession();
        reloadPanels();
      });
    }
    showSession();
    setUpErasure();
  });

  // one call of the public JSON API with the session's credential: [status, body]
  function callApi(url, method, body) {
    var headers = credentialHeaders();
    headers["content-type"] = "application/json";
    return fetch(url, { method: method, headers: headers, body: method === "DELETE" ? undefined : JSON.stringify(body) })
      .then(function (r) { return r.json().catch(function () { return {}; }).then(function (j) { return [r.status, j]; }); });
  }

  // every surface's error envelope: graph {error, message}, conversation {detail},
  // layers {success: false, message}, tools {success: false, errorCode, message}
  function refusal(status, body) {
    var message = body.message || body.detail || body.error || "";
    if (typeof message !== "string") message = JSON.stringify(message);
    return "refused (" + status + "): " + message;
  }

  function succeeded(status, body) { return status < 300 && body.success !== false; }

  // a result region's text, styled by outcome ("ok", "refused", or "" while asking/working)
  function show(out, text, outcome) {
    out.textContent = text;
    out.classList.remove("ok", "refused");
    if (outcome) out.classList.add(outcome);
  }

  // A destructive action asks first: the first press arms it (the label says so and the
  // result region explains), the second does it; Escape or leaving the button disarms it.
  function disarm(btn) {
    if (btn.getAttribute("data-armed") !== "1") return;
    btn.removeAttribute("data-armed");
    btn.textContent = btn.getAttribute("data-label");
  }

  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape") document.querySelectorAll("[data-armed]").forEach(disarm);
  });
  document.addEventListener("focusout", function (e) {
    if (e.target.closest && e.target.closest("[data-armed]")) disarm(e.target.closest("[data-armed]"));
  });

  // actions post JSON to the public API with the same credential, then reload their panel
  document.addEventListener("click", function (e) {
    var btn = e.target.closest("[data-api]");
    if (!btn) return;
    e.preventDefault();
    var out = document.getElementById(btn.getAttribute("data-out"));
    var ask = btn.getAttribute("data-confirm");
    if (ask && btn.getAttribute("data-armed") !== "1") {
      btn.setAttribute("data-label", btn.textContent);
      btn.setAttribute("data-armed", "1");
      btn.textContent = "Confirm: " + btn.textContent;
      show(out, ask + " Press the button again to confirm, Escape to cancel.", "");
      return;
    }
    disarm(btn);
    var body = JSON.parse(btn.getAttribute("data-body"));
    var select = btn.getAttribute("data-select");
    if (select) body[btn.getAttribute("data-field")] = document.getElementById(select).value;
    var check = btn.getAttribute("data-check") && document.getElementById(btn.getAttribute("data-check"));
    if (check) body[btn.getAttribute("data-check-field")] = check.checked;
    show(out, "working…", "");
    callApi(btn.getAttribute("data-api"), btn.getAttribute("data-method") || "POST", body).then(function (res) {
      var ok = succeeded(res[0], res[1]);
      if (ok) show(out, "done", "ok"); else show(out, refusal(res[0], res[1]), "refused");
      if (ok) {
        var panel = document.getElementById(btn.getAttribute("data-reload-target"));
        if (panel) htmx.trigger(panel, "reload");
      }
    });
  });

  // A form that writes a memory (create or edit) is a call of the public JSON API too: its
  // body is data-body with each field that names a data-json path ("nodes.0.title") filled in
  // (an empty field is left out, a checkbox is true or false, data-list splits on commas).
  function setPath(obj, path, value) {
    var keys = path.split(".");
    var at = obj;
    for (var i = 0; i < keys.length - 1; i++) {
      if (at[keys[i]] === undefined) at[keys[i]] = /^\d+$/.test(keys[i + 1]) ? [] : {};
      at = at[keys[i]];
    }
    at[keys[keys.length - 1]] = value;
  }

  function formBody(form) {
    var body = JSON.parse(form.getAttribute("data-body") || "{}");
    form.querySelectorAll("[data-json]").forEach(function (field) {
      var value;
      if (field.type === "checkbox") value = field.checked;
      else {
        value = field.value.trim();
        if (!value) return;
        if (field.hasAttribute("data-list")) value = value.split(",").map(function (v) { return v.trim(); }).filter(Boolean);
      }
      setPath(body, field.getAttribute("data-json"), value);
    });
    return body;
  }

  // the id of the memory an API call wrote: graph {nodes: [{id}]}, layers {id: "mem_…"},
  // tools {memoryId: "mem_…"}
  function writtenId(body) {
    var id = (body.nodes && body.nodes[0] && body.nodes[0].id) || body.id || body.memoryId || "";
    return String(id).replace(/^mem_/, "");
  }

  document.addEventListener("submit", function (e) {
    var form = e.target.closest && e.target.closest("form[data-api-form]");
    if (!form) return;
    e.preventDefault();
    var out = document.getElementById(form.getAttribute("data-out"));
    show(out, "working…", "");
    var body = formBody(form);
    callApi(form.getAttribute("data-api-form"), "POST", body).then(function (res) {
      if (!succeeded(res[0], res[1])) { show(out, refusal(res[0], res[1]), "refused"); return; }
      show(out, "done", "ok");
      var id = writtenId(res[1]);
      if (id && form.hasAttribute("data-open")) {
        var link = document.createElement("a");
        link.id = "written-link";
        link.href = "/ui/memory/" + encodeURIComponent(id) + "?scope=" + encodeURIComponent(body.scope || "");
        link.textContent = "Open the memory";
        out.appendChild(document.createTextNode(": "));
        out.appendChild(link);
      }
      var panel = document.getElementById(form.getAttribute("data-reload-target"));
      if (panel) htmx.trigger(panel, "reload");
    });
  });

  // The erasure page: review the subject, confirm, then POST /v1/erasure and show the receipt.
  function setUpErasure() {
    var form = document.getElementById("erasure-form");
    if (!form) return;
    var kind = form.elements["kind"], value = form.elements["value"];
    var confirmBox = document.getElementById("erasure-confirm");
    var summary = document.getElementById("erasure-summary");
    var out = document.getElementById("erasure-result");
    var FIELD = { user: "user_id", scope: "scope", agent: "agent_id" };

    function syncKind() {
      var whole = kind.value === "tenant";
      value.disabled = whole;
      value.required = !whole;
    }
    kind.addEventListener("change", syncKind);
    syncKind();

    function request() {
      var body = {};
      if (kind.value === "tenant") body.whole_tenant = true; else body[FIELD[kind.value]] = value.value.trim();
      return body;
    }

    form.addEventListener("submit", function (e) {
      e.preventDefault();
      if (kind.value !== "tenant" && !value.value.trim()) { value.focus(); return; }
      var tenant = stored("tenant");
      summary.textContent = kind.value === "tenant"
        ? "Erase everything of the whole tenant" + (tenant ? " " + tenant : " your credential names") + "?"
        : "Erase everything of " + kind.value + " “" + value.value.trim() + "”" + (tenant ? " in tenant " + tenant : "") + "?";
      show(out, "", "");
      confirmBox.hidden = false;
      document.getElementById("erasure-cancel").focus();
    });

    document.getElementById("erasure-cancel").addEventListener("click", function () {
      confirmBox.hidden = true;
      show(out, "Nothing was erased.", "");
      form.querySelector("button[type=submit]").focus();
    });

    document.getElementById("erasure-go").addEventListener("click", function () {
      confirmBox.hidden = true;
      show(out, "erasing…", "");
      callApi("/v1/erasure", "POST", request()).then(function (res) {
        if (!succeeded(res[0], res[1])) { show(out, refusal(res[0], res[1]), "refused"); return; }
        show(out, "", "ok");
        out.appendChild(receipt(res[1]));
        reloadPanels();
      });
    });
  }

  function cell(row, tag, text) {
    var el = document.createElement(tag);
    el.textContent = text;
    if (tag === "th") el.scope = "row";
    row.appendChild(el);
  }

  // counts may nest one level (nodes_by_kind): flattened to "nodes_by_kind.graph"
  function receipt(r) {
    var wrap = document.createElement("div");
    var head = document.createElement("p");
    head.id = "erasure-done";
    head.textContent = "Erased: " + r.subject.kind + " (hmac " + r.subject.hmac_sha256.slice(0, 12) + "…) of tenant "
      + r.tenant_id + " at " + r.erased_at + ", " + r.scopes + " scope(s); receipt " + r.erasure_id + ".";
    wrap.appendChild(head);
    var table = document.createElement("table");
    table.id = "erasure-counts";
    var caption = document.createElement("caption");
    caption.textContent = "What was removed, by kind";
    table.appendChild(caption);
    var body = document.createElement("tbody");
    Object.keys(r.counts).sort().forEach(function (k) {
      var v = r.counts[k];
      if (v !== null && typeof v === "object") {
        Object.keys(v).sort().forEach(function (sub) {
          var row = document.createElement("tr");
          cell(row, "th", k + " · " + sub); cell(row, "td", String(v[sub])); body.appendChild(row);
        });
      } else {
        var row = document.createElement("tr");
        cell(row, "th", k); cell(row, "td", String(v)); body.appendChild(row);
      }
    });
    table.appendChild(body);
    wrap.appendChild(table);
    return wrap;
  }
})();

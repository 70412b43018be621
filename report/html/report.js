/* apiprof-report's page (report/html/report.js), inlined into each report.
 *
 * The data (apiprof-report's rpt_html_data.c) is positional, to stay small:
 *   procs[]: {key (the pid; pid.execN for the image before an exec), pid,
 *             ppid, comm, title, clock, mode, file, wall_ns, tick_hz,
 *             dropped, start_unix_ms, threads[]}
 *   threads[]: {tid, name, state, wall_ns, funcs[], tree[]}
 *   func: [api, name, calls, timed, total_ns, self_ns, min_ns, max_ns,
 *          p50_ns, p99_ns, bytes, failures, estimated, hist[], errno{},
 *          [callers[], children[]]]   (null: not known or not declared)
 *   caller: [site, file:line, calls, total_ns, p50_ns, p99_ns, parent]
 *   child: [api.function, calls, total_ns]
 *   node: [id, parent, api.function, calls, total_ns, self_ns, site,
 *          other_calls, other_ns]     (parent 0: a root)
 *   The strings of funcs, callers, children and nodes are indexes into
 *   strings[] (each name and call site once); strings() puts them back.
 *   groups[]: [comm, [pid...], [[api.function, calls, total_ns, bytes,
 *             failures]...]]
 * The URL's hash selects what is shown: #t=KEY:TID[&f=API.FUNCTION][&z=NODE]
 * (a click sets it), so a page can be opened on a zoomed icicle.  Each time
 * the page has drawn a selection, <body data-shown> counts up. */
"use strict";
const F = {api: 0, name: 1, calls: 2, timed: 3, total: 4, self: 5, min: 6, max: 7,
           p50: 8, p99: 9, bytes: 10, fails: 11, est: 12, hist: 13, errno: 14, rel: 15};
const N = {id: 0, parent: 1, fn: 2, calls: 3, total: 4, self: 5, site: 6, ocalls: 7, ons: 8};
const COLORS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
                "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];
let D = null;
let chart = null;

function fail(msg) {
  const e = document.getElementById("errors");
  e.hidden = false;
  e.textContent += msg + "\n";
  console.error(msg);
}
window.addEventListener("error", ev => fail("page error: " + ev.message));

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const k in attrs || {}) {
    if (k === "class") e.className = attrs[k];
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), attrs[k]);
    else e.setAttribute(k, attrs[k]);
  }
  for (const c of kids) e.append(c instanceof Node ? c : String(c));
  return e;
}

function ns(v) {
  if (v === null || v === undefined) return "-";
  if (v < 1e3) return v + " ns";
  if (v < 1e6) return (v / 1e3).toFixed(2) + " us";
  if (v < 1e9) return (v / 1e6).toFixed(2) + " ms";
  return (v / 1e9).toFixed(3) + " s";
}
const num = v => (v === null || v === undefined ? "-" : String(v));
const qname = f => f[F.api] + "." + f[F.name];
const selfOf = f => (f[F.self] === null ? f[F.total] : f[F.self]);

function apiColor(api) {
  const apis = D.apis;
  if (!(api in apis)) apis[api] = COLORS[Object.keys(apis).length % COLORS.length];
  return apis[api];
}

/* --- state from the hash ------------------------------------------------ */
function state() {
  const s = {};
  for (const part of location.hash.replace(/^#/, "").split("&")) {
    const [k, v] = part.split("=");
    if (k && v !== undefined) s[k] = decodeURIComponent(v);
  }
  let proc = D.procs.find(p => s.t && p.key === s.t.split(":")[0]) || D.procs[0];
  let th = proc && (proc.threads.find(t => s.t && String(t.tid) === s.t.split(":")[1]) ||
                    proc.threads[0]);
  return {proc, th, f: s.f || null, z: s.z !== undefined ? Number(s.z) : null};
}
function go(st, changes) {
  const s = Object.assign({t: st.proc.key + ":" + st.th.tid, f: st.f, z: st.z}, changes);
  let h = "#t=" + s.t;
  if (s.f) h += "&f=" + encodeURIComponent(s.f);
  if (s.z !== null && s.z !== undefined) h += "&z=" + s.z;
  location.hash = h;
}

/* --- the run at a glance ------------------------------------------------ */
function procShare(p) {
  const by = {};
  let all = 0;
  for (const t of p.threads)
    for (const f of t.funcs) {
      by[f[F.api]] = (by[f[F.api]] || 0) + selfOf(f);
      all += selfOf(f);
    }
  const bar = el("span", {class: "share"});
  for (const api of Object.keys(by).sort()) {
    const w = all ? (100 * by[api]) / all : 0;
    bar.append(el("span", {class: "bar", style: "width:" + w + "%;background:" + apiColor(api),
                           title: api + " " + w.toFixed(1) + "% (" + ns(by[api]) + ")"}));
  }
  return bar;
}

function procLine(p, depth) {
  let calls = 0;
  for (const t of p.threads) for (const f of t.funcs) calls += f[F.calls];
  const tid = p.threads.length ? p.threads[0].tid : 0;
  return el("div", {class: "proc", style: "margin-left:" + 1.5 * depth + "em", "data-key": p.key},
            el("a", {href: "#t=" + p.key + ":" + tid}, p.key + " " + p.comm), " ",
            el("span", {class: "title"}, p.title || ""), " \u2014 ",
            "mode " + (p.mode || "?") + ", clock " + (p.clock || "?") + ", wall " +
            ns(p.wall_ns) + ", " + p.threads.length + " thread(s), " + calls + " calls",
            procShare(p));
}

function glance() {
  const box = document.getElementById("procs");
  const pids = new Set(D.procs.map(p => p.pid));
  const kids = {};
  for (const p of D.procs) {
    const parent = pids.has(p.ppid) && p.ppid !== p.pid ? p.ppid : 0;
    (kids[parent] = kids[parent] || []).push(p);
  }
  const walked = new Set(); /* an exec's images share a pid: their children once */
  const walk = (pid, depth) => {
    for (const p of kids[pid] || []) {
      box.append(procLine(p, depth));
      if (!walked.has(p.pid)) {
        walked.add(p.pid);
        walk(p.pid, depth + 1);
      }
    }
  };
  walk(0, 0);
  const legend = el("div", {class: "legend"}, "time share by api (self time): ");
  for (const api of Object.keys(D.apis).sort())
    legend.append(el("span", {}, el("span", {class: "bar", style: "width:1em;background:" +
                                                                 D.apis[api]}), " " + api));
  box.append(legend);
  const threads = D.procs.reduce((n, p) => n + p.threads.length, 0);
  document.getElementById("summary").textContent =
          D.procs.length + " process(es), " + threads + " thread(s)";
}

function groups() {
  if (!D.groups.length) return;
  document.getElementById("groups-section").hidden = false;
  const box = document.getElementById("groups");
  for (const [comm, pids, rows] of D.groups) {
    box.append(el("h3", {}, comm + " (" + pids.length + " processes: " + pids.join(", ") + ")"));
    const t = el("table", {class: "sortable group", "data-comm": comm});
    sortable(t, ["function", "calls", "total", "avg", "bytes", "failures"],
             rows.map(r => [r[0], r[1], r[2], r[1] ? Math.round(r[2] / r[1]) : null, r[3], r[4]]),
             [null, num, ns, ns, num, num], {by: 2});
    box.append(t);
  }
}

/* --- a sortable table --------------------------------------------------- */
/* opts: by (the column sorted first), onrow (a row's click), cls (a cell's
 * class, from its row and column). */
function sortable(table, heads, rows, fmts, opts) {
  const {by, onrow, cls} = opts;
  let key = by, desc = true;
  const draw = () => {
    table.textContent = "";
    const hr = el("tr");
    heads.forEach((h, i) => hr.append(el("th", {class: i ? "" : "name", onclick: () => {
      desc = key === i ? !desc : true;
      key = i;
      draw();
    }}, h + (key === i ? (desc ? " \u25be" : " \u25b4") : ""))));
    table.append(hr);
    const sorted = rows.slice().sort((a, b) => {
      const x = a[key] === null ? -1 : a[key], y = b[key] === null ? -1 : b[key];
      return (x < y ? -1 : x > y ? 1 : 0) * (desc ? -1 : 1);
    });
    for (const r of sorted) {
      const tr = el("tr", onrow ? {onclick: () => onrow(r)} : {});
      r.slice(0, heads.length).forEach((v, i) => {
        const c = cls ? cls(r, i) : "";
        tr.append(el("td", {class: (i ? "" : "name ") + c, "data-v": v === null ? "" : v},
                     fmts[i] ? fmts[i](v) : v));
      });
      table.append(tr);
    }
  };
  draw();
}

/* --- one thread --------------------------------------------------------- */
function funcTable(st) {
  const rows = st.th.funcs.map(f => [qname(f), f[F.calls], f[F.total], f[F.self],
                                     f[F.timed] ? Math.round(f[F.total] / f[F.calls]) : null,
                                     f[F.p50], f[F.p99], f[F.max], f[F.bytes], f[F.fails], f]);
  /* The viewer's cutoffs: a p99 ten times the p50 stands out, failures too. */
  const cls = (r, i) => (i === 6 && r[5] && r[6] > 10 * r[5] ? "warn" :
                         i === 9 && r[9] ? "bad" : i === 2 && r[11][F.est] ? "est" : "");
  const wall = st.proc.wall_ns;
  rows.forEach(r => r.splice(10, 0, wall ? (100 * r[2]) / wall : null));
  /* apiprof-top's row colours: >= 10% of the wall time hot, >= 1% warm,
   * under 0.1% dim. */
  const heat = r => (r[10] === null ? "" : r[10] >= 10 ? " hot" : r[10] >= 1 ? " warm" :
                     r[10] < 0.1 ? " dim" : "");
  const pct = v => (v === null ? "-" : v.toFixed(2) + "%");
  sortable(document.getElementById("funcs"),
           ["function", "calls", "total", "self", "avg", "p50", "p99", "max", "bytes", "failures",
            "% wall"],
           rows, [null, num, ns, ns, ns, ns, ns, ns, num, num, pct],
           {by: 2, onrow: r => go(st, {f: r[0]}), cls: (r, i) => cls(r, i) + heat(r)});
}

function histogram(box, f, tickHz) {
  const h = f[F.hist];
  const toNs = t => (t * 1e9) / (tickHz || 1e9);
  const inBucket = (v, b) => v !== null && v >= toNs(2 ** b) && v < toNs(2 ** (b + 1));
  const labels = h.map((_, b) => ns(Math.round(toNs(2 ** b))));
  const colors = h.map((_, b) => (inBucket(f[F.p99], b) ? "#e15759" :
                                  inBucket(f[F.p50], b) ? "#4e79a7" : "#bab0ac"));
  const canvas = el("canvas", {id: "hist", "data-buckets": h.join(",")});
  box.append(el("p", {}, "latency histogram (log2 buckets, from): p50 " + ns(f[F.p50]) +
                         " (blue), p99 " + ns(f[F.p99]) + " (red)"), canvas);
  if (chart) chart.destroy();
  chart = new Chart(canvas, {type: "bar", data: {labels, datasets: [
            {label: "calls", data: h, backgroundColor: colors}]},
            options: {animation: false, plugins: {legend: {display: false}}}});
}

function detail(st) {
  const box = document.getElementById("detail");
  box.textContent = "";
  const f = st.th.funcs.find(x => qname(x) === st.f) ||
            st.th.funcs.slice().sort((a, b) => b[F.total] - a[F.total])[0];
  if (!f) return;
  box.append(el("h3", {id: "detail-name"}, qname(f)));
  histogram(box, f, st.proc.tick_hz);
  const [callers, children] = f[F.rel];
  box.append(el("h4", {}, "callers"));
  const ct = el("table", {id: "callers"});
  sortable(ct, ["call site", "line", "calls", "total", "p50", "p99", "in"], callers,
           [null, v => v || "", num, ns, ns, ns, v => v || ""], {by: 2});
  box.append(ct, el("h4", {}, "children"));
  const kt = el("table", {id: "children"});
  sortable(kt, ["function", "calls", "total"], children, [null, num, ns], {by: 2});
  box.append(kt);
  if (f[F.errno]) {
    const et = el("table", {id: "errno"});
    sortable(et, ["errno", "calls"], Object.entries(f[F.errno]), [null, num], {by: 1});
    box.append(el("h4", {}, "errno"), et);
  }
}

function kidsOf(nodes) {
  const kids = {};
  for (const n of nodes) if (n[N.id] !== 0) (kids[n[N.parent]] = kids[n[N.parent]] || []).push(n);
  for (const k in kids) kids[k].sort((a, b) => b[N.total] - a[N.total]);
  return kids;
}

function treeRow(n) {
  return el("span", {class: "row"}, n[N.fn] + "  calls " + n[N.calls] + "  total " +
            ns(n[N.total]) + "  self " + ns(n[N.self]) + (n[N.site] ? "  from " + n[N.site] : ""));
}

function tree(st) {
  const box = document.getElementById("tree");
  box.textContent = "";
  const kids = kidsOf(st.th.tree);
  const build = id => {
    const ul = el("ul");
    for (const n of kids[id] || []) {
      const has = (kids[n[N.id]] || []).length || n[N.ocalls];
      const li = el("li", {"data-node": n[N.id], "data-calls": n[N.calls],
                           "data-total": n[N.total], "data-self": n[N.self]});
      li.append(el("span", {class: "tog", onclick: () => li.classList.toggle("fold")},
                    has ? "\u25be" : " "), treeRow(n));
      if (has) li.append(build(n[N.id]));
      ul.append(li);
    }
    const self = st.th.tree.find(n => n[N.id] === id);
    if (self && self[N.ocalls])
      ul.append(el("li", {class: "other", "data-calls": self[N.ocalls]},
                   "(other paths: calls " + self[N.ocalls] + ", total " + ns(self[N.ons]) + ")"));
    return ul;
  };
  const t = el("div", {class: "tree"}, build(0));
  if (!st.th.tree.length) t.append("(no calling contexts recorded)");
  box.append(t);
}

/* --- the icicle: the recorded contexts only, never synthesized ---------- */
function flame(st) {
  const box = document.getElementById("flame");
  box.textContent = "";
  const nodes = st.th.tree.filter(n => n[N.id] !== 0);
  const kids = kidsOf(nodes);
  const byId = {};
  for (const n of nodes) byId[n[N.id]] = n;
  const zoom = st.z !== null && byId[st.z] ? byId[st.z] : null;
  const rootTotal = zoom ? zoom[N.total] : (kids[0] || []).reduce((s, n) => s + n[N.total], 0);
  const W = 1000, H = 18;
  let depthMax = 0;
  const rects = [];
  const place = (n, x, depth, scale) => {
    const w = n[N.total] * scale;
    if (w < 0.5) return;
    depthMax = Math.max(depthMax, depth);
    rects.push([n, x, depth, w]);
    let cx = x;
    for (const k of kids[n[N.id]] || []) {
      place(k, cx, depth + 1, scale);
      cx += k[N.total] * scale;
    }
  };
  const scale = rootTotal ? W / rootTotal : 0;
  if (zoom) place(zoom, 0, 1, scale);
  else {
    let x = 0;
    for (const n of kids[0] || []) {
      place(n, x, 1, scale);
      x += n[N.total] * scale;
    }
  }
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 " + W + " " + (depthMax + 1) * H);
  svg.setAttribute("data-zoom", zoom ? zoom[N.id] : "");
  const box1 = (label, x, y, w, color, node, onclick) => {
    const g = document.createElementNS(svg.namespaceURI, "g");
    if (node !== null) g.setAttribute("data-node", node);
    g.setAttribute("data-width", w.toFixed(1));
    g.addEventListener("click", onclick);
    const r = document.createElementNS(svg.namespaceURI, "rect");
    for (const [k, v] of [["x", x], ["y", y], ["width", w], ["height", H - 1], ["fill", color]])
      r.setAttribute(k, v);
    const tt = document.createElementNS(svg.namespaceURI, "title");
    tt.textContent = label;
    const tx = document.createElementNS(svg.namespaceURI, "text");
    tx.setAttribute("x", x + 3);
    tx.setAttribute("y", y + H - 5);
    tx.textContent = w > 40 ? label.slice(0, Math.floor(w / 7)) : "";
    g.append(r, tt, tx);
    svg.append(g);
  };
  const up = zoom ? (zoom[N.parent] ? zoom[N.parent] : null) : null;
  box1(zoom ? "zoomed on " + zoom[N.fn] + " (click: out)" : "all (" + ns(rootTotal) + ")",
       0, 0, W, "#ddd", null, () => go(st, {z: up}));
  for (const [n, x, depth, w] of rects)
    box1(n[N.fn] + ": calls " + n[N.calls] + ", total " + ns(n[N.total]) + ", self " +
         ns(n[N.self]), x, depth * H, w, apiColor(n[N.fn].split(".")[0]), n[N.id],
         () => go(st, {z: n[N.id]}));
  box.append(svg);
}

/* Preshing's line per api, as APIPROF_SUMMARY prints it: time spent in
 * the api's functions (their totals added) over the thread's wall time. */
function preshing(st) {
  const box = document.getElementById("preshing");
  box.textContent = "";
  const by = {};
  for (const f of st.th.funcs) {
    const a = (by[f[F.api]] = by[f[F.api]] || [0, 0]);
    a[0] += f[F.total];
    a[1] += f[F.calls];
  }
  const wall = st.th.wall_ns;
  for (const api of Object.keys(by).sort())
    box.append(el("div", {class: "preshing", "data-api": api, "data-calls": by[api][1]},
                  "time spent in \"" + api + "\": " + ns(by[api][0]) + "/" + ns(wall) + " " +
                  (wall ? ((100 * by[api][0]) / wall).toFixed(1) + "%" : "-") + " " +
                  by[api][1] + "x"));
}

function threadNav(st) {
  document.getElementById("thread-title").textContent = st.proc.key + " " + st.proc.comm +
          " / " + st.th.tid + " " + st.th.name + " (" + st.th.state + ")";
  const nav = document.getElementById("thread-nav");
  nav.textContent = "";
  for (const t of st.proc.threads)
    nav.append(el("a", {href: "#t=" + st.proc.key + ":" + t.tid,
                        class: t === st.th ? "cur" : ""}, t.tid + " " + t.name));
}

function show() {
  const st = state();
  if (!st.proc || !st.th) return;
  threadNav(st);
  preshing(st);
  funcTable(st);
  detail(st);
  tree(st);
  flame(st);
  document.body.dataset.shown = String(Number(document.body.dataset.shown || 0) + 1);
}

function strings() {
  const S = D.strings;
  const at = i => (i === null ? null : S[i]);
  for (const p of D.procs)
    for (const t of p.threads) {
      for (const f of t.funcs) {
        f[F.api] = at(f[F.api]);
        f[F.name] = at(f[F.name]);
        for (const c of f[F.rel][0]) [c[0], c[1], c[6]] = [at(c[0]), at(c[1]), at(c[6])];
        for (const k of f[F.rel][1]) k[0] = at(k[0]);
      }
      for (const n of t.tree) [n[N.fn], n[N.site]] = [at(n[N.fn]), at(n[N.site])];
    }
}

function main() {
  try {
    D = JSON.parse(document.getElementById("apiprof-data").textContent);
    strings();
    D.apis = {};
    glance();
    groups();
    show();
    window.addEventListener("hashchange", show);
    document.body.setAttribute("data-ready", "1");
    document.body.setAttribute("data-ms", String(Math.round(performance.now())));
  } catch (e) {
    fail("page error: " + e.message);
  }
}
main();

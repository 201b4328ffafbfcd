// loadshift's HTML report: renders the page from the JSON document embedded in it (the script
// element of type application/json whose id is loadshift-data; docs/report.md#html). No network,
// no external asset. The node map, the moves, the skipped pods (grouped, filtered, shown a page
// at a time so that 150,000 of them stay fast), the notes; for a simulation its chart and every
// move; for explain the pod's plugins, verdicts and landing.
"use strict";
(function () {
  const started = performance.now();
  const D = JSON.parse(document.getElementById("loadshift-data").textContent);
  const R = D.report;
  const PAGE = 200; // rows shown at a time in a skip group or a long table
  const TILE_LIMIT = 60; // up to this many nodes: cards with names and figures; more: tiles

  // ---------- small helpers ----------
  function el(tag, attrs, children) {
    const e = document.createElement(tag);
    if (attrs) {
      for (const k of Object.keys(attrs)) {
        const v = attrs[k];
        if (v === null || v === undefined || v === false) continue;
        if (k === "text") e.textContent = v;
        else if (k === "class") e.className = v;
        else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
        else e.setAttribute(k, v === true ? "" : String(v));
      }
    }
    if (children) for (const c of children) if (c !== null && c !== undefined) e.append(c);
    return e;
  }
  const $ = (id) => document.getElementById(id);
  function pct(v) {
    return v === null || v === undefined ? "unknown" : v.toFixed(1) + "%";
  }
  // A watermark: "30%", "82.5%".
  function mark(v) {
    return v === null || v === undefined ? "none" : `${Number.isInteger(v) ? v : v.toFixed(1)}%`;
  }
  function phraseOf(reason) {
    const i = reason.indexOf(": ");
    return i < 0 ? reason : reason.slice(0, i);
  }
  function cmp(a, b) {
    return a < b ? -1 : a > b ? 1 : 0;
  }
  // Usage -> colour: a sequential ramp (light yellow, orange, dark red), the same in both themes.
  const RAMP = [
    [0, [255, 255, 204]],
    [25, [254, 217, 118]],
    [50, [253, 141, 60]],
    [75, [227, 26, 28]],
    [100, [128, 0, 38]],
  ];
  function rampRGB(v) {
    const x = Math.max(0, Math.min(100, v));
    for (let i = 1; i < RAMP.length; i++) {
      if (x <= RAMP[i][0]) {
        const [x0, c0] = RAMP[i - 1];
        const [x1, c1] = RAMP[i];
        const t = (x - x0) / (x1 - x0);
        return c0.map((c, j) => Math.round(c + (c1[j] - c) * t));
      }
    }
    return RAMP[RAMP.length - 1][1];
  }
  // WCAG's relative luminance of an sRGB colour.
  function luminance([r, g, b]) {
    const f = (c) => {
      c /= 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  }
  // The cell's colour for a usage, and black or white text, whichever contrasts more.
  function usageStyle(v) {
    if (v === null || v === undefined) return { bg: "var(--unknown)", fg: "#000" };
    const rgb = rampRGB(v);
    const l = luminance(rgb);
    return { bg: `rgb(${rgb.join(",")})`, fg: (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? "#000" : "#fff" };
  }
  // For the browser test: the colours the map uses.
  Object.defineProperty(window, "loadshiftReport", { value: Object.freeze({ usageStyle }) });

  // ---------- the theme ----------
  const root = document.documentElement;
  function setTheme(t) {
    root.dataset.theme = t;
    $("theme-toggle").textContent = t === "dark" ? "Light theme" : "Dark theme";
    $("theme-toggle").setAttribute("aria-pressed", t === "dark" ? "true" : "false");
  }
  // The reader's setting, followed when it changes, until the button chooses.
  const scheme = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  let chosen = false;
  setTheme(scheme && scheme.matches ? "dark" : "light");
  if (scheme && scheme.addEventListener) {
    scheme.addEventListener("change", (e) => {
      if (!chosen) setTheme(e.matches ? "dark" : "light");
    });
  }
  $("theme-toggle").addEventListener("click", () => {
    chosen = true;
    setTheme(root.dataset.theme === "dark" ? "light" : "dark");
  });

  // ---------- the nodes and their topology ----------
  const nodes = R.nodes;
  const nodeIndex = new Map(nodes.map((n, i) => [n.name, i]));
  const domains = D.domains || [];
  const nodeDomains = D.nodeDomains || [];
  const watermarks = D.watermarkSets || [];
  const nodeWatermarks = D.nodeWatermarks || [];
  function marks(i, resource) {
    const w = watermarks[nodeWatermarks[i]];
    if (!w) return [null, null];
    if (resource === "metric") return [w[4], w[5]];
    return resource === "memory" ? [w[2], w[3]] : [w[0], w[1]];
  }
  const outOf = nodes.map(() => []);
  const into = nodes.map(() => []);
  R.evictions.forEach((e, k) => {
    const s = nodeIndex.get(e.node);
    if (s !== undefined) outOf[s].push(k);
    const t = nodeIndex.get(e.landing || e.target);
    if (t !== undefined) into[t].push(k);
  });
  const skipsOn = new Map();
  for (const s of R.skipped) skipsOn.set(s.node, (skipsOn.get(s.node) || 0) + 1);

  // ---------- header: title, time, summary ----------
  document.title = D.title;
  $("title").textContent = D.title;
  const metaBits = [];
  if (D.at) metaBits.push("evaluated at " + D.at);
  if (D.usageOrigin) metaBits.push("usage: " + D.usageOrigin);
  if (D.generator) metaBits.push(D.generator);
  $("meta").textContent = metaBits.join(" · ");
  $("status").textContent = D.status || "";
  $("status").hidden = !D.status;
  const S = R.summary;
  const appropriate = nodes.filter((n) => n.class === "appropriate").length;
  const cards = [
    ["evictions", S.evictions, ""],
    ["overutilized", S.overutilized, "over"],
    ["underutilized", S.underutilized, "under"],
    ["appropriate", appropriate, ""],
    ["unknown", S.unknown, ""],
    ["unclassified", S.unclassified, ""],
    ["skipped pods", R.skipped.length, ""],
    ["nodes", nodes.length, ""],
  ];
  const cardList = $("summary-cards");
  for (const [label, n, cls] of cards) {
    cardList.append(
      el("li", { class: cls, "data-summary": label }, [el("span", { class: "n", text: String(n) }), label])
    );
  }
  $("summary-line").textContent = D.summaryLine;

  // ---------- the node map ----------
  const tiles = nodes.length > TILE_LIMIT;
  const map = $("map");
  map.className = tiles ? "tiles" : "cards-mode";
  const state = {
    resource: "cpu",
    when: "after",
    group: domains.length > 0 ? "hypernode" : "pool",
    cycle: null, // simulation: the cycle whose usage colours the map
    selected: null,
    feasibility: false, // explain: colour by "a new copy fits"
  };
  const hasMetric = nodes.some((n) => n.figures === "MetricResource");
  if (hasMetric && nodes.every((n) => n.figures === "MetricResource")) state.resource = "metric";
  const cells = new Array(nodes.length);

  function value(i) {
    const n = nodes[i];
    if (state.cycle !== null && D.simulation) {
      // (A simulation has cpu and memory per cycle; MetricResource shows as cpu there.)
      const c = D.simulation.perCycle[state.cycle];
      const v = (state.resource === "memory" ? c.memoryByNode : c.cpuByNode)[simIndex[i]];
      return v === undefined ? null : v;
    }
    if (state.resource === "metric") return n.metricResource;
    if (state.resource === "memory") return state.when === "before" ? n.memory : n.memoryAfter;
    return state.when === "before" ? n.cpu : n.cpuAfter;
  }
  const simPosition = new Map(D.simulation ? D.simulation.nodes.map((name, k) => [name, k]) : []);
  const simIndex = nodes.map((n) => (simPosition.has(n.name) ? simPosition.get(n.name) : -1));
  const explainFeasible = new Map();
  if (D.explain) for (const v of D.explain.nodes) explainFeasible.set(v.node, v.feasible);

  function cellLabel(i) {
    const n = nodes[i];
    const [lo, hi] = marks(i, "cpu");
    const [mlo, mhi] = marks(i, "memory");
    let s = `${n.name}: ${n.class}`;
    if (n.pool) s += `, pool ${n.pool}`;
    if (n.figures === "MetricResource") {
      const [xlo, xhi] = marks(i, "metric");
      s += `, metric ${pct(n.metricResource)}`;
      if (xlo !== null || xhi !== null) s += ` (watermarks ${pct(xlo)} / ${pct(xhi)})`;
    }
    else {
      s += `, cpu ${pct(n.cpu)} → ${pct(n.cpuAfter)}`;
      if (lo !== null || hi !== null) s += ` (watermarks ${pct(lo)} / ${pct(hi)})`;
      s += `, memory ${pct(n.memory)} → ${pct(n.memoryAfter)}`;
      if (mlo !== null || mhi !== null) s += ` (${pct(mlo)} / ${pct(mhi)})`;
    }
    if (outOf[i].length) s += `, ${outOf[i].length} pod(s) leave`;
    if (into[i].length) s += `, ${into[i].length} pod(s) arrive`;
    return s;
  }
  function classShort(c) {
    return c === "overutilized" ? "over" : c === "underutilized" ? "under" : c;
  }
  function makeCell(i) {
    const n = nodes[i];
    const b = el("button", {
      type: "button",
      class: "cell " + classShort(n.class),
      "data-node": n.name,
      "data-class": n.class,
      "aria-label": cellLabel(i),
      tabindex: "-1",
    });
    if (tiles) b.title = cellLabel(i);
    else {
      b.append(el("span", { class: "nm", text: n.name }));
      b.append(el("span", { class: "cls", text: n.class + (n.pool ? " · " + n.pool : "") }));
      b.append(el("span", { class: "fig" }));
    }
    b.addEventListener("click", () => select(i));
    cells[i] = b;
    return b;
  }
  function paintCell(i) {
    const b = cells[i];
    const v = value(i);
    let st = usageStyle(v);
    if (state.feasibility) {
      const f = explainFeasible.get(nodes[i].name);
      st = f ? { bg: "#2da44e", fg: "#000" } : { bg: "var(--unknown)", fg: "#000" };
    }
    b.style.background = st.bg;
    b.style.color = st.fg;
    b.classList.toggle("unknown", v === null && !state.feasibility);
    if (!tiles) {
      const n = nodes[i];
      const fig = b.querySelector(".fig");
      if (state.cycle !== null) fig.textContent = `${state.resource === "memory" ? "memory" : "cpu"} ${pct(v)} (cycle ${state.cycle})`;
      else if (state.resource === "metric") {
        const [lo, hi] = marks(i, "metric");
        fig.textContent = `metric ${pct(n.metricResource)}`;
        if (lo !== null || hi !== null) fig.textContent += `\nwatermarks ${mark(lo)} / ${mark(hi)}`;
      }
      else {
        const before = state.resource === "memory" ? n.memory : n.cpu;
        const after = state.resource === "memory" ? n.memoryAfter : n.cpuAfter;
        const [lo, hi] = marks(i, state.resource);
        fig.textContent = `${state.resource} ${pct(before)} → ${pct(after)}`;
        if (lo !== null || hi !== null) fig.textContent += `\nwatermarks ${mark(lo)} / ${mark(hi)}`;
      }
    }
  }
  function paintAll() {
    for (let i = 0; i < nodes.length; i++) paintCell(i);
  }

  // Groups: by usage pool (then by rack when there are HyperNodes), or by the HyperNode tree.
  function layout() {
    map.textContent = "";
    for (let i = 0; i < nodes.length; i++) if (!cells[i]) makeCell(i);
    const order = nodes.map((_, i) => i);
    if (state.group === "none") {
      map.append(group("all nodes", order));
    } else if (state.group === "pool") {
      const pools = new Map();
      for (const i of order) {
        const p = nodes[i].pool || "(no pool label)";
        if (!pools.has(p)) pools.set(p, []);
        pools.get(p).push(i);
      }
      const row = el("div", { class: "groups-row" });
      for (const p of [...pools.keys()].sort(cmp)) row.append(group("pool " + p, pools.get(p)));
      map.append(row);
    } else {
      // A tree of the nodes' HyperNodes, highest tier first; nodes in none under "(no HyperNode)".
      const top = { children: new Map(), nodes: [] };
      for (const i of order) {
        const path = nodeDomains[i] || [];
        let t = top;
        for (const d of path) {
          if (!t.children.has(d)) t.children.set(d, { children: new Map(), nodes: [] });
          t = t.children.get(d);
        }
        if (path.length === 0) {
          if (!top.children.has(-1)) top.children.set(-1, { children: new Map(), nodes: [] });
          top.children.get(-1).nodes.push(i);
        } else t.nodes.push(i);
      }
      const build = (t) => {
        const row = el("div", { class: "groups-row" });
        const keys = [...t.children.keys()].sort((a, b) =>
          a === -1 ? 1 : b === -1 ? -1 : cmp(domains[a].name, domains[b].name)
        );
        const under = (c) => {
          let all = c.nodes.slice();
          for (const d of c.children.values()) all = all.concat(under(d));
          return all;
        };
        for (const k of keys) {
          const c = t.children.get(k);
          const name = k === -1 ? "(no HyperNode)" : `${domains[k].name} (tier ${domains[k].tier})`;
          const g = group(name, c.nodes, under(c));
          if (c.children.size) g.append(build(c));
          row.append(g);
        }
        return row;
      };
      map.append(build(top));
    }
    const first = state.selected !== null ? state.selected : 0;
    if (cells[first]) cells[first].tabIndex = 0;
    requestAnimationFrame(drawArrows);
  }
  // A group of the map: `members` drawn in it, `all` (members and its subgroups' nodes) counted.
  function group(name, members, all) {
    all = all || members;
    const over = all.filter((i) => nodes[i].class === "overutilized").length;
    const under = all.filter((i) => nodes[i].class === "underutilized").length;
    const g = el("section", { class: "group", "aria-label": name }, [
      el("p", {
        class: "gname",
        text: `${name} — ${all.length} node(s)` + (over ? `, ${over} over` : "") + (under ? `, ${under} under` : ""),
      }),
    ]);
    if (members.length) {
      const list = el("div", { class: "cells", role: "group" });
      members.sort((a, b) => cmp(nodes[a].name, nodes[b].name));
      for (const i of members) list.append(cells[i]);
      g.append(list);
    }
    return g;
  }

  // Keyboard: one tab stop for the whole map; arrows move, Home/End jump, Enter/Space select.
  map.addEventListener("keydown", (ev) => {
    const t = ev.target;
    if (!t.classList || !t.classList.contains("cell")) return;
    const all = [...map.querySelectorAll(".cell")];
    const at = all.indexOf(t);
    let next = -1;
    if (ev.key === "ArrowRight" || ev.key === "ArrowDown") next = Math.min(all.length - 1, at + 1);
    else if (ev.key === "ArrowLeft" || ev.key === "ArrowUp") next = Math.max(0, at - 1);
    else if (ev.key === "Home") next = 0;
    else if (ev.key === "End") next = all.length - 1;
    if (next >= 0) {
      ev.preventDefault();
      t.tabIndex = -1;
      all[next].tabIndex = 0;
      all[next].focus();
    }
  });

  // Arrows from each eviction's node to its target (solid) and to the predicted landing (dashed).
  function drawArrows() {
    const svg = $("map-arrows");
    const wrap = $("map-wrap");
    svg.textContent = "";
    const box = wrap.getBoundingClientRect();
    svg.setAttribute("width", String(Math.ceil(box.width)));
    svg.setAttribute("height", String(Math.ceil(box.height)));
    const mode = $("show-moves").value;
    if (mode === "none" || state.cycle !== null) return;
    const sel = state.selected;
    const ns = "http://www.w3.org/2000/svg";
    const defs = document.createElementNS(ns, "defs");
    for (const [id, colour] of [["ah", "var(--move)"], ["ahl", "var(--landing)"]]) {
      const m = document.createElementNS(ns, "marker");
      m.setAttribute("id", id);
      m.setAttribute("viewBox", "0 0 10 10");
      m.setAttribute("refX", "9");
      m.setAttribute("refY", "5");
      m.setAttribute("markerWidth", "6");
      m.setAttribute("markerHeight", "6");
      m.setAttribute("orient", "auto-start-reverse");
      const p = document.createElementNS(ns, "path");
      p.setAttribute("d", "M0,0 L10,5 L0,10 z");
      p.setAttribute("fill", colour);
      m.append(p);
      defs.append(m);
    }
    svg.append(defs);
    const centre = new Map();
    const at = (i) => {
      if (!centre.has(i)) {
        const r = cells[i].getBoundingClientRect();
        centre.set(i, [r.left - box.left + r.width / 2, r.top - box.top + r.height / 2]);
      }
      return centre.get(i);
    };
    const pairs = new Map();
    for (const e of R.evictions) {
      const s = nodeIndex.get(e.node);
      for (const [to, dashed] of [[e.target, false], [e.landing, true]]) {
        const t = to ? nodeIndex.get(to) : undefined;
        if (s === undefined || t === undefined || s === t) continue;
        if (mode === "selected" && s !== sel && t !== sel) continue;
        const key = `${s}>${t}>${dashed}`;
        pairs.set(key, [s, t, dashed, (pairs.has(key) ? pairs.get(key)[3] : 0) + 1]);
      }
    }
    for (const [s, t, dashed, count] of pairs.values()) {
      const [x1, y1] = at(s);
      const [x2, y2] = at(t);
      const line = document.createElementNS(ns, "line");
      line.setAttribute("x1", x1.toFixed(1));
      line.setAttribute("y1", y1.toFixed(1));
      line.setAttribute("x2", x2.toFixed(1));
      line.setAttribute("y2", y2.toFixed(1));
      line.setAttribute("stroke", dashed ? "var(--landing)" : "var(--move)");
      line.setAttribute("stroke-width", String(Math.min(5, 1.5 + Math.log2(count))));
      line.setAttribute("stroke-opacity", "0.75");
      if (dashed) line.setAttribute("stroke-dasharray", "5 4");
      line.setAttribute("marker-end", dashed ? "url(#ahl)" : "url(#ah)");
      svg.append(line);
    }
  }
  let resizeTimer = 0;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(drawArrows, 100);
  });

  // The selected node's figures, watermarks and moves.
  function bar(before, after, lo, hi) {
    const b = el("span", { class: "bar", "aria-hidden": "true" });
    const w = (v) => Math.max(0, Math.min(100, v)) + "%";
    if (before !== null) b.append(el("span", { class: "b", style: `width:${w(before)}` }));
    if (after !== null) b.append(el("span", { class: "a", style: `width:${w(after)}` }));
    if (lo !== null) b.append(el("span", { class: "wm lo", style: `left:${w(lo)}` }));
    if (hi !== null) b.append(el("span", { class: "wm hi", style: `left:${w(hi)}` }));
    return b;
  }
  function select(i) {
    if (state.selected !== null && cells[state.selected]) cells[state.selected].classList.remove("selected");
    state.selected = i;
    const c = cells[i];
    c.classList.add("selected");
    if ($("show-moves").value === "selected") requestAnimationFrame(drawArrows);
    for (const x of cells) if (x) x.tabIndex = -1;
    c.tabIndex = 0;
    const n = nodes[i];
    const box = $("node-detail");
    box.textContent = "";
    box.append(el("h3", { text: n.name }));
    const path = (nodeDomains[i] || []).map((d) => domains[d].name).join(" › ");
    box.append(
      el("p", {}, [
        el("span", { class: "tag " + classShort(n.class), text: n.class }),
        ` pool ${n.pool || "none"}` + (path ? ` · HyperNodes ${path}` : "") + ` · figures: ${n.figures}`,
      ])
    );
    if (n.figures === "MetricResource") {
      const [lo, hi] = marks(i, "metric");
      box.append(
        el("p", {}, [
          `MetricResource: ${pct(n.metricResource)} `,
          bar(n.metricResource, null, lo, hi),
          ` thresholds ${pct(lo)}, targetThresholds ${pct(hi)}`,
        ])
      );
    } else {
      for (const r of ["cpu", "memory"]) {
        const before = r === "cpu" ? n.cpu : n.memory;
        const after = r === "cpu" ? n.cpuAfter : n.memoryAfter;
        const [lo, hi] = marks(i, r);
        box.append(
          el("p", {}, [
            `${r}: ${pct(before)} → ${pct(after)} `,
            bar(before, after, lo, hi),
            ` thresholds ${pct(lo)}, targetThresholds ${pct(hi)}`,
          ])
        );
      }
    }
    const moves = [];
    for (const k of outOf[i]) moves.push(`${R.evictions[k].namespace}/${R.evictions[k].pod} → ${R.evictions[k].landing || R.evictions[k].target || "nowhere"}`);
    for (const k of into[i]) moves.push(`${R.evictions[k].namespace}/${R.evictions[k].pod} ← ${R.evictions[k].node}`);
    if (moves.length) box.append(el("ul", {}, moves.map((m) => el("li", { text: m }))));
    const skipped = skipsOn.get(n.name) || 0;
    if (skipped) {
      box.append(
        el("button", {
          type: "button",
          text: `Show the ${skipped} skipped pod(s) of ${n.name}`,
          onclick: () => {
            $("f-node").value = n.name;
            applyFilters();
            $("skipped").scrollIntoView();
          },
        })
      );
    }
  }

  // Map controls.
  $("m-resource").value = state.resource;
  if (!hasMetric) $("m-resource").querySelector('option[value="metric"]').remove();
  $("m-resource").addEventListener("change", (e) => {
    state.resource = e.target.value;
    paintAll();
  });
  $("m-when").addEventListener("change", (e) => {
    state.when = e.target.value;
    paintAll();
  });
  $("m-group").value = state.group;
  if (domains.length === 0) $("m-group").querySelector('option[value="hypernode"]').remove();
  $("m-group").addEventListener("change", (e) => {
    state.group = e.target.value;
    layout();
  });
  // Hundreds of arrows hide the map: beyond 200 evictions, only the selected node's are drawn.
  $("show-moves").value = R.evictions.length > 200 ? "selected" : "all";
  $("show-moves").addEventListener("change", drawArrows);
  $("ramp").style.background = `linear-gradient(to right, ${RAMP.map(([x, c]) => `rgb(${c.join(",")}) ${x}%`).join(", ")})`;

  // ---------- filters shared by the evictions and the skipped pods ----------
  const namespaces = new Set();
  const strategies = new Set();
  for (const e of R.evictions) {
    namespaces.add(e.namespace);
    strategies.add(e.strategy);
  }
  for (const s of R.skipped) {
    namespaces.add(s.namespace);
    if (s.strategy) strategies.add(s.strategy);
  }
  for (const ns of [...namespaces].sort(cmp)) $("f-namespace").append(el("option", { value: ns, text: ns }));
  for (const st of [...strategies].sort(cmp)) $("f-strategy").append(el("option", { value: st, text: st }));
  const nodeList = $("f-node-list");
  if (nodes.length <= 5000) for (const n of nodes) nodeList.append(el("option", { value: n.name }));
  const filter = { text: "", namespace: "", node: "", strategy: "" };
  function matches(row) {
    if (filter.namespace && row.namespace !== filter.namespace) return false;
    if (filter.node && row.node !== filter.node && row.target !== filter.node && row.landing !== filter.node) return false;
    if (filter.strategy && row.strategy !== filter.strategy) return false;
    if (filter.text) {
      const hay = `${row.namespace}/${row.pod} ${row.node || ""} ${row.target || ""} ${row.reason}`.toLowerCase();
      if (!hay.includes(filter.text)) return false;
    }
    return true;
  }
  function applyFilters() {
    filter.text = $("f-text").value.trim().toLowerCase();
    filter.namespace = $("f-namespace").value;
    filter.node = $("f-node").value.trim();
    filter.strategy = $("f-strategy").value;
    renderEvictions();
    renderSkips();
    for (let i = 0; i < nodes.length; i++) {
      cells[i].classList.toggle("dim", filter.node !== "" && nodes[i].name !== filter.node);
    }
  }
  let filterTimer = 0;
  for (const id of ["f-text", "f-node"]) {
    $(id).addEventListener("input", () => {
      clearTimeout(filterTimer);
      filterTimer = setTimeout(applyFilters, 120);
    });
  }
  for (const id of ["f-namespace", "f-strategy"]) $(id).addEventListener("change", applyFilters);
  $("f-clear").addEventListener("click", () => {
    for (const id of ["f-text", "f-node", "f-namespace", "f-strategy"]) $(id).value = "";
    applyFilters();
  });

  // ---------- evictions ----------
  let evictionsShown = PAGE;
  function renderEvictions() {
    const body = $("evictions-body");
    body.textContent = "";
    const rows = [];
    R.evictions.forEach((e, k) => {
      if (matches(e)) rows.push(k);
    });
    for (const k of rows.slice(0, evictionsShown)) {
      const e = R.evictions[k];
      body.append(
        el("tr", { "data-eviction": String(k) }, [
          el("td", { class: "num", text: String(k + 1) }),
          el("td", { text: e.namespace }),
          el("td", { text: e.pod }),
          el("td", { text: e.node }),
          el("td", { text: e.target === null ? "—" : e.target }),
          el("td", { text: e.landing === null ? "" : e.landing }),
          el("td", { text: e.strategy }),
          el("td", { class: "reason", text: e.reason }),
        ])
      );
    }
    $("evictions-count").textContent =
      rows.length === R.evictions.length ? `${rows.length}` : `${rows.length} of ${R.evictions.length}`;
    const more = $("evictions-more");
    more.hidden = rows.length <= evictionsShown;
    more.textContent = `Show ${Math.min(PAGE, rows.length - evictionsShown)} more of ${rows.length - evictionsShown}`;
    $("evictions-empty").hidden = R.evictions.length !== 0;
  }
  $("evictions-more").addEventListener("click", () => {
    evictionsShown += PAGE;
    renderEvictions();
  });

  // ---------- skipped pods, grouped by the phrase of their reason ----------
  const groups = new Map();
  R.skipped.forEach((s, k) => {
    const p = phraseOf(s.reason);
    if (!groups.has(p)) groups.set(p, []);
    groups.get(p).push(k);
  });
  const groupOrder = [...groups.keys()].sort((a, b) => groups.get(b).length - groups.get(a).length || cmp(a, b));
  const groupShown = new Map(groupOrder.map((p) => [p, PAGE]));
  const groupOpen = new Set();
  function renderGroupRows(details, phrase, rows) {
    const old = details.querySelector(".rows");
    if (old) old.remove();
    const box = el("div", { class: "rows" });
    const shown = groupShown.get(phrase);
    const table = el("table", {}, [
      el("caption", { class: "sr-only", text: `Pods skipped: ${phrase}` }),
      el("thead", {}, [
        el("tr", {}, ["namespace", "pod", "node", "strategy", "reason"].map((h) => el("th", { scope: "col", text: h }))),
      ]),
    ]);
    const tb = el("tbody");
    for (const k of rows.slice(0, shown)) {
      const s = R.skipped[k];
      tb.append(
        el("tr", { "data-skip": String(k) }, [
          el("td", { text: s.namespace }),
          el("td", { text: s.pod }),
          el("td", { text: s.node === null ? "—" : s.node }),
          el("td", { text: s.strategy || "" }),
          el("td", { class: "reason", text: s.reason }),
        ])
      );
    }
    table.append(tb);
    box.append(table);
    if (rows.length > shown) {
      box.append(
        el("button", {
          type: "button",
          class: "more",
          text: `Show ${Math.min(PAGE, rows.length - shown)} more of ${rows.length - shown}`,
          onclick: () => {
            groupShown.set(phrase, shown + PAGE);
            renderGroupRows(details, phrase, rows);
          },
        })
      );
    }
    details.append(box);
  }
  const shownRows = new Map(); // phrase -> the rows of the group that match the filters
  function renderSkips() {
    const list = $("skip-groups");
    list.textContent = "";
    let total = 0;
    shownRows.clear();
    for (const phrase of groupOrder) {
      const rows = groups.get(phrase).filter((k) => matches(R.skipped[k]));
      shownRows.set(phrase, rows);
      total += rows.length;
      if (rows.length === 0) continue;
      const all = groups.get(phrase).length;
      const details = el("details", { class: "skip", "data-phrase": phrase, "data-count": String(rows.length) }, [
        el("summary", {}, [phrase, el("span", { class: "count", text: rows.length === all ? `${all} pod(s)` : `${rows.length} of ${all} pod(s)` })]),
      ]);
      if (groupOpen.has(phrase)) {
        details.open = true;
        renderGroupRows(details, phrase, rows);
      }
      details.addEventListener("toggle", () => {
        if (details.open) {
          groupOpen.add(phrase);
          if (!details.querySelector(".rows")) renderGroupRows(details, phrase, rows);
        } else groupOpen.delete(phrase);
      });
      list.append(details);
    }
    $("skipped-count").textContent = total === R.skipped.length ? `${total}` : `${total} of ${R.skipped.length}`;
    $("skipped-empty").hidden = R.skipped.length !== 0;
  }
  // Printing opens every group and draws its rows at once (the toggle event would come after
  // the print layout), a page of rows each, and says which filters shaped what is printed.
  window.addEventListener("beforeprint", () => {
    for (const d of document.querySelectorAll("details.skip")) {
      const phrase = d.dataset.phrase;
      groupOpen.add(phrase);
      if (!d.querySelector(".rows")) renderGroupRows(d, phrase, shownRows.get(phrase) || []);
      d.open = true;
    }
    const active = [];
    if (filter.text) active.push(`search "${filter.text}"`);
    if (filter.namespace) active.push(`namespace ${filter.namespace}`);
    if (filter.node) active.push(`node ${filter.node}`);
    if (filter.strategy) active.push(`strategy ${filter.strategy}`);
    $("print-filters").textContent = active.length
      ? `Printed with the filters ${active.join(", ")}: only the matching pods are listed.`
      : "";
  });

  // ---------- notes ----------
  const notes = D.notes || [];
  $("notes-section").hidden = notes.length === 0;
  for (const n of notes) $("notes").append(el("li", { text: n }));

  // ---------- simulation: the chart per cycle, the map per cycle, every move ----------
  function renderSimulation() {
    const sim = D.simulation;
    const sec = $("simulation");
    sec.hidden = false;
    const cycles = sim.perCycle;
    const conv = sim.convergedAfter === null ? `not converged: cycle ${sim.cycles} still evicted` : `converged: no eviction after cycle ${sim.convergedAfter}`;
    $("sim-summary").textContent = `${sim.cycles} cycles, ${sim.moves.length} moves; ${conv}. Landing prediction ${sim.landingPrediction ? "on" : "off"}${sim.softTaintHotNodes ? ", soft taint on hot nodes" : ""}${sim.workloadCooldownSeconds ? `, workload cool-down ${sim.workloadCooldownSeconds} s` : ""}${sim.maxInFlightPerWorkload ? `, ${sim.maxInFlightPerWorkload} pod(s) in flight per workload` : ""}.`;
    // The chart: hottest node and standard deviation per resource; evictions as bars.
    const W = 960, H = 340, L = 56, Rm = 170, T = 20, B = 40;
    const pw = W - L - Rm, ph = H - T - B;
    const last = Math.max(1, cycles.length - 1);
    const yMax = Math.max(100, ...cycles.map((c) => Math.max(c.cpu.max, c.memory.max)));
    const eMax = Math.max(1, ...cycles.map((c) => c.evictions));
    const x = (c) => L + (pw * c) / last;
    const y = (v) => T + ph * (1 - v / yMax);
    const ns = "http://www.w3.org/2000/svg";
    const svg = $("sim-chart");
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    const add = (tag, attrs, text) => {
      const e = document.createElementNS(ns, tag);
      for (const k of Object.keys(attrs)) e.setAttribute(k, String(attrs[k]));
      if (text !== undefined) e.textContent = text;
      svg.append(e);
      return e;
    };
    for (let v = 0; v <= yMax; v += 25) {
      add("line", { class: "grid", x1: L, x2: L + pw, y1: y(v), y2: y(v) });
      add("text", { x: L - 8, y: y(v) + 4, "text-anchor": "end" }, v + "%");
    }
    const bw = Math.max(3, Math.min(24, pw / (cycles.length * 2)));
    for (const c of cycles) {
      if (c.cycle === 0 || c.evictions === 0) continue;
      const h = (ph * 0.3 * c.evictions) / eMax;
      const r = add("rect", { x: x(c.cycle) - bw / 2, y: T + ph - h, width: bw, height: h, fill: "var(--muted)", "fill-opacity": "0.35" });
      const t = document.createElementNS(ns, "title");
      t.textContent = `cycle ${c.cycle}: ${c.evictions} evictions`;
      r.append(t);
    }
    const series = [
      ["cpu max", (c) => c.cpu.max, "#d1242f", ""],
      ["cpu stddev", (c) => c.cpu.stddev, "#d1242f", "5 4"],
      ["memory max", (c) => c.memory.max, "#0969da", ""],
      ["memory stddev", (c) => c.memory.stddev, "#0969da", "5 4"],
    ];
    series.forEach(([name, f, colour, dash], k) => {
      const pts = cycles.map((c) => `${x(c.cycle).toFixed(1)},${y(f(c)).toFixed(1)}`).join(" ");
      add("polyline", { points: pts, fill: "none", stroke: colour, "stroke-width": 2.2, "stroke-dasharray": dash || "none", "data-series": name });
      add("line", { x1: L + pw + 16, x2: L + pw + 44, y1: T + 14 + k * 20, y2: T + 14 + k * 20, stroke: colour, "stroke-width": 2.2, "stroke-dasharray": dash || "none" });
      add("text", { x: L + pw + 50, y: T + 18 + k * 20 }, name);
    });
    add("rect", { x: L + pw + 16, y: T + 92, width: 28, height: 10, fill: "var(--muted)", "fill-opacity": "0.35" });
    add("text", { x: L + pw + 50, y: T + 102 }, `evictions (max ${eMax})`);
    for (const [v, name] of [[sim.watermarks.cpuHigh, "cpu targetThresholds"], [sim.watermarks.cpuLow, "cpu thresholds"]]) {
      if (v === null || v === undefined) continue;
      add("line", { x1: L, x2: L + pw, y1: y(v), y2: y(v), stroke: "#d1242f", "stroke-opacity": 0.35, "stroke-dasharray": "2 3" });
      add("text", { x: L + pw + 4, y: y(v) + 4, "font-size": 10 }, name);
    }
    for (const c of cycles) add("text", { x: x(c.cycle), y: T + ph + 18, "text-anchor": "middle" }, String(c.cycle));
    add("text", { x: L + pw / 2, y: H - 6, "text-anchor": "middle" }, "cycle");
    add("line", { class: "axis", x1: L, x2: L, y1: T, y2: T + ph });
    add("line", { class: "axis", x1: L, x2: L + pw, y1: T + ph, y2: T + ph });
    // The per-cycle table (the same numbers, for screen readers and print).
    const tb = $("sim-cycles-body");
    for (const c of cycles) {
      tb.append(
        el("tr", { "data-cycle": String(c.cycle) }, [
          el("td", { class: "num", text: String(c.cycle) }),
          el("td", { class: "num", text: c.cycle === 0 ? "—" : String(c.evictions) }),
          el("td", { class: "num", text: pct(c.cpu.max) }),
          el("td", { class: "num", text: pct(c.cpu.stddev) }),
          el("td", { class: "num", text: pct(c.memory.max) }),
          el("td", { class: "num", text: pct(c.memory.stddev) }),
          el("td", { class: "num", text: String(c.elsewhere) }),
          el("td", { class: "num", text: String(c.unplaced) }),
          el("td", { class: "num", text: String(c.movedBack) }),
        ])
      );
    }
    // The map at a chosen cycle.
    const slider = $("sim-cycle");
    slider.max = String(cycles.length - 1);
    slider.value = "0";
    const label = () => {
      $("sim-cycle-value").textContent = state.cycle === null ? "the plan (before → after)" : `cycle ${state.cycle}`;
    };
    $("sim-cycle-on").addEventListener("change", (e) => {
      state.cycle = e.target.checked ? Number(slider.value) : null;
      slider.disabled = !e.target.checked;
      label();
      paintAll();
      drawArrows();
    });
    slider.addEventListener("input", () => {
      if (state.cycle === null) return;
      state.cycle = Number(slider.value);
      label();
      paintAll();
    });
    label();
    // Every move.
    let shown = PAGE;
    const renderMoves = () => {
      const body = $("sim-moves-body");
      body.textContent = "";
      for (const m of sim.moves.slice(0, shown)) {
        body.append(
          el("tr", { "data-move": "" }, [
            el("td", { class: "num", text: String(m.cycle) }),
            el("td", { text: `${m.namespace}/${m.pod}` }),
            el("td", { text: m.from }),
            el("td", { text: m.target === null ? "—" : m.target }),
            el("td", { text: m.landed === null ? "—" : m.landed }),
            el("td", { text: m.outcome }),
            el("td", { text: m.strategy }),
          ])
        );
      }
      const more = $("sim-moves-more");
      more.hidden = sim.moves.length <= shown;
      more.textContent = `Show ${Math.min(PAGE, sim.moves.length - shown)} more of ${sim.moves.length - shown}`;
    };
    $("sim-moves-more").addEventListener("click", () => {
      shown += PAGE;
      renderMoves();
    });
    $("sim-moves-count").textContent = String(sim.moves.length);
    renderMoves();
  }

  // ---------- explain: one pod ----------
  function renderExplain() {
    const x = D.explain;
    $("explain").hidden = false;
    const facts = [
      ["pod", x.pod],
      ["node", x.node === null || x.node === "" ? "none (not bound to a node)" : x.node],
      ["owner", x.owner],
      ["scheduler", x.scheduler],
    ];
    if (x.nodeClass) facts.push(["its node is", x.nodeClass + (x.nodeWhy ? ` (${x.nodeWhy})` : "")]);
    const l = x.landing;
    let where;
    if (l.inPlace && x.node) where = `back on ${x.node}: its owner (${x.owner}) recreates it on the same node`;
    else if (l.inPlace) where = `where its owner (${x.owner}) puts it (not bound to a node yet)`;
    else if (!l.recreated) where = "nowhere: " + x.owner;
    else if (l.nodes.length === 0) where = "nowhere: no node admits a new copy";
    else where = `${l.nodes.join(", ")} (score ${l.score}; 1 in ${l.nodes.length} each)`;
    facts.push(["replacement lands on", where]);
    const dl = $("explain-facts");
    for (const [k, v] of facts) {
      dl.append(el("dt", { text: k }));
      dl.append(el("dd", { text: v }));
    }
    const pb = $("explain-plugins-body");
    for (const v of x.plugins) {
      pb.append(
        el("tr", { "data-plugin": v.plugin }, [
          el("td", { text: v.profile }),
          el("td", { text: v.plugin }),
          el("td", { text: v.action }),
          el("td", { text: v.target }),
          el("td", { text: v.landing }),
          el("td", { class: "reason", text: v.reason }),
        ])
      );
    }
    const feasible = x.nodes.filter((v) => v.feasible).length;
    $("explain-nodes-count").textContent = `${feasible} of ${x.nodes.length} feasible`;
    let shown = PAGE;
    const render = () => {
      const only = $("explain-feasible-only").checked;
      const rows = x.nodes.filter((v) => !only || v.feasible);
      rows.sort((a, b) => (b.score ? b.score.total : -Infinity) - (a.score ? a.score.total : -Infinity) || cmp(a.node, b.node));
      const body = $("explain-nodes-body");
      body.textContent = "";
      for (const v of rows.slice(0, shown)) {
        const s = v.score;
        body.append(
          el("tr", { "data-verdict": v.node, "data-feasible": String(v.feasible) }, [
            el("td", { text: v.node }),
            el("td", { text: v.feasible ? "yes" : "no" }),
            el("td", { class: "num", text: s ? String(s.total) : "" }),
            el("td", { class: "reason", text: s ? `fit ${s.fit}, balanced ${s.balanced}, taints ${s.taints}, affinity ${s.affinity}, inter-pod ${s.interPod}, spread ${s.spread}, binpack ${s.binpack}, usage ${s.usage}` : v.reason }),
          ])
        );
      }
      const more = $("explain-nodes-more");
      more.hidden = rows.length <= shown;
      more.textContent = `Show ${Math.min(PAGE, rows.length - shown)} more of ${rows.length - shown}`;
    };
    $("explain-feasible-only").addEventListener("change", () => {
      shown = PAGE;
      render();
    });
    $("explain-nodes-more").addEventListener("click", () => {
      shown += PAGE;
      render();
    });
    $("m-feasible").hidden = false;
    $("m-feasible-box").addEventListener("change", (e) => {
      state.feasibility = e.target.checked;
      paintAll();
    });
    render();
  }

  // ---------- go ----------
  layout();
  paintAll();
  applyFilters();
  if (D.simulation) renderSimulation();
  if (D.explain) renderExplain();
  if (D.explain && D.explain.node !== null && nodeIndex.has(D.explain.node)) select(nodeIndex.get(D.explain.node));
  requestAnimationFrame(() => {
    drawArrows();
    root.dataset.renderMs = (performance.now() - started).toFixed(0);
    root.dataset.ready = "true";
  });
})();

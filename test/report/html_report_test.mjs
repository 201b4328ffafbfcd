// The HTML report in a real browser: Debian's chromium, headless, driven by playwright-core.
//
// usage: node test/report/html_report_test.mjs LOADSHIFT_BINARY OUT_DIR [--pages DIR] [--large N]
//   OUT_DIR   where the pages, their JSON and the screenshots go
//   --pages   a folder holding controller.html and controller.json: the page and the JSON the
//             controller served (test/run/binary_test.cc writes them with LOADSHIFT_PAGE_OUT)
//   --large N also a cluster of N nodes and 30 pods per node from
//             test/data/shared/tools/gen_cluster.py (10% hot), its size and render time printed
//
// For each page (the bundled example's report, a simulation, an explain, the controller's, the
// large one): the page draws exactly what the JSON of the same plan says (every node's class,
// every eviction, the skip count of every reason, the summary), filters agree with the JSON, the
// keyboard reaches and selects nodes, every control is labelled, text on the node cards has a
// contrast of 4.5:1 or more, no request leaves the file, there is no console error, and the print
// layout hides the controls. Screenshots: OUT_DIR/*.png. Exits 1 on the first failed check.
import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const args = process.argv.slice(2);
if (args.length < 2) {
  console.error("usage: html_report_test.mjs LOADSHIFT_BINARY OUT_DIR [--pages DIR] [--large N]");
  process.exit(2);
}
const binary = resolve(args[0]);
const out = resolve(args[1]);
let pagesDir = null;
let large = 0;
for (let i = 2; i < args.length; i++) {
  if (args[i] === "--pages") pagesDir = resolve(args[++i]);
  else if (args[i] === "--large") large = Number(args[++i]);
  else {
    console.error(`html_report_test: unknown argument ${args[i]}`);
    process.exit(2);
  }
}
mkdirSync(out, { recursive: true });

let failures = 0;
function check(ok, what) {
  if (!ok) {
    failures++;
    console.error(`FAIL: ${what}`);
  }
}
function equal(actual, expected, what) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  check(a === e, `${what}\n  expected ${e.slice(0, 600)}\n  found    ${a.slice(0, 600)}`);
}

function loadshift(argv, file) {
  // stderr (the seed policy's deprecation warnings) is not the page's business.
  const text = execFileSync(binary, argv, { cwd: root, maxBuffer: 1 << 30, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  writeFileSync(file, text);
  return text;
}

const seed = {
  policy: "test/data/shared/seed-examples/05-load-aware-policy.yaml",
  snapshot: "examples/seed-cluster/cluster.yaml",
  usage: "examples/seed-cluster/usage.json",
};
const at = ["--at", "2026-11-22T04:00:00Z"];

const phraseOf = (reason) => {
  const i = reason.indexOf(": ");
  return i < 0 ? reason : reason.slice(0, i);
};

// ---------- the browser ----------
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});

async function open(file, name, { width = 1280, height = 900, dark = false } = {}) {
  const context = await browser.newContext({
    viewport: { width, height },
    colorScheme: dark ? "dark" : "light",
  });
  const page = await context.newPage();
  const problems = [];
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("request", (r) => {
    const u = r.url();
    if (!u.startsWith("file:") && !u.startsWith("data:")) problems.push(`request left the file: ${u}`);
  });
  const started = Date.now();
  await page.goto(pathToFileURL(file).href, { waitUntil: "load", timeout: 120000 });
  await page.waitForSelector("html[data-ready=true]", { timeout: 120000 });
  const wall = Date.now() - started;
  const renderMs = Number(await page.getAttribute("html", "data-render-ms"));
  const nav = await page.evaluate(() => {
    const n = performance.getEntriesByType("navigation")[0];
    return { domContentLoaded: n.domContentLoadedEventEnd, load: n.loadEventEnd };
  });
  const size = statSync(file).size;
  console.log(
    `${name}: ${(size / 1024).toFixed(0)} KiB; load event ${nav.load.toFixed(0)} ms after navigation, ` +
      `script ${renderMs} ms, ready ${wall} ms after goto`
  );
  return { context, page, problems, wall, renderMs, load: nav.load, size };
}

async function close(name, p) {
  for (const problem of p.problems) check(false, `${name}: ${problem}`);
  await p.context.close();
}

// Everything a report page shows, against the JSON of the same plan.
async function checkReport(name, page, doc) {
  // Every node once, with its class.
  const cells = await page.$$eval(".cell", (els) => els.map((e) => [e.dataset.node, e.dataset.class]));
  equal(cells.length, doc.nodes.length, `${name}: one cell per node`);
  const byName = new Map(cells);
  check(byName.size === doc.nodes.length, `${name}: no node drawn twice`);
  let wrong = 0;
  for (const n of doc.nodes) if (byName.get(n.name) !== n.class) wrong++;
  equal(wrong, 0, `${name}: nodes drawn with another class than the JSON's`);

  // The summary cards.
  const cards = await page.$$eval("[data-summary]", (els) =>
    Object.fromEntries(els.map((e) => [e.dataset.summary, Number(e.querySelector(".n").textContent)]))
  );
  for (const k of ["evictions", "overutilized", "underutilized", "unknown", "unclassified"]) {
    equal(cards[k], doc.summary[k], `${name}: summary ${k}`);
  }
  equal(cards["skipped pods"], doc.skipped.length, `${name}: summary skipped pods`);
  equal(cards.nodes, doc.nodes.length, `${name}: summary nodes`);

  // Every eviction, in order, with all its fields (the table pages: show them all).
  while (await page.isVisible("#evictions-more")) await page.click("#evictions-more");
  const rows = await page.$$eval("#evictions-body tr", (trs) =>
    trs.map((tr) => [...tr.children].map((td) => td.textContent))
  );
  equal(rows.length, doc.evictions.length, `${name}: one row per eviction`);
  doc.evictions.forEach((e, k) => {
    const expected = [String(k + 1), e.namespace, e.pod, e.node, e.target === null ? "—" : e.target, e.landing === null ? "" : e.landing, e.strategy, e.reason];
    if (k < 3 || JSON.stringify(rows[k]) !== JSON.stringify(expected)) equal(rows[k], expected, `${name}: eviction ${k + 1}`);
  });

  // Every skip reason with its count.
  const expectedGroups = {};
  for (const s of doc.skipped) expectedGroups[phraseOf(s.reason)] = (expectedGroups[phraseOf(s.reason)] || 0) + 1;
  const groups = await page.$$eval("details.skip", (ds) => Object.fromEntries(ds.map((d) => [d.dataset.phrase, Number(d.dataset.count)])));
  equal(Object.keys(groups).sort(), Object.keys(expectedGroups).sort(), `${name}: the skip reasons`);
  for (const [phrase, n] of Object.entries(expectedGroups)) equal(groups[phrase], n, `${name}: pods skipped for "${phrase}"`);
  equal(await page.textContent("#skipped-count"), String(doc.skipped.length), `${name}: skipped count`);

  if (doc.skipped.length > 0) {
    // The largest group, opened: its first rows are the JSON's, in plan order.
    const top = Object.entries(expectedGroups).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0][0];
    const summary = page.locator(`details.skip[data-phrase="${top.replace(/"/g, '\\"')}"] > summary`);
    await summary.click();
    // The rows are drawn on the toggle event, which comes after the click.
    await page.waitForSelector("details.skip[open] .rows", { timeout: 10000 });
    const shown = await page.$$eval(`details.skip[open] tbody tr`, (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
    const expected = doc.skipped.filter((s) => phraseOf(s.reason) === top).slice(0, 200)
      .map((s) => [s.namespace, s.pod, s.node === null ? "—" : s.node, s.strategy, s.reason]);
    equal(shown, expected, `${name}: the rows of "${top}"`);
    await summary.click();

    // Filters: by namespace, then by node, agree with the JSON.
    const ns = doc.skipped[doc.skipped.length - 1].namespace;
    await page.selectOption("#f-namespace", ns);
    const nsSkips = doc.skipped.filter((s) => s.namespace === ns).length;
    const nsEvictions = doc.evictions.filter((e) => e.namespace === ns).length;
    equal(await page.textContent("#skipped-count"), nsSkips === doc.skipped.length ? `${nsSkips}` : `${nsSkips} of ${doc.skipped.length}`, `${name}: skips of namespace ${ns}`);
    equal(await page.textContent("#evictions-count"), nsEvictions === doc.evictions.length ? `${nsEvictions}` : `${nsEvictions} of ${doc.evictions.length}`, `${name}: evictions of namespace ${ns}`);
    await page.click("#f-clear");
    const node = doc.skipped[0].node;
    if (node !== null) {
      await page.fill("#f-node", node);
      await page.waitForTimeout(300);
      const onNode = doc.skipped.filter((s) => s.node === node).length;
      equal(await page.textContent("#skipped-count"), onNode === doc.skipped.length ? `${onNode}` : `${onNode} of ${doc.skipped.length}`, `${name}: skips on node ${node}`);
      await page.click("#f-clear");
    }
    const strategy = doc.skipped[0].strategy;
    await page.selectOption("#f-strategy", strategy);
    const byStrategy = doc.skipped.filter((s) => s.strategy === strategy).length;
    equal(await page.textContent("#skipped-count"), byStrategy === doc.skipped.length ? `${byStrategy}` : `${byStrategy} of ${doc.skipped.length}`, `${name}: skips of strategy ${strategy}`);
    await page.click("#f-clear");
    await page.fill("#f-text", doc.skipped[0].pod);
    await page.waitForTimeout(300);
    const text = doc.skipped[0].pod.toLowerCase();
    const bySearch = doc.skipped.filter((s) => `${s.namespace}/${s.pod} ${s.node || ""}  ${s.reason}`.toLowerCase().includes(text)).length;
    const searched = await page.textContent("#skipped-count");
    check(searched === `${bySearch}` || searched === `${bySearch} of ${doc.skipped.length}`, `${name}: search "${text}": expected ${bySearch}, found ${searched}`);
    await page.click("#f-clear");
  }

  // The evictions drawn: one line per distinct source -> target and source -> landing (all of
  // them on request: beyond 200 evictions the page draws only the selected node's).
  const defaultMode = await page.inputValue("#show-moves");
  equal(defaultMode, doc.evictions.length > 200 ? "selected" : "all", `${name}: arrows drawn by default`);
  await page.selectOption("#show-moves", "all");
  await page.waitForTimeout(50);
  const pairs = new Set();
  const names = new Set(doc.nodes.map((n) => n.name));
  for (const e of doc.evictions) {
    if (e.target && e.target !== e.node && names.has(e.node) && names.has(e.target)) pairs.add(`${e.node}>${e.target}>t`);
    if (e.landing && e.landing !== e.node && names.has(e.node) && names.has(e.landing)) pairs.add(`${e.node}>${e.landing}>l`);
  }
  equal(await page.$$eval("#map-arrows line", (ls) => ls.length), pairs.size, `${name}: arrows drawn`);
  await page.selectOption("#show-moves", defaultMode);

  // Keyboard: one tab stop in the map; arrows move; Enter selects and shows the node.
  const first = page.locator('.cell[tabindex="0"]');
  equal(await first.count(), 1, `${name}: one tab stop in the node map`);
  await first.focus();
  await page.keyboard.press("ArrowRight");
  const focused = await page.evaluate(() => document.activeElement && document.activeElement.dataset.node);
  check(typeof focused === "string", `${name}: ArrowRight moves the focus to a node`);
  await page.keyboard.press("Enter");
  equal(await page.textContent("#node-detail h3"), focused, `${name}: Enter shows the focused node`);

  // Every control has a label; every node an accessible name.
  const unlabelled = await page.$$eval("input, select", (els) => els.filter((e) => e.labels.length === 0 && !e.getAttribute("aria-label")).map((e) => e.id));
  equal(unlabelled, [], `${name}: controls without a label`);
  const nameless = await page.$$eval(".cell", (els) => els.filter((e) => !e.getAttribute("aria-label")).length);
  equal(nameless, 0, `${name}: nodes without an accessible name`);
}

// The map's colours: black or white text on every usage from 0 to 100% at 4.5:1 or more.
async function checkRamp(name, page) {
  const worst = await page.evaluate(() => {
    const lum = (rgb) => {
      const f = (c) => {
        c /= 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * f(rgb[0]) + 0.7152 * f(rgb[1]) + 0.0722 * f(rgb[2]);
    };
    let min = Infinity;
    for (let v = 0; v <= 100; v += 0.5) {
      const st = window.loadshiftReport.usageStyle(v);
      const bg = lum(st.bg.match(/\d+/g).map(Number));
      const fg = st.fg === "#000" ? 0 : 1;
      min = Math.min(min, (Math.max(bg, fg) + 0.05) / (Math.min(bg, fg) + 0.05));
    }
    return min;
  });
  check(worst >= 4.5, `${name}: text on the usage ramp has a contrast of ${worst.toFixed(2)} somewhere (< 4.5)`);
}

// Contrast of the node cards' text (WCAG: 4.5:1 for normal text).
async function checkContrast(name, page) {
  const worst = await page.$$eval(".cards-mode .cell", (els) => {
    const rgb = (s) => (s.match(/[\d.]+/g) || []).slice(0, 3).map(Number);
    const lum = ([r, g, b]) => {
      const f = (c) => {
        c /= 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    let min = Infinity;
    for (const e of els) {
      const st = getComputedStyle(e);
      const a = lum(rgb(st.color));
      const b = lum(rgb(st.backgroundColor));
      min = Math.min(min, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05));
    }
    return min;
  });
  if (worst !== Infinity) check(worst >= 4.5, `${name}: node card text contrast ${worst.toFixed(2)} < 4.5`);
}

async function checkThemesAndPrint(name, p, shot) {
  const page = p.page;
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(out, `${shot}-light.png`), fullPage: false });
  const before = await page.getAttribute("html", "data-theme");
  await page.click("#theme-toggle");
  const after = await page.getAttribute("html", "data-theme");
  check(before !== after && (after === "dark" || after === "light"), `${name}: the theme toggle switches (${before} -> ${after})`);
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  check(after !== "dark" || bg === "rgb(13, 17, 23)", `${name}: dark background, found ${bg}`);
  await checkContrast(`${name} (${after})`, page);
  await page.screenshot({ path: join(out, `${shot}-dark.png`), fullPage: false });
  await page.click("#theme-toggle");
  // Printed: the title stays, the controls go, every skip group is open with its rows.
  await page.fill("#f-text", "");
  await page.evaluate(() => window.dispatchEvent(new Event("beforeprint")));
  await page.emulateMedia({ media: "print" });
  const hidden = await page.$$eval(".toolbar[role=search], #theme-toggle", (els) => els.every((e) => getComputedStyle(e).display === "none"));
  check(hidden, `${name}: print hides the controls`);
  check(await page.isVisible("#title"), `${name}: print keeps the title`);
  const groups = await page.$$eval("details.skip", (ds) => ds.map((d) => [d.open, d.querySelectorAll(".rows tbody tr").length, Number(d.dataset.count)]));
  check(groups.every(([open, rows, n]) => open && rows === Math.min(n, 200)), `${name}: printed skip groups open with their rows: ${JSON.stringify(groups)}`);
  const pdf = await page.pdf({ format: "A4", printBackground: true });
  check(pdf.length > 10000, `${name}: a printed PDF of ${pdf.length} bytes`);
  writeFileSync(join(out, `${shot}.pdf`), pdf);
  await page.emulateMedia({ media: "screen" });
}

// ---------- 1. the bundled example: report ----------
{
  const base = ["--policy", seed.policy, "--snapshot", seed.snapshot, "--usage", seed.usage, ...at];
  const doc = JSON.parse(loadshift(["report", ...base, "--output", "json"], join(out, "example.json")));
  const file = join(out, "example.html");
  loadshift(["report", ...base, "--output", "html"], file);
  const p = await open(file, "example report");
  await checkReport("example", p.page, doc);
  // The summary word for word as the terminal table's last line.
  const table = loadshift(["report", ...base], join(out, "example.txt")).trim().split("\n");
  equal(await p.page.textContent("#summary-line"), table[table.length - 1], "example: the summary line is the table's");
  await checkRamp("example", p.page);
  await checkContrast("example (light)", p.page);
  // The example's HyperNodes: the map is grouped by them, spines holding racks.
  const groups = await p.page.$$eval(".group > .gname", (gs) => gs.map((g) => g.textContent));
  check(groups.some((g) => g.includes("(tier 2)")) && groups.some((g) => g.includes("(tier 1)")), `example: HyperNode groups of two tiers, found ${groups.join(" | ")}`);
  await p.page.selectOption("#m-group", "pool");
  const pools = await p.page.$$eval(".group > .gname", (gs) => gs.map((g) => g.textContent));
  const expectedPools = new Set(doc.nodes.map((n) => n.pool || "(no pool label)"));
  equal(pools.length, expectedPools.size, `example: one group per usage pool (${pools.join(" | ")})`);
  await p.page.selectOption("#m-group", "hypernode");
  // The selected overutilized node: its before -> after and watermarks.
  const hot = doc.nodes.find((n) => n.class === "overutilized");
  if (hot) {
    await p.page.click(`.cell[data-node="${hot.name}"]`);
    const detail = await p.page.textContent("#node-detail");
    check(detail.includes(`cpu: ${hot.cpu.toFixed(1)}% → ${hot.cpuAfter.toFixed(1)}%`), `example: ${hot.name}'s detail shows cpu before -> after: ${detail}`);
    check(detail.includes("targetThresholds"), `example: ${hot.name}'s detail shows its watermarks`);
  }
  await p.page.click(`.cell[data-node="${hot ? hot.name : doc.nodes[0].name}"]`);
  await p.page.evaluate(() => window.scrollTo(0, 0));
  await checkThemesAndPrint("example", p, "example");
  await p.page.setViewportSize({ width: 1280, height: 1500 });
  await p.page.screenshot({ path: join(out, "example-full.png"), fullPage: false });
  await close("example", p);
}

// ---------- 2. a simulation: the chart per cycle and every move ----------
{
  const base = ["simulate", "--policy", "examples/ping-pong/policy.yaml", "--snapshot", "examples/ping-pong/cluster.yaml", "--usage", "examples/ping-pong/usage.json", "--cycles", "6", "--no-landing-prediction", ...at];
  const sim = JSON.parse(loadshift([...base, "--output", "json"], join(out, "simulation.json")));
  const file = join(out, "simulation.html");
  loadshift([...base, "--output", "html"], file);
  const p = await open(file, "simulation");
  const page = p.page;
  equal(await page.isVisible("#simulation"), true, "simulation: its section is shown");
  equal(await page.$$eval("#sim-chart polyline", (ls) => ls.length), 4, "simulation: four lines in the chart");
  equal(await page.$$eval("#sim-cycles-body tr", (trs) => trs.length), sim.perCycle.length, "simulation: one row per cycle");
  const evictions = await page.$$eval("#sim-cycles-body tr", (trs) => trs.map((tr) => tr.children[1].textContent));
  equal(evictions, sim.perCycle.map((c) => (c.cycle === 0 ? "—" : String(c.evictions))), "simulation: evictions per cycle");
  while (await page.isVisible("#sim-moves-more")) await page.click("#sim-moves-more");
  const moves = await page.$$eval("#sim-moves-body tr", (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  equal(moves, sim.moves.map((m) => [String(m.cycle), `${m.namespace}/${m.pod}`, m.from, m.target === null ? "—" : m.target, m.landed === null ? "—" : m.landed, m.outcome, m.strategy]), "simulation: every move");
  check(sim.moves.length > 0, "simulation: the example moves pods");
  // The page's plan is the first cycle's: its evictions are cycle 1's moves.
  equal(await page.$$eval("#evictions-body tr", (trs) => trs.map((tr) => `${tr.children[1].textContent}/${tr.children[2].textContent}`)), sim.moves.filter((m) => m.cycle === 1).map((m) => `${m.namespace}/${m.pod}`), "simulation: the plan shown is cycle 1's");
  equal(sim.moves.length, sim.perCycle.reduce((a, c) => a + c.evictions, 0), "simulation: as many moves as evictions");
  // The map at the last cycle.
  await page.check("#sim-cycle-on");
  const last = sim.perCycle.length - 1;
  await page.fill("#sim-cycle", String(last));
  const fig = await page.textContent(".cell .fig");
  check(fig.includes(`(cycle ${last})`), `simulation: the map shows cycle ${last}: ${fig}`);
  const n0 = sim.nodes[0];
  const v = sim.perCycle[last].cpuByNode[0];
  const shownFig = await page.textContent(`.cell[data-node="${n0}"] .fig`);
  check(v === null || shownFig.includes(`${v.toFixed(1)}%`), `simulation: ${n0} at cycle ${last} is ${v}: ${shownFig}`);
  await page.uncheck("#sim-cycle-on");
  await page.screenshot({ path: join(out, "simulation.png"), fullPage: true });
  await close("simulation", p);
}

// ---------- 3. explain: one pod ----------
{
  const pod = "load-test/low-priority-workload-5f6b7-k2x9p";
  const base = ["explain", pod, "--policy", seed.policy, "--snapshot", seed.snapshot, "--usage", seed.usage, ...at];
  const x = JSON.parse(loadshift([...base, "--output", "json"], join(out, "explain.json")));
  const file = join(out, "explain.html");
  loadshift([...base, "--output", "html"], file);
  const p = await open(file, "explain");
  const page = p.page;
  check((await page.textContent("#explain-facts")).includes(pod), "explain: the pod is named");
  equal(await page.$$eval("#explain-plugins-body tr", (trs) => trs.map((tr) => [tr.children[1].textContent, tr.children[2].textContent])), x.plugins.map((v) => [v.plugin, v.action]), "explain: every plugin and what it did");
  while (await page.isVisible("#explain-nodes-more")) await page.click("#explain-nodes-more");
  const verdicts = await page.$$eval("#explain-nodes-body tr", (trs) => Object.fromEntries(trs.map((tr) => [tr.dataset.verdict, tr.dataset.feasible === "true"])));
  const sorted = (o) => Object.fromEntries(Object.entries(o).sort((a, b) => (a[0] < b[0] ? -1 : 1)));
  equal(sorted(verdicts), sorted(Object.fromEntries(x.nodes.map((v) => [v.node, v.feasible]))), "explain: every node's verdict");
  await page.check("#explain-feasible-only");
  equal(await page.$$eval("#explain-nodes-body tr", (trs) => trs.length), x.nodes.filter((v) => v.feasible).length, "explain: only the feasible nodes");
  equal(await page.textContent("#node-detail h3"), x.node, "explain: the pod's node is selected");
  await page.check("#m-feasible-box");
  await page.screenshot({ path: join(out, "explain.png"), fullPage: true });
  await close("explain", p);
}

// ---------- 4. the controller's page, as it served it ----------
if (pagesDir) {
  const html = join(pagesDir, "controller.html");
  check(existsSync(html), `controller: ${html} was written by the run tests (LOADSHIFT_PAGE_OUT)`);
  if (existsSync(html)) {
    const doc = JSON.parse(readFileSync(join(pagesDir, "controller.json"), "utf8"));
    const p = await open(html, "controller page");
    await checkReport("controller", p.page, doc);
    const status = await p.page.textContent("#status");
    check(status.includes("planned eviction(s) carried out"), `controller: the cycle's status is shown: ${status}`);
    await p.page.screenshot({ path: join(out, "controller.png"), fullPage: false });
    await close("controller", p);
  }
}

// ---------- 5. a large generated cluster ----------
if (large > 0) {
  const dir = join(out, `large-${large}`);
  mkdirSync(dir, { recursive: true });
  const cluster = join(dir, "cluster.json");
  const usage = join(dir, "usage.json");
  let t = Date.now();
  execFileSync("python3", [join(root, "test/data/shared/tools/gen_cluster.py"), "--nodes", String(large), "--pods-per-node", "30", "--hot-fraction", "0.1", "--seed", "1", "--compact", "--out", cluster, "--usage-out", usage], { stdio: ["ignore", "ignore", "inherit"] });
  console.log(`large: cluster of ${large} nodes generated in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  const base = ["report", "--policy", seed.policy, "--snapshot", cluster, "--usage", usage, ...at];
  t = Date.now();
  const doc = JSON.parse(loadshift([...base, "--output", "json"], join(dir, "report.json")));
  const file = join(dir, "report.html");
  loadshift([...base, "--output", "html"], file);
  console.log(`large: json and html reports written in ${((Date.now() - t) / 1000).toFixed(1)} s; ${doc.nodes.length} nodes, ${doc.evictions.length} evictions, ${doc.skipped.length} skipped pods`);
  const jsonSize = statSync(join(dir, "report.json")).size;
  const htmlSize = statSync(file).size;
  const gz = execFileSync("gzip", ["-9", "-c", file], { maxBuffer: 1 << 30 }).length;
  console.log(`large: the page is ${(htmlSize / 1048576).toFixed(2)} MiB (${(gz / 1048576).toFixed(2)} MiB gzipped); the JSON report ${(jsonSize / 1048576).toFixed(2)} MiB`);
  // Small enough to mail: the page no larger than the JSON of the same plan, and a couple of MiB
  // compressed. (Its time to draw is printed, not asserted: a busy machine is not a bug.)
  check(htmlSize <= jsonSize, `large: the page (${htmlSize} bytes) is larger than the JSON report (${jsonSize})`);
  check(gz < 2 * 1048576, `large: the page gzipped is ${gz} bytes, over 2 MiB`);
  const p = await open(file, `large report (${large} nodes)`);
  console.log(`large: rendered in ${p.load.toFixed(0)} ms to the load event, page script ${p.renderMs} ms (target: under 2000 ms)`);
  await checkReport(`large ${large}`, p.page, doc);
  await p.page.screenshot({ path: join(out, `large-${large}.png`), fullPage: false });
  await close("large", p);
  // The 540 MB cluster is not kept.
  execFileSync("rm", ["-f", cluster, usage]);
}

await browser.close();
if (failures > 0) {
  console.error(`html_report_test: ${failures} check(s) failed`);
  process.exit(1);
}
console.log("html_report_test: every check passed");

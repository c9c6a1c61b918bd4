// The practice page: problem list, statement, editor, streaming results, history. No framework, no inline
// scripts (the CSP forbids them); the editor comes from editor.js (CodeMirror 6, built in web/frontend/).
// Every text comes from judge/report/catalog.py: web/pages.py puts the page.* and verdict.* entries, both languages,
// into the #page-text data block. This file holds no text of its own.
"use strict";

const TEXT = JSON.parse(document.getElementById("page-text").textContent);
const LAYOUT_KEY = "practice-layout";
const $ = (id) => document.getElementById(id);
const state = {
  lang: "zh", problem: null, problems: null, editor: null, current: null, source: null,
  shown: null, lastStarted: null, running: [], clock: null, busy: false, grown: null,
};

function cookie(name) {
  const hit = document.cookie.split("; ").find((c) => c.startsWith(name + "="));
  return hit ? decodeURIComponent(hit.slice(name.length + 1)) : null;
}
function fill(text, fields) {
  return String(text).replace(/\{(\w+)\}/g, (_, k) => fields[k]);
}
function t(key, fields = {}) {
  return fill(TEXT[state.lang][key] ?? TEXT.zh[key] ?? key, fields);
}
function verdictName(verdict) {
  const text = t(`verdict.${verdict}`);
  return state.lang === "en" ? text.charAt(0).toUpperCase() + text.slice(1) : text;
}
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v; else if (k === "text") node.textContent = v; else node.setAttribute(k, v);
  }
  for (const child of children) if (child != null) node.append(child);
  return node;
}

// ---- the server: JSON calls, and a bilingual banner with a retry when it cannot be reached ---------------------
class Offline extends Error {}

const BUSY_TRIES = 24;  // about two minutes of Retry-After waits before a 503 is shown as an error

async function api(path, options = {}) {
  const sep = path.includes("?") ? "&" : "?";
  for (let attempt = 1; ; attempt++) {
    let response;
    try {
      response = await fetch(path + sep + "lang=" + state.lang, options);
    } catch (err) {
      throw new Offline(String(err));
    }
    const body = await response.json().catch(() => ({}));
    // 503: the judge's database, queue or disk is briefly away (or its queue is full), and nothing was taken:
    // wait as the server asks and send the same request again, saying so, rather than failing the learner.
    if (response.status === 503 && attempt < BUSY_TRIES) {
      const wait = Math.min(Math.max(Number(response.headers.get("Retry-After")) || 5, 1), 30);
      showBusy(`${body.detail || response.statusText} · ${t("retryingIn", { s: wait })}`);
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
      continue;
    }
    hideBusy();
    if (!response.ok) throw Object.assign(new Error(body.detail || response.statusText), { status: response.status });
    hideOffline();
    return body;
  }
}

function showBusy(text) {
  $("busy").textContent = text;
  $("busy").hidden = false;
}
function hideBusy() {
  $("busy").hidden = true;
}

// Run an action; if the server is gone, say so in both languages (the reader's may not be known) and offer a retry.
async function guarded(action) {
  try {
    return await action();
  } catch (err) {
    if (!(err instanceof Offline)) throw err;
    showOffline(() => guarded(action));
    return undefined;
  }
}
function showOffline(retry) {
  $("offline-text").textContent = `${TEXT.zh.offline} ${TEXT.en.offline}`;
  $("offline-retry").textContent = `${TEXT.zh.retry} · ${TEXT.en.retry}`;
  $("offline-retry").onclick = () => { hideOffline(); retry(); };
  $("offline").hidden = false;
}
function hideOffline() {
  $("offline").hidden = true;
}

// ---- language -------------------------------------------------------------------------------------------------
function applyLang() {
  document.documentElement.lang = state.lang === "zh" ? "zh-CN" : "en";
  for (const node of document.querySelectorAll("[data-t]")) node.textContent = t(node.dataset.t);
  for (const b of document.querySelectorAll(".lang-switch button")) b.classList.toggle("active", b.dataset.lang === state.lang);
  if (!$("problem").hidden) labelSplitters();
}
async function setLang(lang) {
  state.lang = lang;
  document.cookie = `practice_lang=${lang}; path=/; max-age=31536000; SameSite=Lax`;
  applyLang();
  if (state.problem) {
    renderStatement();
    guarded(showTerminalProgress);
    await guarded(loadHistory);
    if (state.current) await guarded(() => reproject(state.current));
    else clearResults();
  } else if (!$("home").hidden) {
    await guarded(showHome);
  }
}

// ---- home -----------------------------------------------------------------------------------------------------
// A submit accepted with every tier run solves an exercise; one whose GPU tier is still to be judged does not.
const fullyRan = (tiers) => !Object.values(tiers || {}).includes("skipped");
function progressOf(entries) {
  const accepted = entries.filter((h) => h.mode === "submit" && h.verdict === "accepted");
  if (accepted.some((h) => fullyRan(h.tiers))) return "solved";
  if (accepted.length) return "cpuOnly";
  return entries.length ? "attempted" : "notStarted";
}

// An exercise that needs a package this server lacks (107 without Triton) says so; the server refuses it (409).
const needsNote = (p) => ((p.missing || []).length
  ? [el("span", { class: "needs", text: t("needs", { names: p.missing.join(", ") }) })] : []);

async function showHome() {
  $("home").hidden = false;
  const [problems, history] = await Promise.all([api("/api/problems"), api("/api/submissions?limit=200")]);
  const rows = $("problem-rows");
  rows.replaceChildren();
  const counts = { solved: 0, cpuOnly: 0 };
  for (const p of problems) {
    const stateKey = progressOf(history.filter((h) => h.problem_id === p.id));
    if (stateKey in counts) counts[stateKey] += 1;
    const link = el("a", { href: `/problems/${p.id}`, text: p.title[state.lang] });
    rows.append(el("tr", {},
      el("td", { class: "num", text: p.id }), el("td", {}, link, ...needsNote(p)),
      el("td", {}, el("span", { class: `badge ${p.difficulty}`, text: t(p.difficulty) })),
      el("td", { class: "tags" }, ...p.tags.map((tag) => el("span", { class: "tag", text: tag }))),
      el("td", {}, el("span", { class: `state ${stateKey}`, text: t(stateKey) }))));
  }
  $("progress").hidden = false;
  $("progress-fill").style.width = `${problems.length ? (100 * counts.solved) / problems.length : 0}%`;
  $("progress-text").textContent = t("progress", { solved: counts.solved, total: problems.length })
    + (counts.cpuOnly ? t("progressCpu", { n: counts.cpuOnly }) : "");
  state.homeCounts = counts;
  guarded(showTerminalStates);  // learner.js: what the terminal solved, where the page can see it
}

// ---- problem page ---------------------------------------------------------------------------------------------
const draftKey = () => `practice-draft:${state.problem.id}`;

async function showProblem(id) {
  let problem;
  try {
    problem = await api(`/api/problems/${encodeURIComponent(id)}`);
  } catch (err) {
    if (err instanceof Offline) throw err;
    $("missing").hidden = false;
    return;
  }
  state.problem = problem;
  $("problem").hidden = false;
  restoreLayout();
  $("crumbs").replaceChildren(el("span", { text: "›" }), el("span", { text: `${problem.id}` }), ...needsNote(problem));
  $("file-name").textContent = problem.solution_file;
  $("public-tests").innerHTML = problem.public_tests_html;  // Pygments HTML from the server (escaped source)
  $("probes").innerHTML = problem.probes_html;
  renderStatement();
  const draft = localStorage.getItem(draftKey());
  state.editor = window.PracticeEditor.create($("editor"), {
    doc: draft ?? problem.starter,
    onRun: () => send("run"),
    onSubmit: () => send("submit"),
    onChange: (text) => localStorage.setItem(draftKey(), text),
  });
  $("run").addEventListener("click", () => send("run"));
  $("submit").addEventListener("click", () => send("submit"));
  $("cancel").addEventListener("click", cancel);
  $("reset").addEventListener("click", () => {
    if (window.confirm(t("confirmReset"))) { state.editor.setValue(problem.starter); localStorage.removeItem(draftKey()); }
  });
  for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => showTab(tab.dataset.tab));
  setBusy(false);  // Run and Submit as this server can offer them
  $("dialog-close").addEventListener("click", () => $("history-dialog").close());
  $("dialog-load").addEventListener("click", loadIntoEditor);
  document.addEventListener("keydown", shortcut);
  setupSplitters();
  followScreenWidth();  // learner.js: soft wrap in the editor on a narrow screen
  setupTry(problem);  // learner.js: the Try tab, where the exercise offers one
  guarded(showTerminalProgress);  // learner.js: the terminal's last result here, or that they are kept apart
  const entries = await loadHistory();
  if (entries && entries.length) await restoreLast(entries[0]);
}

// Ctrl/Cmd-Enter runs, Ctrl/Cmd-Shift-Enter submits, also outside the editor (the editor handles its own first).
function shortcut(event) {
  if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey) || event.defaultPrevented) return;
  if ($("history-dialog").open || cannotJudge()) return;
  event.preventDefault();
  send(event.shiftKey ? "submit" : "run");
}

function loadIntoEditor() {
  const code = $("dialog-code").textContent;
  const mine = state.editor.getValue();
  const changed = mine !== state.problem.starter && mine !== code;
  if (changed && !window.confirm(t("confirmLoad"))) return;
  state.editor.setValue(code);
  $("history-dialog").close();
}

function showTab(name) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.tab === name);
  for (const body of document.querySelectorAll(".tab-body")) body.hidden = body.id !== `tab-${name}`;
}

// The chapter by its title, linked to the handbook's section where the server names one.
function chapterNote(p) {
  const title = (p.chapter_title || {})[state.lang] || p.chapter;
  const url = (p.chapter_title || {}).url;
  const name = url && /^https?:\/\//.test(url) ? el("a", { href: url, text: title, rel: "noopener" }) : title;
  return el("span", { class: "muted" }, `${t("chapter")}: `, name);
}

function renderStatement() {
  const p = state.problem;
  document.title = `${p.id}. ${p.title[state.lang]} · ${t("brand")}`;
  $("problem-meta").replaceChildren(
    el("span", { class: `badge ${p.difficulty}`, text: t(p.difficulty) }),
    chapterNote(p),
    el("span", { class: "muted", text: `${t("wall", { s: p.limits.wall_s })} · ${t("memory", { m: p.limits.memory_mib })}` }),
    ...p.tags.map((tag) => el("span", { class: "tag", text: tag })));
  $("statement").innerHTML = p.statement[state.lang].html;  // rendered by the server from the problem's markdown
}

// ---- resizable panes, remembered in this browser ---------------------------------------------------------------
const LIMITS = { left: [0.2, 0.75], editor: [0.25, 0.9] };
// The editor's share of the right column: at 1440x900 that is over 30 lines; after a verdict the results grow.
const DEFAULT_LAYOUT = { left: 0.42, editor: 0.82 };
const GROWN = 0.5;  // after a verdict the editor keeps at most this share of the column (less if it needs less)
function savedLayout() {
  try { return JSON.parse(localStorage.getItem(LAYOUT_KEY) || "{}"); } catch { return {}; }
}
function layout() {
  return { ...DEFAULT_LAYOUT, ...savedLayout(), ...(state.grown || {}) };
}
function applyLayout(sizes) {
  const ws = $("problem").style;
  ws.setProperty("--left-fr", `${(sizes.left * 100).toFixed(2)}fr`);
  ws.setProperty("--right-fr", `${((1 - sizes.left) * 100).toFixed(2)}fr`);
  ws.setProperty("--editor-fr", `${(sizes.editor * 100).toFixed(2)}fr`);
  ws.setProperty("--results-fr", `${((1 - sizes.editor) * 100).toFixed(2)}fr`);
  $("split-columns").setAttribute("aria-valuenow", String(Math.round(sizes.left * 100)));
  $("split-rows").setAttribute("aria-valuenow", String(Math.round(sizes.editor * 100)));
}
function restoreLayout() {
  state.grown = null;
  applyLayout(layout());
}
// After a verdict the results take at least half the column, and the editor gives back the lines it does not fill.
// A position the learner chose (dragged or moved with the keys, kept in this browser) is theirs: it is left alone.
function growResults() {
  if (savedLayout().editor !== undefined || window.matchMedia("(max-width: 900px)").matches) return;
  const column = $("pane-right").getBoundingClientRect().height;
  if (!column || !state.editor) return;
  const needs = editorNeeds() / column;
  const editor = Math.max(LIMITS.editor[0], Math.min(layout().editor, GROWN, needs));
  if (editor < layout().editor) {
    state.grown = { editor };
    applyLayout(layout());
  }
}
// The editor pane's height for every line of the document: its toolbar and hint bar, and the lines themselves.
function editorNeeds() {
  const view = state.editor.view;
  const chrome = $("pane-editor").getBoundingClientRect().height - $("editor").getBoundingClientRect().height;
  return chrome + (view.state.doc.lines + 1) * view.defaultLineHeight + 12;
}
function labelSplitters() {
  for (const [id, key] of [["split-columns", "splitColumns"], ["split-rows", "splitRows"]]) {
    $(id).setAttribute("aria-label", t(key));
    $(id).title = t(key);
  }
}
function setupSplitters() {
  const clamp = (key, v) => Math.min(LIMITS[key][1], Math.max(LIMITS[key][0], v));
  const save = (key, value) => {
    const sizes = { ...layout(), [key]: clamp(key, value) };
    state.grown = null;
    applyLayout(sizes);
    localStorage.setItem(LAYOUT_KEY, JSON.stringify({ left: sizes.left, editor: sizes.editor }));
  };
  const KEYS = { ArrowLeft: -0.02, ArrowUp: -0.02, ArrowRight: 0.02, ArrowDown: 0.02, PageUp: -0.1, PageDown: 0.1 };
  const drag = (splitter, key, fraction) => {
    splitter.addEventListener("pointerdown", (down) => {
      down.preventDefault();
      splitter.setPointerCapture(down.pointerId);
      splitter.classList.add("dragging");
      const move = (e) => save(key, fraction(e));
      const up = () => {
        splitter.classList.remove("dragging");
        splitter.removeEventListener("pointermove", move);
        splitter.removeEventListener("pointerup", up);
      };
      splitter.addEventListener("pointermove", move);
      splitter.addEventListener("pointerup", up);
    });
    splitter.addEventListener("keydown", (e) => {
      const ends = { Home: LIMITS[key][0], End: LIMITS[key][1] };
      if (e.key in KEYS) { e.preventDefault(); save(key, layout()[key] + KEYS[e.key]); }
      else if (e.key in ends) { e.preventDefault(); save(key, ends[e.key]); }
    });
  };
  labelSplitters();
  drag($("split-columns"), "left", (e) => {
    const box = $("problem").getBoundingClientRect();
    return (e.clientX - box.left) / box.width;
  });
  drag($("split-rows"), "editor", (e) => {
    const box = $("pane-right").getBoundingClientRect();
    return (e.clientY - box.top) / box.height;
  });
}

// ---- judging --------------------------------------------------------------------------------------------------
async function send(mode) {
  if (state.busy) return;
  const code = state.editor.getValue();
  state.editor.clearError();
  setBusy(true);
  startClock(Date.now());
  let accepted;
  try {
    accepted = await api("/api/submissions", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ problem_id: state.problem.id, code, mode }),
    });
  } catch (err) {
    setBusy(false);
    stopClock();
    $("clock").hidden = true;
    if (err instanceof Offline) { showOffline(() => send(mode)); return; }
    showVerdict("error", t("failedToSend") + err.message, "");
    return;
  }
  state.current = accepted.id;
  follow(accepted.id);
  guarded(loadHistory);
}

async function cancel() {
  if (!state.current) return;
  try {
    await api(`/api/submissions/${state.current}/cancel`, { method: "POST" });
  } catch (err) {
    if (err instanceof Offline) showOffline(cancel);
    // 409: it ended meanwhile; its `done` event is on its way
  }
}

// An exercise this server cannot judge (107 without Triton) keeps Run and Submit disabled, saying why.
const cannotJudge = () => (state.problem && (state.problem.missing || []).length
  ? t("needs", { names: state.problem.missing.join(", ") }) : "");

function setBusy(busy) {
  state.busy = busy;
  const why = cannotJudge();
  for (const id of ["run", "submit"]) {
    $(id).disabled = busy || Boolean(why);
    if (why) $(id).title = why;
  }
  $("cancel").hidden = !busy;
}

function startClock(since) {
  stopClock();
  const tick = () => { $("clock").textContent = t("seconds", { s: ((Date.now() - since) / 1000).toFixed(1) }); };
  tick();
  $("clock").hidden = false;
  state.clock = setInterval(tick, 100);
}
function stopClock() {
  if (state.clock) clearInterval(state.clock);
  state.clock = null;
}

function runningLine(text) {
  $("running-case").replaceChildren(el("span", { class: "spinner", "aria-hidden": "true" }), text);
  $("running-case").hidden = !text;
}

function showRunning() {
  const names = state.running.flatMap((name, i) => (i ? [" · ", el("code", { text: name })] : [el("code", { text: name })]));
  runningLine(el("span", {}, t("runningCase"), ...names));
}

function follow(id) {
  if (state.source) state.source.close();
  clearResults();
  state.lastStarted = null;
  state.running = [];  // public cases started and not yet finished: two at once when a Run is split over two pairs
  setBusy(true);
  const source = new EventSource(`/api/submissions/${id}/events?lang=${state.lang}`);
  state.source = source;
  const mine = () => state.source === source;
  source.addEventListener("queued", (e) => {
    clearResults();
    showVerdict("pending", t("queued"), t("position", { n: JSON.parse(e.data).position }));
  });
  // -- restarted: the worker judging it died, and it is judged again from the start. The first attempt's cases are
  // cleared (the stream tells only the new attempt's from here on), so that each case is drawn once.
  source.addEventListener("restarted", () => {
    clearResults();
    state.lastStarted = null;
    state.running = [];
    showVerdict("pending", t("queued"), t("restarted"));
  });
  // -- end of restarted
  source.addEventListener("running", () => { showVerdict("pending", t("running"), ""); runningLine(t("importing")); });
  source.addEventListener("collected", (e) => showVerdict("pending", t("running"), t("tests", { n: JSON.parse(e.data).total })));
  source.addEventListener("case_started", (e) => {
    const started = JSON.parse(e.data);
    if (started.hidden) {  // which hidden case, and how many are done, is never shown
      state.lastStarted = null;
      $("summary").textContent = "";
      runningLine(t("runningHidden"));
    } else {
      state.lastStarted = started.name;
      state.running.push(started.name);
      showRunning();
    }
  });
  source.addEventListener("case", (e) => {
    const c = JSON.parse(e.data);
    if (c.hidden) return;
    addCase(c);
    state.running = state.running.filter((name) => name !== c.name);
    if (state.running.length) showRunning();  // none left: the line keeps the last name until the next starts
  });
  const end = (render) => (e) => {
    source.close();
    if (!mine()) return;
    state.source = null;
    render(JSON.parse(e.data || "{}"));
    guarded(loadHistory);
  };
  source.addEventListener("done", end((sub) => renderSubmission(sub, true)));
  source.addEventListener("cancelled", end(() => renderCancelled()));
  source.onerror = async () => {
    if (source.readyState === EventSource.CLOSED) {
      // The server answered the reconnection with an error (503 while its database is away): follow again after
      // a pause, as Retry-After asks; the stream replays from the start, so nothing is missed.
      if (!mine()) return;
      showBusy(t("busyRetrying", { what: t("judgeStore"), s: 5 }));
      setTimeout(() => { if (mine()) { hideBusy(); follow(id); } }, 5000);
      return;
    }
    if (!(await reachable())) {
      source.close();
      if (mine()) showOffline(() => follow(id));
    }
  };
}

async function reachable() {
  try { await fetch("/api/problems?limit=1", { method: "HEAD" }); return true; } catch { return false; }
}

async function reproject(id) {
  if (state.source) { follow(id); return; }  // still streaming: replay it in the new language
  renderSubmission(await api(`/api/submissions/${id}`), true);
}

// The last judgement of this exercise, as it was when the page was left (or still going).
async function restoreLast(entry) {
  state.current = entry.id;
  if (entry.status === "queued" || entry.status === "running") {
    startClock(Date.parse(entry.created_at));
    follow(entry.id);
    return;
  }
  if (entry.status === "cancelled") { renderCancelled(); return; }
  const sub = await api(`/api/submissions/${entry.id}`);
  renderSubmission(sub, sub.code === state.editor.getValue());
}

function clearResults() {
  $("cases").replaceChildren();
  for (const id of ["report-message", "output-top", "output-bottom", "next", "verdict-lead", "running-case", "retry-judgement"]) {
    $(id).hidden = true;
  }
}

function showVerdict(kind, label, summary) {
  const v = $("verdict");
  v.className = `verdict ${kind}`;
  v.textContent = label;
  v.removeAttribute("data-t");
  $("summary").textContent = summary;
}

function finished() {
  setBusy(false);
  stopClock();
  runningLine("");
}

function renderCancelled() {
  finished();
  clearResults();
  $("clock").hidden = true;
  showVerdict("cancelled", t("cancelled"), "");
  lead(t("cancelledLead"));
}

function lead(text) {
  $("verdict-lead").textContent = text;
  $("verdict-lead").hidden = !text;
}

const MARKS = { passed: "✓", failed: "✗", error: "!", skipped: "–" };
function caseRow(c, timedOut = false) {
  const name = c.hidden ? `${t("hidden")} ${c.name.replace(/^hidden /, "")}` : c.name;
  const row = el("li", { class: `case ${c.outcome}${timedOut ? " timed-out" : ""}`, "data-outcome": c.outcome },
    el("span", { class: "mark", text: MARKS[c.outcome] }),
    el("span", { class: "case-name", text: name }),
    caseTime(c),  // learner.js: a public case's time (hidden cases carry none)
    el("span", { class: "case-outcome", text: t(`outcome.${c.outcome}`) }));
  if (timedOut) row.append(el("div", { class: "case-note", text: t("timedOutHere") }));
  if (c.message) row.append(el("pre", { class: "case-message", text: c.message }));
  if (c.hint && c.outcome !== "passed") {  // what a failing case checks; a passing one needs no hint
    row.append(el("div", { class: "case-hint" },
      el("span", { class: "hint-icon", "aria-hidden": "true" }), el("strong", { text: `${t("hint")}: ` }), c.hint));
  }
  if (c.op_trace) row.append(opTrace(c.op_trace));
  if (c.hints && c.hints.length) row.append(hintLadder(c));  // learner.js: revealed one at a time, remembered
  return row;
}

// The op trace of a failing public case: the reference's aten ops beside the learner's, the first difference
// marked; every word comes with the report (the judge's catalogue), in the page's language.
function opTrace(trace) {
  const head = el("tr", {}, el("th", { text: "#" }), el("th", { text: trace.columns[0] }), el("th", { text: trace.columns[1] }));
  const rows = trace.rows.map((r) => el("tr", { class: r.step === trace.first_difference ? "differs" : "" },
    el("td", { text: String(r.step) }), el("td", {}, el("code", { text: r.reference })), el("td", {}, el("code", { text: r.yours }))));
  return el("details", { class: "op-trace", open: "" },
    el("summary", { text: trace.heading }),
    el("div", { class: "op-trace-table" }, el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows))),
    el("p", { class: "op-trace-summary", text: trace.summary }));
}

function addCase(c) {
  $("cases").append(caseRow(c));
}

// A message's indented lines (the code line and its caret) go into a monospace block that scrolls sideways.
function renderMessage(message) {
  const box = $("report-message");
  box.replaceChildren();
  let block = null;
  for (const line of message.split("\n")) {
    const code = /^\s/.test(line);
    if (code) {
      if (!block) { block = el("pre", { class: "caret-block" }); box.append(block); }
      block.textContent += (block.textContent ? "\n" : "") + line;
    } else {
      block = null;
      if (line) box.append(el("p", { text: line }));
    }
  }
  box.hidden = false;
  requestAnimationFrame(() => { for (const pre of box.querySelectorAll(".caret-block")) showCaret(pre); });
}

// A caret past the block's width would be scrolled out of sight: scroll the block so that it is in view.
function showCaret(pre) {
  const text = pre.firstChild;
  const at = text ? text.data.search(/\^/) : -1;
  if (at < 0 || pre.scrollWidth <= pre.clientWidth) return;
  const range = document.createRange();
  range.setStart(text, at);
  range.setEnd(text, at + 1);
  const x = range.getBoundingClientRect().left - pre.getBoundingClientRect().left + pre.scrollLeft;
  pre.scrollLeft = Math.max(0, x - pre.clientWidth * 0.75);
}

// On a time limit, the case that was running: the one the stream named last, else the single `error` case.
function timedOutCase(r) {
  if (r.verdict !== "time_limit_exceeded") return null;
  const errors = r.cases.filter((c) => c.outcome === "error");
  return errors.find((c) => !c.hidden && c.name === state.lastStarted) ?? (errors.length === 1 ? errors[0] : null);
}

function renderSubmission(sub, markEditor = false) {
  if (sub.status === "cancelled") { renderCancelled(); return; }
  const r = sub.report;
  if (!r) { follow(sub.id); return; }
  finished();
  clearResults();
  state.shown = sub.id;
  $("clock").hidden = true;
  let kind = "rejected";
  let label = verdictName(r.verdict);
  if (r.verdict === "accepted" && r.mode === "run") {
    [kind, label] = ["public-pass", t("publicPassed")];
    lead(t("publicPassedLead"));
  } else if (r.verdict === "accepted" && !fullyRan(r.tiers)) {
    [kind, label] = ["cpu-pass", t("cpuPassed")];
    lead(t("cpuPassedLead"));
  } else if (r.verdict === "accepted") {
    kind = "accepted";
    showNext();
  }
  showVerdict(kind, label,
    [t(r.mode === "run" ? "modeRun" : "modeSubmit"), r.total ? t("passedOf", { p: r.passed, t: r.total }) : null,
      t("seconds", { s: r.duration_s.toFixed(1) })].filter(Boolean).join(" · "));
  if (r.message && r.verdict !== "accepted") renderMessage(r.message);
  if (r.verdict === "internal_error" && r.retryable) {  // the host's fault (a GPU runner away): offer to judge again
    $("retry-judgement").onclick = () => send(r.mode);
    $("retry-judgement").hidden = false;
  }
  const stuck = timedOutCase(r);
  const failing = r.cases.filter((c) => c.outcome !== "passed" && c !== stuck);
  const passing = r.cases.filter((c) => c.outcome === "passed");
  $("cases").replaceChildren(...(stuck ? [caseRow(stuck, true)] : []), ...failing.map((c) => caseRow(c)),
    ...passing.map((c) => caseRow(c)));
  if (r.output) {
    const importFailed = r.verdict === "compile_error" || r.total === 0;
    const block = $(importFailed ? "output-top" : "output-bottom");
    const lines = r.output.replace(/\n$/, "").split("\n").length;
    block.querySelector("summary").textContent = `${t("yourOutput")} · ${t("outputLines", { n: lines })}`;
    block.querySelector("pre").textContent = r.output;
    block.open = importFailed;
    block.hidden = false;
  }
  if (sub.error_line && markEditor) state.editor.showError(sub.error_line, r.message || t("importError"));
  // The results pane grows and the editor gives back its spare lines; the first failure comes into view under the
  // pinned verdict (failures are listed first, so it is usually in view already).
  growResults();
  const first = $("cases").querySelector(".case:not(.passed)");
  if (first && r.verdict !== "accepted") first.scrollIntoView({ block: "nearest" });
}

async function showNext() {
  const problems = state.problems ?? (state.problems = await api("/api/problems"));
  const at = problems.findIndex((p) => p.id === state.problem.id);
  const next = problems[at + 1];
  const link = $("next");
  link.href = next ? `/problems/${next.id}` : "/";
  link.textContent = next ? `${t("next")}: ${next.id}. ${next.title[state.lang]} →` : t("allDone");
  link.hidden = false;
}

// ---- history --------------------------------------------------------------------------------------------------
const pad = (n) => String(n).padStart(2, "0");
function when(iso) {
  const d = new Date(iso);
  if (state.lang === "zh") return d.toLocaleString("zh-CN", { hour12: false });
  // English: the ISO date form (local time), never day-first or month-first
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

function historyPill(h) {
  if (h.status === "cancelled") return ["cancelled", t("cancelled")];
  if (!h.verdict) return ["pending", t(h.status === "running" ? "running" : "queued")];
  if (h.verdict !== "accepted") return ["rejected", verdictName(h.verdict)];
  if (h.mode === "run") return ["public", t("publicPassed")];
  return fullyRan(h.tiers) ? ["accepted", verdictName("accepted")] : ["cpu", t("cpuPassed")];
}

async function loadHistory() {
  if (!state.problem) return undefined;
  const entries = await api(`/api/submissions?problem_id=${encodeURIComponent(state.problem.id)}&limit=50`);
  $("history-empty").hidden = entries.length > 0;
  $("history-rows").replaceChildren(...entries.map((h) => {
    const [kind, text] = historyPill(h);
    const row = el("tr", { class: "history-entry", tabindex: "0", "data-id": h.id },
      el("td", { class: "when", text: when(h.created_at) }),
      el("td", { text: t(h.mode === "run" ? "modeRun" : "modeSubmit") }),
      el("td", {}, el("span", { class: `pill ${kind}`, text })),
      el("td", { class: "num", text: h.total != null ? `${h.passed}/${h.total}` : "" }));
    row.addEventListener("click", () => guarded(() => openHistory(h.id)));
    return row;
  }));
  return entries;
}

async function openHistory(id) {
  const sub = await api(`/api/submissions/${id}`);
  if (state.source && state.current !== id) { state.source.close(); state.source = null; }
  state.current = id;
  $("dialog-title").textContent = `${when(sub.created_at)} · ${t(sub.mode === "run" ? "modeRun" : "modeSubmit")}`;
  $("dialog-code").textContent = sub.code;
  renderSubmission(sub);
  $("history-dialog").showModal();
}

// ---- start ----------------------------------------------------------------------------------------------------
function start() {
  const saved = cookie("practice_lang");
  state.lang = saved === "en" || saved === "zh" ? saved : (navigator.language || "").toLowerCase().startsWith("en") ? "en" : "zh";
  applyLang();
  for (const b of document.querySelectorAll(".lang-switch button")) b.addEventListener("click", () => setLang(b.dataset.lang));
  window.addEventListener("resize", () => { for (const pre of document.querySelectorAll(".caret-block")) showCaret(pre); });
  const match = location.pathname.match(/^\/problems\/([^/]+)\/?$/);
  if (match) guarded(() => showProblem(decodeURIComponent(match[1]))); else guarded(showHome);
}

document.addEventListener("DOMContentLoaded", start);

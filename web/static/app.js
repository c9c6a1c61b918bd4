// The practice page: problem list, statement, editor, streaming results, history. No framework, no inline
// scripts (the CSP forbids them); the editor comes from editor.js (CodeMirror 6, built in web/frontend/).
"use strict";

const T = {
  zh: {
    brand: "练习判题", homeTitle: "章节练习", homeLead: "在浏览器里直接写代码、跑测试；也可以在本地用 python practice/judge.py 判题。",
    colId: "#", colTitle: "题目", colDifficulty: "难度", colTags: "标签", colState: "状态",
    tabStatement: "题目", tabTests: "公开测试", tabProbes: "探针", tabHistory: "提交记录",
    colWhen: "时间", colMode: "方式", colVerdict: "结果", colPassed: "通过", historyEmpty: "还没有提交。",
    reset: "恢复起始代码", run: "运行", submit: "提交", keyHint: "Ctrl/Cmd-Enter 运行公开测试 · 草稿自动保存在本浏览器",
    noResult: "还没有运行", notFound: "没有这道题", backHome: "返回题目列表", loadCode: "载入编辑器", close: "关闭",
    confirmReset: "丢弃你的代码，换回起始代码？", queued: "排队中", position: "第 {n} 位", running: "判题中…",
    tests: "{n} 个测试", passedOf: "{p}/{t} 通过", seconds: "{s} 秒", modeRun: "运行", modeSubmit: "提交",
    easy: "简单", medium: "中等", hard: "困难", notStarted: "未开始", attempted: "尝试过", solved: "已通过",
    hidden: "隐藏测试", yourOutput: "你的代码的输出", chapter: "章节", limits: "限制", wall: "时间 {s} 秒",
    memory: "内存 {m} MiB", failedToSend: "没能提交：", lostStream: "与服务器的连接断了，正在重连…",
    importError: "导入错误",
    verdicts: { accepted: "通过", wrong_answer: "答案错误", runtime_error: "运行时错误", compile_error: "导入失败（编译错误）",
      time_limit_exceeded: "超时", memory_limit_exceeded: "超内存", output_limit_exceeded: "输出超限",
      internal_error: "判题系统内部错误" },
    outcomes: { passed: "通过", failed: "失败", error: "错误", skipped: "跳过" },
  },
  en: {
    brand: "Practice Judge", homeTitle: "Chapter exercises", homeLead: "Write code and run the tests right in the browser; or judge locally with python practice/judge.py.",
    colId: "#", colTitle: "Title", colDifficulty: "Difficulty", colTags: "Tags", colState: "Status",
    tabStatement: "Statement", tabTests: "Public tests", tabProbes: "Probes", tabHistory: "Submissions",
    colWhen: "When", colMode: "Mode", colVerdict: "Verdict", colPassed: "Passed", historyEmpty: "No submissions yet.",
    reset: "Reset to starter", run: "Run", submit: "Submit", keyHint: "Ctrl/Cmd-Enter runs the public tests · drafts are kept in this browser",
    noResult: "Not run yet", notFound: "No such exercise", backHome: "Back to the exercises", loadCode: "Load into editor", close: "Close",
    confirmReset: "Discard your code and go back to the starter?", queued: "Queued", position: "position {n}", running: "Judging…",
    tests: "{n} tests", passedOf: "{p}/{t} passed", seconds: "{s} s", modeRun: "run", modeSubmit: "submit",
    easy: "easy", medium: "medium", hard: "hard", notStarted: "not started", attempted: "attempted", solved: "solved",
    hidden: "hidden test", yourOutput: "What your code printed", chapter: "Chapter", limits: "Limits", wall: "{s} s wall",
    memory: "{m} MiB memory", failedToSend: "Could not submit: ", lostStream: "Lost the connection; reconnecting…",
    importError: "Import error",
    verdicts: { accepted: "Accepted", wrong_answer: "Wrong answer", runtime_error: "Runtime error", compile_error: "Compile error (import failed)",
      time_limit_exceeded: "Time limit exceeded", memory_limit_exceeded: "Memory limit exceeded", output_limit_exceeded: "Output limit exceeded",
      internal_error: "Internal error of the judge" },
    outcomes: { passed: "passed", failed: "failed", error: "error", skipped: "skipped" },
  },
};

const $ = (id) => document.getElementById(id);
const state = { lang: "zh", problem: null, editor: null, current: null, source: null };

function cookie(name) {
  const hit = document.cookie.split("; ").find((c) => c.startsWith(name + "="));
  return hit ? decodeURIComponent(hit.slice(name.length + 1)) : null;
}
function t(key, fields = {}) {
  return String(T[state.lang][key] ?? key).replace(/\{(\w+)\}/g, (_, k) => fields[k]);
}
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v; else if (k === "text") node.textContent = v; else node.setAttribute(k, v);
  }
  for (const child of children) if (child != null) node.append(child);
  return node;
}
async function api(path, options = {}) {
  const sep = path.includes("?") ? "&" : "?";
  const response = await fetch(path + sep + "lang=" + state.lang, options);
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw Object.assign(new Error(body.detail || response.statusText), { status: response.status });
  return body;
}

// ---- language -------------------------------------------------------------------------------------------
function applyLang() {
  document.documentElement.lang = state.lang;
  for (const node of document.querySelectorAll("[data-t]")) node.textContent = t(node.dataset.t);
  for (const b of document.querySelectorAll(".lang-switch button")) b.classList.toggle("active", b.dataset.lang === state.lang);
}
async function setLang(lang) {
  state.lang = lang;
  document.cookie = `practice_lang=${lang}; path=/; max-age=31536000; SameSite=Lax`;
  applyLang();
  if (state.problem) {
    renderStatement();
    await loadHistory();
    if (state.current) await reproject(state.current);
  } else if (!$("home").hidden) {
    await showHome();
  }
}

// ---- home ---------------------------------------------------------------------------------------------
async function showHome() {
  $("home").hidden = false;
  const [problems, history] = await Promise.all([api("/api/problems"), api("/api/submissions?limit=200")]);
  const rows = $("problem-rows");
  rows.replaceChildren();
  for (const p of problems) {
    const mine = history.filter((h) => h.problem_id === p.id);
    const solved = mine.some((h) => h.mode === "submit" && h.verdict === "accepted");
    const stateKey = solved ? "solved" : mine.length ? "attempted" : "notStarted";
    const link = el("a", { href: `/problems/${p.id}`, text: p.title[state.lang] });
    rows.append(el("tr", {},
      el("td", { class: "num", text: p.id }), el("td", {}, link),
      el("td", {}, el("span", { class: `badge ${p.difficulty}`, text: t(p.difficulty) })),
      el("td", {}, ...p.tags.map((tag) => el("span", { class: "tag", text: tag }))),
      el("td", {}, el("span", { class: `state ${stateKey}`, text: t(stateKey) }))));
  }
}

// ---- problem page ----------------------------------------------------------------------------------------
const draftKey = () => `practice-draft:${state.problem.id}`;

async function showProblem(id) {
  let problem;
  try { problem = await api(`/api/problems/${encodeURIComponent(id)}`); } catch (err) {
    $("missing").hidden = false; return;
  }
  state.problem = problem;
  $("problem").hidden = false;
  $("crumbs").replaceChildren(el("span", { text: "›" }), el("span", { text: `${problem.id}` }));
  $("file-name").textContent = problem.solution_file;
  $("public-tests").textContent = problem.public_tests;
  $("probes").textContent = problem.probes;
  renderStatement();
  const draft = localStorage.getItem(draftKey());
  state.editor = window.PracticeEditor.create($("editor"), {
    doc: draft ?? problem.starter,
    onRun: () => send("run"),
    onChange: (text) => localStorage.setItem(draftKey(), text),
  });
  $("run").addEventListener("click", () => send("run"));
  $("submit").addEventListener("click", () => send("submit"));
  $("reset").addEventListener("click", () => {
    if (window.confirm(t("confirmReset"))) { state.editor.setValue(problem.starter); localStorage.removeItem(draftKey()); }
  });
  for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => showTab(tab.dataset.tab));
  $("dialog-close").addEventListener("click", () => $("history-dialog").close());
  $("dialog-load").addEventListener("click", () => { state.editor.setValue($("dialog-code").textContent); $("history-dialog").close(); });
  await loadHistory();
}

function showTab(name) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.tab === name);
  for (const body of document.querySelectorAll(".tab-body")) body.hidden = body.id !== `tab-${name}`;
}

function renderStatement() {
  const p = state.problem;
  document.title = `${p.id}. ${p.title[state.lang]} · ${t("brand")}`;
  $("problem-meta").replaceChildren(
    el("span", { class: `badge ${p.difficulty}`, text: t(p.difficulty) }),
    el("span", { class: "muted", text: `${t("chapter")}: ${p.chapter}` }),
    el("span", { class: "muted", text: `${t("wall", { s: p.limits.wall_s })} · ${t("memory", { m: p.limits.memory_mib })}` }),
    ...p.tags.map((tag) => el("span", { class: "tag", text: tag })));
  $("statement").innerHTML = p.statement[state.lang].html;  // rendered by the server from the problem's markdown
}

// ---- judging -------------------------------------------------------------------------------------------
async function send(mode) {
  const code = state.editor.getValue();
  state.editor.clearError();
  setBusy(true);
  let accepted;
  try {
    accepted = await api("/api/submissions", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ problem_id: state.problem.id, code, mode }),
    });
  } catch (err) {
    setBusy(false);
    showVerdict("error", t("failedToSend") + err.message, "");
    return;
  }
  state.current = accepted.id;
  follow(accepted.id);
  loadHistory();
}

function setBusy(busy) {
  for (const id of ["run", "submit"]) $(id).disabled = busy;
}

function follow(id) {
  if (state.source) state.source.close();
  resetResults();
  const source = new EventSource(`/api/submissions/${id}/events?lang=${state.lang}`);
  state.source = source;
  source.addEventListener("queued", (e) => { resetResults(); showVerdict("pending", t("queued"), t("position", { n: JSON.parse(e.data).position })); });
  source.addEventListener("running", () => showVerdict("pending", t("running"), ""));
  source.addEventListener("collected", (e) => showVerdict("pending", t("running"), t("tests", { n: JSON.parse(e.data).total })));
  source.addEventListener("case", (e) => addCase(JSON.parse(e.data)));
  source.addEventListener("done", (e) => {
    source.close();
    if (state.source === source) state.source = null;
    renderSubmission(JSON.parse(e.data), true);
    setBusy(false);
    loadHistory();
  });
}

async function reproject(id) {
  if (state.source) { follow(id); return; }  // still streaming: replay it in the new language
  renderSubmission(await api(`/api/submissions/${id}`), true);
}

function resetResults() {
  $("cases").replaceChildren();
  $("report-message").hidden = true;
  $("output").hidden = true;
}

function showVerdict(kind, label, summary) {
  const v = $("verdict");
  v.className = `verdict ${kind}`;
  v.textContent = label;
  $("summary").textContent = summary;
}

function caseRow(c) {
  const name = c.hidden ? `${t("hidden")} ${c.name.replace(/^hidden /, "")}` : c.name;
  const row = el("li", { class: `case ${c.outcome}`, "data-outcome": c.outcome },
    el("span", { class: "mark", text: { passed: "✓", failed: "✗", error: "!", skipped: "–" }[c.outcome] }),
    el("span", { class: "case-name", text: name }),
    el("span", { class: "case-outcome", text: T[state.lang].outcomes[c.outcome] }));
  if (c.message) row.append(el("pre", { class: "case-message", text: c.message }));
  if (c.hint) row.append(el("div", { class: "case-hint", text: "💡 " + c.hint }));
  return row;
}

function addCase(c) {
  $("cases").append(caseRow(c));
}

function renderSubmission(sub, markEditor = false) {
  const r = sub.report;
  if (!r) { follow(sub.id); return; }
  resetResults();
  const kind = r.verdict === "accepted" ? "accepted" : "rejected";
  showVerdict(kind, T[state.lang].verdicts[r.verdict],
    [t(r.mode === "run" ? "modeRun" : "modeSubmit"), r.total ? t("passedOf", { p: r.passed, t: r.total }) : null,
      t("seconds", { s: r.duration_s.toFixed(1) })].filter(Boolean).join(" · "));
  if (r.message && r.verdict !== "accepted") { $("report-message").textContent = r.message; $("report-message").hidden = false; }
  const failing = r.cases.filter((c) => c.outcome !== "passed");
  const passing = r.cases.filter((c) => c.outcome === "passed");
  $("cases").replaceChildren(...failing.map(caseRow), ...passing.map(caseRow));
  if (r.output) { $("output").textContent = `${t("yourOutput")}:\n${r.output}`; $("output").hidden = false; }
  if (sub.error_line && markEditor) state.editor.showError(sub.error_line, r.message || t("importError"));
}

// ---- history -------------------------------------------------------------------------------------------
const when = (iso) => new Date(iso).toLocaleString(state.lang === "zh" ? "zh-CN" : "en-GB");

async function loadHistory() {
  if (!state.problem) return;
  const entries = await api(`/api/submissions?problem_id=${encodeURIComponent(state.problem.id)}&limit=50`);
  $("history-empty").hidden = entries.length > 0;
  $("history-rows").replaceChildren(...entries.map((h) => {
    const verdict = h.verdict ? T[state.lang].verdicts[h.verdict] : t(h.status === "running" ? "running" : "queued");
    const row = el("tr", { class: "history-entry", tabindex: "0", "data-id": h.id },
      el("td", { text: when(h.created_at) }),
      el("td", { text: t(h.mode === "run" ? "modeRun" : "modeSubmit") }),
      el("td", {}, el("span", { class: `pill ${h.verdict === "accepted" ? "accepted" : h.verdict ? "rejected" : "pending"}`, text: verdict })),
      el("td", { class: "num", text: h.total != null ? `${h.passed}/${h.total}` : "" }));
    row.addEventListener("click", () => openHistory(h.id));
    return row;
  }));
}

async function openHistory(id) {
  const sub = await api(`/api/submissions/${id}`);
  state.current = id;
  $("dialog-title").textContent = `${when(sub.created_at)} · ${t(sub.mode === "run" ? "modeRun" : "modeSubmit")}`;
  $("dialog-code").textContent = sub.code;
  renderSubmission(sub);
  $("history-dialog").showModal();
}

// ---- start ---------------------------------------------------------------------------------------------
function start() {
  const saved = cookie("practice_lang");
  state.lang = saved === "en" || saved === "zh" ? saved : (navigator.language || "").toLowerCase().startsWith("en") ? "en" : "zh";
  applyLang();
  for (const b of document.querySelectorAll(".lang-switch button")) b.addEventListener("click", () => setLang(b.dataset.lang));
  const match = location.pathname.match(/^\/problems\/([^/]+)\/?$/);
  if (match) showProblem(decodeURIComponent(match[1])); else showHome();
}

document.addEventListener("DOMContentLoaded", start);

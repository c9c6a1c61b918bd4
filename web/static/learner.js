// The learner's extras on the practice page, beside app.js (whose helpers it uses: $, el, t, api, guarded, state,
// opTrace, verdictName): each case's time, the hint ladder of a failing check, the Try tab (your own input), the
// progress shared with the terminal, and soft wrap in the editor on a narrow screen. No text of its own: every
// string comes from the catalogue through t().
"use strict";

// ---- a case's time: public cases only (a hidden case's time could tell its input) -------------------------------
function caseTime(c) {
  if (c.hidden || typeof c.duration_s !== "number") return el("span", { class: "case-time" });
  const s = c.duration_s;
  const text = s < 1 ? t("ms", { n: Math.max(1, Math.round(s * 1000)) }) : t("seconds", { s: s.toFixed(2) });
  return el("span", { class: "case-time", text, title: text });
}

// ---- the hint ladder: a nudge, the concept, the near-answer; one at a time, remembered per check ------------------
const hintsKey = () => `practice-hints:${state.problem.id}`;
function revealed() {
  try { return JSON.parse(localStorage.getItem(hintsKey()) || "{}"); } catch { return {}; }
}
function reveal(check, n) {
  localStorage.setItem(hintsKey(), JSON.stringify({ ...revealed(), [check]: n }));
}

function hintLadder(c) {
  const box = el("div", { class: "case-hints", "data-check": c.check || "" });
  box.hints = c.hints;
  fillLadder(box);
  return box;
}

function fillLadder(box) {
  const hints = box.hints, check = box.dataset.check;
  const shown = Math.min(revealed()[check] || 0, hints.length);
  const steps = hints.slice(0, shown).map((hint, i) =>
    el("p", { class: "hint-step" }, el("strong", { text: `${t("hintOf", { n: i + 1, of: hints.length })}` }), hint));
  box.replaceChildren(...steps);
  if (shown < hints.length) {
    const label = shown ? t("hintMore", { n: shown + 1, of: hints.length }) : t("hintShow");
    const button = el("button", { type: "button", class: "btn hint-next", text: label });
    button.addEventListener("click", () => {
      reveal(check, shown + 1);
      // every row of this check shows the same rung (a hidden check's cases share their hints)
      for (const other of document.querySelectorAll(".case-hints")) if (other.dataset.check === check) fillLadder(other);
    });
    box.append(button);
  }
}

// ---- Try: your own input, the code in the editor beside the reference ---------------------------------------------
const tryKey = (op) => `practice-try:${state.problem.id}:${op}`;
let tryOps = [];

async function setupTry(problem) {
  $("tab-try-button").hidden = true;
  let ops;
  try {
    ops = await api(`/api/problems/${encodeURIComponent(problem.id)}/try`);
  } catch (err) {
    return;  // no Try for this exercise (404), or the server is away: the tab stays hidden
  }
  tryOps = ops;
  const select = $("try-op");
  select.replaceChildren(...ops.map((op) => el("option", { value: op.name, text: `${op.name}(${op.args.join(", ")})` })));
  const load = () => {
    const op = tryOps.find((o) => o.name === select.value) || tryOps[0];
    $("try-input").value = localStorage.getItem(tryKey(op.name)) ?? op.example;
  };
  select.onchange = load;
  $("try-example").onclick = () => {
    const op = tryOps.find((o) => o.name === select.value);
    $("try-input").value = op.example;
    localStorage.removeItem(tryKey(op.name));
  };
  $("try-input").oninput = () => localStorage.setItem(tryKey(select.value), $("try-input").value);
  $("try-run").onclick = () => guarded(runTry);
  load();
  $("tab-try-button").hidden = false;
}

async function runTry() {
  const button = $("try-run");
  if (button.disabled) return;
  button.disabled = true;
  $("try-result").replaceChildren(el("p", { class: "running-case" }, el("span", { class: "spinner" }), t("tryRunning")));
  try {
    const result = await api("/api/try", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ problem_id: state.problem.id, code: state.editor.getValue(), input: $("try-input").value }),
    });
    renderTry(result);
  } catch (err) {
    $("try-result").replaceChildren(el("p", { class: "report-message", text: err.message }));
    if (!err.status) throw err;  // offline: app.js's banner offers a retry
  } finally {
    button.disabled = false;
  }
}

const TRY_KIND = { same: "accepted", differs: "rejected" };
function renderTry(r) {
  const parts = [el("span", { class: `verdict ${TRY_KIND[r.status] || "error"}`, text: r.message })];
  if (r.input.length) parts.push(el("h4", { text: t("tryBuilt") }), valuesTable(r.input));
  if (r.yours.length || r.reference.length) parts.push(outputsTable(r));
  if (r.op_trace) parts.push(opTrace(r.op_trace));
  if (r.output) {
    const lines = r.output.replace(/\n$/, "").split("\n").length;
    parts.push(el("details", { class: "output-block" },
      el("summary", { text: `${t("yourOutput")} · ${t("outputLines", { n: lines })}` }),
      el("pre", { class: "output", text: r.output })));
  }
  $("try-result").replaceChildren(...parts);
}

function valuesTable(values) {
  const rows = values.map((v) => el("tr", {}, el("td", {}, el("code", { text: v.name })), el("td", {}, el("pre", { text: v.text }))));
  return el("div", { class: "try-table" }, el("table", {}, el("tbody", {}, ...rows)));
}

function outputsTable(r) {
  const yours = Object.fromEntries(r.yours.map((v) => [v.name, v.text]));
  const theirs = Object.fromEntries(r.reference.map((v) => [v.name, v.text]));
  const diffs = Object.fromEntries(r.differences.map((d) => [d.name, d]));
  const names = [...Object.keys(theirs), ...Object.keys(yours).filter((n) => !(n in theirs))];
  const head = el("tr", {}, ...["tryColName", "tryColYours", "tryColReference", "tryColDiff"].map((k) => el("th", { text: t(k) })));
  const rows = names.map((name) => {
    const d = diffs[name];
    const verdict = d ? el("div", { class: d.same ? "muted" : "difference-message", text: d.message }) : null;
    return el("tr", { class: d ? (d.same ? "same" : "differs") : "" },
      el("td", {}, el("code", { text: name })),
      el("td", {}, el("pre", { text: yours[name] ?? "" })),
      el("td", {}, el("pre", { text: theirs[name] ?? "" })),
      el("td", {}, verdict, d && d.diff ? el("pre", { text: d.diff }) : null));
  });
  return el("div", { class: "try-table" }, el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows)));
}

// ---- one progress: the terminal's results, where this server shares the learner's data folder ---------------------
async function terminalProgress() {
  try { return await api("/api/progress"); } catch (err) { if (!err.status) throw err; return { shared: false, terminal: {} }; }
}

async function showTerminalProgress() {
  const shown = $("terminal-progress");
  const progress = await terminalProgress();
  const mine = progress.terminal[state.problem.id];
  if (!progress.shared) {
    shown.textContent = t("progressApart");
  } else if (mine) {
    shown.textContent = t("inTerminal", {
      verdict: verdictName(mine.verdict), tests: t(`terminalTests.${mine.mode}`), when: when(mine.at),
    });
  } else {
    shown.textContent = "";
  }
  shown.hidden = !shown.textContent;
}

// On the home page: the exercises the terminal solved are marked, and counted as solved (one progress).
async function showTerminalStates() {
  const progress = await terminalProgress();
  const note = $("progress-note");
  note.textContent = progress.shared ? t("progressShared") : t("progressApart");
  note.hidden = false;
  const rows = [...document.querySelectorAll("#problem-rows tr")];
  let solved = 0;
  for (const row of rows) {
    const mine = progress.terminal[row.querySelector("td.num").textContent];
    const here = row.querySelector(".state").classList.contains("solved");
    if (mine && mine.solved && !here) {
      row.querySelector(".state").after(el("span", { class: "state solved terminal", text: ` · ${t("solvedInTerminal")}` }));
    }
    solved += here || Boolean(mine && mine.solved);
  }
  const cpuOnly = state.homeCounts ? state.homeCounts.cpuOnly : 0;
  $("progress-fill").style.width = `${rows.length ? (100 * solved) / rows.length : 0}%`;
  $("progress-text").textContent = t("progress", { solved, total: rows.length })
    + (cpuOnly ? t("progressCpu", { n: cpuOnly }) : "");
}

// ---- soft wrap in the editor on a narrow screen -------------------------------------------------------------------
function followScreenWidth() {
  const narrow = window.matchMedia("(max-width: 900px)");
  const apply = () => { if (state.editor && state.editor.setSoftWrap) state.editor.setSoftWrap(narrow.matches); };
  narrow.addEventListener("change", apply);
  apply();
}

// The page's code editor: CodeMirror 6 with Python, 4-space indent, Ctrl/Cmd-Enter to run, Ctrl/Cmd-Shift-Enter
// to submit, a way to point at the line an import error names, and soft wrap (a narrow screen turns it on). Built into ../static/editor.js by build.mjs (npm run build).
import { EditorView, basicSetup } from "codemirror";
import { keymap } from "@codemirror/view";
import { Compartment, EditorState, Prec } from "@codemirror/state";
import { indentUnit } from "@codemirror/language";
import { indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { setDiagnostics, lintGutter } from "@codemirror/lint";

// The CJK faces are named (Simplified Chinese first): left to the fallback, the glyphs follow the page's
// language, and in English the handbook's Chinese comments would come out in Japanese forms.
const MONO = 'ui-monospace, "SFMono-Regular", "JetBrains Mono", Menlo, Consolas, "Liberation Mono", ' +
  '"DejaVu Sans Mono", "Noto Sans Mono CJK SC", "Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei", monospace';

// The editor lives in a shadow root: there CodeMirror's styles go into adopted style sheets, which the page's
// Content-Security-Policy (style-src 'self', no inline styles) allows; in the document it would add <style> tags.
function create(host, { doc = "", onRun = () => {}, onSubmit = () => {}, onChange = () => {} } = {}) {
  const shadow = host.attachShadow({ mode: "open" });
  const parent = document.createElement("div");
  parent.style.height = "100%";
  shadow.append(parent);
  const wrapping = new Compartment();  // soft wrap, switched by setSoftWrap (the page does on a narrow screen)
  const runKeys = Prec.highest(keymap.of([
    { key: "Mod-Enter", run: () => { onRun(); return true; } },
    { key: "Mod-Shift-Enter", run: () => { onSubmit(); return true; } },
  ]));
  const view = new EditorView({
    parent,
    root: shadow,
    state: EditorState.create({
      doc,
      extensions: [
        basicSetup,
        python(),
        indentUnit.of("    "),
        EditorState.tabSize.of(4),
        keymap.of([indentWithTab]),
        runKeys,
        lintGutter(),
        wrapping.of([]),
        EditorView.updateListener.of((update) => { if (update.docChanged) onChange(view.state.doc.toString()); }),
        EditorView.theme({
          "&": { height: "100%", fontSize: "13px", backgroundColor: "#fff" },
          ".cm-scroller": { fontFamily: MONO, lineHeight: "1.5" },
          ".cm-gutters": { backgroundColor: "#f6f8fa", borderRight: "1px solid #e4e7ec", color: "#8c959f" },
        }),
        // The code's comments are the handbook's Chinese whatever the page's language: lang stays zh-CN here.
        EditorView.contentAttributes.of({ "aria-label": "code editor", lang: "zh-CN" }),
      ],
    }),
  });
  return {
    view,
    getValue: () => view.state.doc.toString(),
    setValue(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
      view.dispatch(setDiagnostics(view.state, []));
    },
    // Mark the line an import error names (1-based); out-of-range lines are clamped to the document.
    showError(line, message) {
      const doc = view.state.doc;
      const target = doc.line(Math.min(Math.max(1, line), doc.lines));
      view.dispatch(setDiagnostics(view.state, [{ from: target.from, to: target.to, severity: "error", message }]));
      view.dispatch({ effects: EditorView.scrollIntoView(target.from, { y: "center" }) });
    },
    clearError() { view.dispatch(setDiagnostics(view.state, [])); },
    // Long lines wrap at the editor's width instead of scrolling sideways (a phone has no room to scroll).
    setSoftWrap(on) { view.dispatch({ effects: wrapping.reconfigure(on ? EditorView.lineWrapping : []) }); },
    softWrap() { return wrapping.get(view.state) === EditorView.lineWrapping; },
    focus() { view.focus(); },
  };
}

window.PracticeEditor = { create };

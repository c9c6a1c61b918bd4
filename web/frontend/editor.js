// The page's code editor: CodeMirror 6 with Python, 4-space indent, Ctrl/Cmd-Enter to run, and a way to
// point at the line an import error names. Built into ../static/editor.js by build.mjs (npm run build).
import { EditorView, basicSetup } from "codemirror";
import { keymap } from "@codemirror/view";
import { EditorState, Prec } from "@codemirror/state";
import { indentUnit } from "@codemirror/language";
import { indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { setDiagnostics, lintGutter } from "@codemirror/lint";

function create(parent, { doc = "", onRun = () => {}, onChange = () => {} } = {}) {
  const runKeys = Prec.highest(keymap.of([
    { key: "Mod-Enter", run: () => { onRun(); return true; } },
  ]));
  const view = new EditorView({
    parent,
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
        EditorView.updateListener.of((update) => { if (update.docChanged) onChange(view.state.doc.toString()); }),
        EditorView.contentAttributes.of({ "aria-label": "code editor" }),
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
    focus() { view.focus(); },
  };
}

window.PracticeEditor = { create };

// The exercises' code editor (CodeMirror 6 with Python highlighting), loaded by live.js only
// when a reader turns an exercise live.
import { basicSetup, EditorView } from "codemirror";
import { python } from "@codemirror/lang-python";
import { indentUnit } from "@codemirror/language";
import { Prec } from "@codemirror/state";
import { keymap } from "@codemirror/view";
import { indentWithTab } from "@codemirror/commands";

export function createEditor(parent, doc, { onChange, onRun, label }) {
  return new EditorView({
    doc,
    parent,
    extensions: [
      basicSetup,
      python(),
      indentUnit.of("    "),
      // Highest: basicSetup's Enter binding also takes Shift-Enter (a new line) and comes first.
      Prec.highest(keymap.of([{ key: "Shift-Enter", run: () => { onRun(); return true; } }])),
      keymap.of([indentWithTab]),
      EditorView.contentAttributes.of({ "aria-label": label }),
      EditorView.updateListener.of((u) => { if (u.docChanged) onChange(u.state.doc.toString()); }),
    ],
  });
}

export function setText(view, text) {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}

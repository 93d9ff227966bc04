// The code editor: CodeMirror 6 with JavaScript, following the site's
// light or dark theme, with Ctrl/Cmd+Enter to run.

import {
  EditorView,
  EditorState,
  Compartment,
  basicSetup,
  keymap,
  javascript,
  oneDark,
} from "./vendor/codemirror.js";

function dark() {
  const root = document.documentElement;
  if (root.dataset.theme) return root.dataset.theme === "dark";
  return matchMedia("(prefers-color-scheme: dark)").matches;
}

/**
 * createEditor puts an editor holding doc into parent; onRun is called on
 * Ctrl/Cmd+Enter. It returns the EditorView, with code() and setCode()
 * beside it.
 */
export function createEditor(parent, doc, onRun, label = "Example code") {
  const theme = new Compartment();
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        keymap.of([{ key: "Mod-Enter", preventDefault: true, run: () => (onRun(), true) }]),
        basicSetup,
        javascript(),
        theme.of(dark() ? oneDark : []),
        EditorView.contentAttributes.of({ "aria-label": label }),
      ],
    }),
  });
  const follow = () => view.dispatch({ effects: theme.reconfigure(dark() ? oneDark : []) });
  // The toggle changes data-theme on <html>; the system can change too.
  new MutationObserver(follow).observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
  matchMedia("(prefers-color-scheme: dark)").addEventListener("change", follow);
  return {
    view,
    code: () => view.state.doc.toString(),
    setCode: (text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }),
  };
}

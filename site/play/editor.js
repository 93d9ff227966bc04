// The code editor: CodeMirror 6 with JavaScript, Ctrl/Cmd+Enter to run,
// and marks for errors. Its colours are CSS custom properties (--syn-*,
// --ed-*, set in play.css for each theme), so one editor follows the
// site's light or dark theme with nothing to reconfigure, and every
// colour is one a stylesheet can check for contrast.

import {
  EditorView,
  EditorState,
  basicSetup,
  keymap,
  javascript,
  HighlightStyle,
  syntaxHighlighting,
  tags as t,
  lintGutter,
  setDiagnostics,
} from "./vendor/codemirror.js";

const highlight = HighlightStyle.define([
  { tag: [t.keyword, t.controlKeyword, t.moduleKeyword, t.operatorKeyword, t.definitionKeyword, t.modifier], color: "var(--syn-keyword)" },
  { tag: [t.string, t.special(t.string), t.regexp, t.escape], color: "var(--syn-string)" },
  { tag: [t.number, t.bool, t.null, t.atom], color: "var(--syn-number)" },
  { tag: [t.comment, t.lineComment, t.blockComment, t.docComment], color: "var(--syn-comment)", fontStyle: "italic" },
  { tag: [t.function(t.variableName), t.function(t.propertyName)], color: "var(--syn-function)" },
  { tag: [t.definition(t.variableName), t.definition(t.propertyName)], color: "var(--syn-definition)" },
  { tag: [t.propertyName], color: "var(--syn-property)" },
  { tag: [t.className, t.typeName], color: "var(--syn-type)" },
  { tag: [t.operator, t.punctuation, t.bracket], color: "var(--syn-punctuation)" },
  { tag: t.invalid, color: "var(--syn-invalid)" },
]);

const theme = EditorView.theme({
  "&": { color: "var(--ed-fg)", backgroundColor: "var(--ed-bg)" },
  ".cm-content": { caretColor: "var(--ed-caret)" },
  ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--ed-caret)" },
  "&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection": {
    backgroundColor: "var(--ed-selection)",
  },
  ".cm-gutters": { backgroundColor: "var(--ed-gutter-bg)", color: "var(--ed-gutter-fg)", borderRight: "1px solid var(--ed-border)" },
  ".cm-activeLine": { backgroundColor: "var(--ed-active-line)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--ed-active-line)", color: "var(--ed-fg)" },
  ".cm-matchingBracket, &.cm-focused .cm-matchingBracket": { backgroundColor: "var(--ed-bracket)", outline: "1px solid var(--ed-border)" },
  ".cm-tooltip": { backgroundColor: "var(--ed-bg)", color: "var(--ed-fg)", border: "1px solid var(--ed-border)" },
  ".cm-panels": { backgroundColor: "var(--ed-gutter-bg)", color: "var(--ed-fg)" },
});

/**
 * createEditor puts an editor holding doc into parent; onRun is called on
 * Ctrl/Cmd+Enter, onChange(code) after each change the reader makes. It
 * returns {view, code(), setCode(text), markError({line, column,
 * message}), clearMarks()}: a mark underlines the place (from the column
 * to the end of its line) and puts a marker in the gutter; the next
 * change clears it.
 */
export function createEditor(parent, doc, onRun, label = "Example code", onChange) {
  let marked = false;
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        keymap.of([{ key: "Mod-Enter", preventDefault: true, run: () => (onRun(), true) }]),
        basicSetup,
        javascript(),
        syntaxHighlighting(highlight),
        theme,
        lintGutter(),
        // tabindex: the content is focusable as it is (contenteditable),
        // but checkers of scrollable regions look for a tab stop.
        EditorView.contentAttributes.of({ "aria-label": label, tabindex: "0" }),
        EditorView.updateListener.of((u) => {
          if (!u.docChanged) return;
          if (marked) clearMarks();
          onChange?.(u.state.doc.toString());
        }),
      ],
    }),
  });

  function clearMarks() {
    marked = false;
    view.dispatch(setDiagnostics(view.state, []));
  }

  function markError({ line, column = 1, message }) {
    const doc = view.state.doc;
    if (!(line >= 1 && line <= doc.lines)) return;
    const l = doc.line(line);
    const from = Math.min(l.from + Math.max(0, column - 1), l.to);
    // An error at the end of a line (a missing bracket) still shows: the
    // mark then covers the line's last character, or the empty line.
    const start = from === l.to && l.to > l.from ? l.to - 1 : from;
    view.dispatch(setDiagnostics(view.state, [{ from: start, to: Math.max(l.to, start), severity: "error", message }]));
    marked = true;
    view.dispatch({ effects: EditorView.scrollIntoView(start, { y: "nearest" }) });
  }

  return {
    view,
    code: () => view.state.doc.toString(),
    setCode: (text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }),
    markError,
    clearMarks,
  };
}

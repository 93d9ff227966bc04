// The parts of CodeMirror 6 the playground and the docs examples use. The
// colours are the site's own (editor.js), chosen for contrast in both
// themes, so no ready-made theme is bundled.
export { EditorView, basicSetup } from "codemirror";
export { keymap } from "@codemirror/view";
export { EditorState, Compartment } from "@codemirror/state";
export { indentWithTab } from "@codemirror/commands";
export { javascript } from "@codemirror/lang-javascript";
export { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
export { lintGutter, setDiagnostics } from "@codemirror/lint";
export { tags } from "@lezer/highlight";

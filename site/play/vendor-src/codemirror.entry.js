// The parts of CodeMirror 6 the playground and the docs examples use.
export { EditorView, basicSetup } from "codemirror";
export { keymap } from "@codemirror/view";
export { EditorState, Compartment } from "@codemirror/state";
export { indentWithTab } from "@codemirror/commands";
export { javascript } from "@codemirror/lang-javascript";
export { oneDark } from "@codemirror/theme-one-dark";

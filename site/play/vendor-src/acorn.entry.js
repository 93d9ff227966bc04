// acorn, the JavaScript parser, loaded only when a reader's program does
// not parse: V8's SyntaxError says what but not where, acorn says both.
export { parse } from "acorn";

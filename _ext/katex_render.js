// KaTeX for _ext/katex_math.py: one JSON request per line on stdin
//   {"tex": "...", "display": true|false, "macros": {...}}
// and one JSON answer per line on stdout: {"mathml": "..."} or {"error": "..."}.
// The answer is MathML alone (in KaTeX's <span class="katex">): the browser draws it
// (_ext/math_font.py gives it its font).
// Strict mode: anything KaTeX would only warn about (a character it has no metrics for,
// LaTeX it accepts but LaTeX would not) comes back as an error too.
"use strict";
const readline = require("node:readline");
const katex = require("katex");

const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on("line", (line) => {
  let answer;
  try {
    const { tex, display, macros } = JSON.parse(line);
    const mathml = katex.renderToString(tex, {
      displayMode: Boolean(display),
      throwOnError: true,
      strict: "error",
      macros: { ...macros },
      trust: false,
      output: "mathml",
    });
    answer = { mathml };
  } catch (err) {
    answer = { error: String(err && err.message ? err.message : err) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});

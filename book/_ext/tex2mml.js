// Formulas to MathML at build time (book/_ext/mathml_math.py starts this with node).
// Reads one JSON request per line, {"tex": "...", "display": true}, and answers one JSON line,
// {"mathml": "..."} or {"error": "..."}: MathJax's own TeX parser, with a TeX error reported
// instead of drawn in red on the page.
"use strict";
const path = require("path");
const readline = require("readline");

const root = process.argv[2];
require(path.join(root, "node_modules", "mathjax")).init({
  loader: {load: ["input/tex-base", "[tex]/ams", "[tex]/newcommand", "[tex]/noundefined"]},
  tex: {
    packages: ["base", "ams", "newcommand", "noundefined"],
    formatError: (jax, err) => { throw err; },
  },
}).then((MathJax) => {
  const lines = readline.createInterface({input: process.stdin});
  lines.on("line", (line) => {
    const request = JSON.parse(line);
    let answer;
    try {
      answer = {mathml: MathJax.tex2mml(request.tex, {display: request.display})};
    } catch (err) {
      answer = {error: String(err.message || err)};
    }
    process.stdout.write(JSON.stringify(answer) + "\n");
  });
}).catch((err) => {
  process.stderr.write(`MathJax did not start: ${err.message || err}\n`);
  process.exit(1);
});

// Syntax-check inline scripts without running them (webmend/repair/precheck.py).
// stdin: JSON [{"code": "...", "module": bool}, ...]; stdout: JSON [null | {"name", "message", "line"}, ...].
// vm.Script compiles exactly as a browser's classic script (no CommonJS wrapper, so a top-level
// `return` is an error as in the page); vm.SourceTextModule parses a module (needs
// --experimental-vm-modules). Compiling evaluates nothing: no import is resolved, no code runs.
"use strict";
const vm = require("vm");

function check(item) {
  try {
    if (item.module) {
      new vm.SourceTextModule(item.code, { identifier: "inline.mjs" });
    } else {
      new vm.Script(item.code, { filename: "inline.js" });
    }
    return null;
  } catch (err) {
    // The first stack line of a compile error is "<filename>:<line>".
    const where = /:(\d+)$/.exec(String(err && err.stack || "").split("\n")[0]);
    return { name: String(err && err.name || "Error"), message: String(err && err.message || err),
             line: where ? Number(where[1]) : null };
  }
}

const chunks = [];
process.stdin.on("data", (c) => chunks.push(c));
process.stdin.on("end", () => {
  const items = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  process.stdout.write(JSON.stringify(items.map(check)));
});

"use strict";
// The bundled server (scripts/bundle-server.sh, run by `npm run package`) loads in real Pythons:
// python3, and python3.10 (the oldest supported) when it is on PATH, plus any listed in
// SHAPEHINT_TEST_PYTHONS (colon-separated). Skipped when the libraries have not been bundled.
const test = require("node:test");
const assert = require("node:assert");
const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");
const { EXT } = require("./helpers/harness");

const LIBS = path.join(EXT, "bundled", "libs");
const LAUNCHER = path.join(EXT, "python", "shapehint_launch.py");
const bundled = fs.existsSync(path.join(LIBS, "shapehint", "__init__.py"));
const pythons = ["python3", "python3.10", ...(process.env.SHAPEHINT_TEST_PYTHONS || "").split(":").filter(Boolean)];

function probe(python, source) {
  try {
    return JSON.parse(execFileSync(python, [LAUNCHER, "probe", source, LIBS], { encoding: "utf8", timeout: 60000 }));
  } catch (err) {
    // Not installed (127: a pyenv shim for a version that is not selected).
    return err.code === "ENOENT" || err.status === 127 ? undefined : { ok: false, error: String(err.message) };
  }
}

for (const python of pythons) {
  test(`the bundled server imports in ${python}`, { skip: !bundled && "no bundled libraries (npm run package)" }, (t) => {
    const result = probe(python, "bundled");
    if (result === undefined) return t.skip(`${python} is not on PATH`);
    assert.ok(result.ok, `${python} (${result.python}): ${result.error}`);
    assert.ok(result.server.startsWith(LIBS));
  });
}

test("the probe reports a missing server without failing", { skip: !bundled && "no bundled libraries" }, () => {
  const result = probe("python3", "bundled");
  const missing = JSON.parse(execFileSync("python3", [LAUNCHER, "probe", "bundled", path.join(EXT, "no-such-dir")], { encoding: "utf8" }));
  assert.ok(result.python && missing.python === result.python);
  if (!missing.ok) assert.match(missing.error, /not in the bundled libraries|No module named/);
});

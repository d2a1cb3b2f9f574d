#!/usr/bin/env node
// Generates contributes.configuration in vscode-extension/package.json from the repository's
// shared/settings.json (the one declaration of every setting). `--check` only compares and
// exits 1 when they disagree (CI and tests/manifest.test.js use the same function).
"use strict";
const fs = require("fs");
const path = require("path");

const ROOT = path.resolve(__dirname, "..", "..");
const SCHEMA = path.join(ROOT, "shared", "settings.json");
const MANIFEST = path.join(__dirname, "..", "package.json");

// Scope per setting: interpreters are machine-specific; the rest may differ per folder.
const SCOPES = {
  "shapehint.interpreter": "machine-overridable",
  "shapehint.deviceRun.interpreter": "machine-overridable",
};

function configurationFromSchema(schema) {
  const properties = {};
  let order = 0;
  for (const [name, entry] of Object.entries(schema)) {
    properties[name] = { ...entry, scope: SCOPES[name] || "resource", order: order++ };
  }
  return { title: "ShapeHint", properties };
}

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

function expected() {
  return configurationFromSchema(readJson(SCHEMA));
}

function main(argv) {
  const manifest = readJson(MANIFEST);
  const want = expected();
  const same = JSON.stringify(manifest.contributes.configuration) === JSON.stringify(want);
  if (argv.includes("--check")) {
    if (!same) {
      console.error("vscode-extension/package.json contributes.configuration differs from shared/settings.json; " +
        "run `node vscode-extension/scripts/sync-settings.js`");
      return 1;
    }
    return 0;
  }
  if (!same) {
    manifest.contributes.configuration = want;
    fs.writeFileSync(MANIFEST, JSON.stringify(manifest, null, 2) + "\n");
    console.log("updated contributes.configuration from shared/settings.json");
  }
  return 0;
}

module.exports = { configurationFromSchema, expected, SCHEMA, MANIFEST };

if (require.main === module) process.exit(main(process.argv.slice(2)));

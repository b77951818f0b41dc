#!/usr/bin/env node
// Open the packaged extension as VS Code would: unpack fsm.vsix into a fresh
// directory and load its extension.js there, with a stand-in for the `vscode`
// module (which only VS Code provides). This fails if the package lacks a file
// that extension.js needs at load time, vscode-languageclient included.
//
//   node scripts/check-vsix.js fsm.vsix
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const Module = require('module');
const yauzl = require('yauzl');

function unpack(vsix, into) {
  return new Promise((resolve, reject) => {
    yauzl.open(vsix, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      zip.on('error', reject);
      zip.on('end', resolve);
      zip.on('entry', (entry) => {
        const target = path.join(into, entry.fileName);
        if (!target.startsWith(into + path.sep)) return reject(new Error(`unsafe path in package: ${entry.fileName}`));
        if (entry.fileName.endsWith('/')) {
          fs.mkdirSync(target, { recursive: true });
          return zip.readEntry();
        }
        fs.mkdirSync(path.dirname(target), { recursive: true });
        zip.openReadStream(entry, (err2, stream) => {
          if (err2) return reject(err2);
          stream.pipe(fs.createWriteStream(target)).on('finish', () => zip.readEntry());
        });
      });
      zip.readEntry();
    });
  });
}

async function main() {
  const vsix = process.argv[2];
  if (!vsix) throw new Error('usage: check-vsix.js FILE.vsix');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fsm-vsix-'));
  try {
    await unpack(path.resolve(vsix), dir);
    const root = path.join(dir, 'extension');
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    for (const file of [
      manifest.main,
      ...manifest.contributes.grammars.map((g) => g.path),
      ...manifest.contributes.languages.map((l) => l.configuration),
    ]) {
      if (!fs.existsSync(path.join(root, file))) throw new Error(`the package lacks ${file}`);
    }
    // A stand-in for `vscode`: every member is a class (the client library
    // extends some at load time) whose members are stand-ins again.
    const vscode = new Proxy(function () {}, {
      get: (_target, key) => (typeof key === 'symbol' ? undefined : key === 'prototype' ? {} : vscode),
    });
    // Only the package's own node_modules may satisfy its requires.
    const load = Module._load;
    Module._load = function (request, parent, isMain) {
      if (request === 'vscode') return vscode;
      const resolved = Module._resolveFilename(request, parent, isMain);
      if (path.isAbsolute(resolved) && !resolved.startsWith(root + path.sep)) {
        throw new Error(`extension.js loads ${request} from outside the package (${resolved})`);
      }
      return load.apply(this, arguments);
    };
    const extension = require(path.join(root, manifest.main));
    Module._load = load;
    if (typeof extension.activate !== 'function' || typeof extension.deactivate !== 'function') {
      throw new Error('extension.js does not export activate and deactivate');
    }
    console.log(`${vsix}: ${manifest.publisher}.${manifest.name} ${manifest.version} loads from the package`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`check-vsix: ${err.message}`);
  process.exit(1);
});

'use strict';
// node --test: how the extension finds fsmc (extension.js needs VS Code; this does not).

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { resolveServerPath, ServerNotFound } = require('../server-path');

function tempDir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'fsmc-ext-'));
}

function fakeFsmc(dir, name = 'fsmc', mode = 0o755) {
  const file = path.join(dir, name);
  fs.writeFileSync(file, '#!/bin/sh\n');
  fs.chmodSync(file, mode);
  return file;
}

const posix = { platform: 'linux' };

test('empty setting finds fsmc on PATH, skipping directories without it', () => {
  const empty = tempDir();
  const bin = tempDir();
  const exe = fakeFsmc(bin);
  const env = { PATH: [empty, bin].join(':') };
  assert.equal(resolveServerPath('', { ...posix, env }), exe);
  assert.equal(resolveServerPath(undefined, { ...posix, env }), exe);
});

test('a non-executable fsmc on PATH is skipped, and a missing one is a clear error', () => {
  const bin = tempDir();
  fakeFsmc(bin, 'fsmc', 0o644);
  assert.throws(
    () => resolveServerPath('', { ...posix, env: { PATH: bin } }),
    (err) => err instanceof ServerNotFound && /fsmc was not found on PATH/.test(err.message) && /fsmc\.server\.path/.test(err.message),
  );
});

test('an absolute setting is used as is, and must exist', () => {
  const bin = tempDir();
  const exe = fakeFsmc(bin, 'my-fsmc');
  assert.equal(resolveServerPath(exe, { ...posix, env: {} }), exe);
  assert.throws(
    () => resolveServerPath(path.join(bin, 'nope'), { ...posix, env: {} }),
    (err) => err instanceof ServerNotFound && /does not exist/.test(err.message),
  );
  assert.throws(
    () => resolveServerPath(bin, { ...posix, env: {} }),
    (err) => err instanceof ServerNotFound && /is not an executable file/.test(err.message),
  );
});

test('a relative setting resolves against the workspace folder; ~ against home', () => {
  const ws = tempDir();
  fs.mkdirSync(path.join(ws, 'target', 'debug'), { recursive: true });
  const exe = fakeFsmc(path.join(ws, 'target', 'debug'));
  assert.equal(resolveServerPath('target/debug/fsmc', { ...posix, env: {}, workspaceFolder: ws }), exe);
  assert.throws(
    () => resolveServerPath('target/debug/fsmc', { ...posix, env: {} }),
    (err) => err instanceof ServerNotFound && /no workspace folder/.test(err.message),
  );
  assert.equal(resolveServerPath('~/target/debug/fsmc', { ...posix, env: {}, home: ws }), exe);
});

test('a bare name is looked up on PATH', () => {
  const bin = tempDir();
  const exe = fakeFsmc(bin, 'fsmc-dev');
  assert.equal(resolveServerPath('fsmc-dev', { ...posix, env: { PATH: bin } }), exe);
  assert.throws(
    () => resolveServerPath('fsmc-dev', { ...posix, env: { PATH: '' } }),
    (err) => err instanceof ServerNotFound && /not on PATH/.test(err.message),
  );
});

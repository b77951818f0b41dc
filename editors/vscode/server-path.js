'use strict';
// Finding the `fsmc` executable, kept apart from extension.js so that it can be
// tested without VS Code (test/server-path.test.js).

const fs = require('fs');
const os = require('os');
const path = require('path');

/** Thrown when no `fsmc` can be found; its message is shown to the user as is. */
class ServerNotFound extends Error {}

function isExecutableFile(file, platform) {
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) return false;
    if (platform === 'win32') return true;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Look `name` up on `PATH` the way a shell does: the first directory that holds
 * an executable file of that name (on Windows, with one of `PATHEXT`'s
 * extensions). Returns the full path, or undefined.
 */
function findOnPath(name, env, platform) {
  const pathVar = env.PATH ?? env.Path ?? '';
  const delimiter = platform === 'win32' ? ';' : ':';
  const extensions =
    platform === 'win32' ? (env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean) : [''];
  for (const dir of pathVar.split(delimiter)) {
    if (dir === '') continue;
    for (const ext of extensions) {
      const candidate = path.join(dir, name + ext);
      if (isExecutableFile(candidate, platform)) return candidate;
    }
  }
  return undefined;
}

/**
 * The `fsmc` to run for `fsmc lsp`.
 *
 * `setting` is `fsmc.server.path`: empty means "find `fsmc` on PATH"; `~/`
 * starts from the home directory; a relative path is resolved against
 * `workspaceFolder` (the first folder of the workspace), as rust-analyzer does
 * for `rust-analyzer.server.path`.
 */
function resolveServerPath(setting, { env = process.env, platform = process.platform, workspaceFolder, home = os.homedir() } = {}) {
  const configured = (setting ?? '').trim();
  if (configured === '') {
    const found = findOnPath('fsmc', env, platform);
    if (found) return found;
    throw new ServerNotFound(
      'fsmc was not found on PATH, so .fsm files get highlighting but no diagnostics. ' +
        'Install it with `cargo install --path fsm-cli` (from the fsmc repository) or set ' +
        '"fsmc.server.path" to the fsmc executable.',
    );
  }
  let candidate = configured;
  if (candidate === '~' || candidate.startsWith('~/') || candidate.startsWith('~\\')) {
    candidate = path.join(home, candidate.slice(1));
  } else if (!path.isAbsolute(candidate)) {
    if (!candidate.includes('/') && !candidate.includes('\\')) {
      // A bare name such as "fsmc-nightly": look it up on PATH.
      const found = findOnPath(candidate, env, platform);
      if (found) return found;
      throw new ServerNotFound(`"fsmc.server.path" is "${configured}", which is not on PATH.`);
    }
    if (workspaceFolder === undefined) {
      throw new ServerNotFound(
        `"fsmc.server.path" is the relative path "${configured}", but no workspace folder is open to resolve it against; use an absolute path.`,
      );
    }
    candidate = path.resolve(workspaceFolder, candidate);
  }
  if (!isExecutableFile(candidate, platform)) {
    const why = fs.existsSync(candidate) ? 'is not an executable file' : 'does not exist';
    throw new ServerNotFound(`"fsmc.server.path" is "${configured}", but ${candidate} ${why}.`);
  }
  return candidate;
}

module.exports = { resolveServerPath, findOnPath, ServerNotFound };

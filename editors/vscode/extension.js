'use strict';
// The fsmc extension: the TextMate grammar and language configuration are
// contributed by package.json; this file starts `fsmc lsp`, the language
// server, over stdio. Everything the server does (diagnostics, quick fixes,
// navigation, rename, hover, completion, formatting, outline, folding and
// semantic tokens) comes from fsmc; the extension adds no language rules.

const vscode = require('vscode');
const { LanguageClient, State } = require('vscode-languageclient/node');
const { resolveServerPath, ServerNotFound } = require('./server-path');

/** @type {LanguageClient | undefined} */
let client;
/** @type {vscode.OutputChannel | undefined} */
let output;

function serverOptions() {
  const config = vscode.workspace.getConfiguration('fsmc');
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const command = resolveServerPath(config.get('server.path'), { workspaceFolder: folder });
  const args = ['lsp', ...config.get('server.extraArgs', [])];
  return { command, args, options: { cwd: folder } };
}

async function start() {
  let run;
  try {
    run = serverOptions();
  } catch (err) {
    if (!(err instanceof ServerNotFound)) throw err;
    output.appendLine(err.message);
    const choice = await vscode.window.showErrorMessage(err.message, 'Open Settings');
    if (choice === 'Open Settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'fsmc.server.path');
    }
    return;
  }
  output.appendLine(`Starting ${run.command} ${run.args.join(' ')}`);
  client = new LanguageClient(
    'fsmc',
    'fsmc',
    { run, debug: run },
    {
      documentSelector: [
        { scheme: 'file', language: 'fsm' },
        { scheme: 'untitled', language: 'fsm' },
      ],
      outputChannel: output,
      synchronize: {
        // The project configuration `fsmc check` reads also sets the server's lint options.
        fileEvents: vscode.workspace.createFileSystemWatcher('**/{fsm.toml,Cargo.toml}'),
      },
    },
  );
  try {
    await client.start();
  } catch (err) {
    const message = `fsmc lsp (${run.command}) failed to start: ${err && err.message ? err.message : err}`;
    output.appendLine(message);
    vscode.window.showErrorMessage(message);
  }
}

async function stop() {
  if (client === undefined) return;
  const running = client;
  client = undefined;
  if (running.state !== State.Stopped) await running.stop();
}

/** @param {vscode.ExtensionContext} context */
async function activate(context) {
  output = vscode.window.createOutputChannel('fsmc');
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand('fsmc.restartServer', async () => {
      await stop();
      await start();
    }),
    vscode.commands.registerCommand('fsmc.showOutput', () => output.show()),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration('fsmc.server')) {
        await stop();
        await start();
      }
    }),
  );
  await start();
}

async function deactivate() {
  await stop();
}

module.exports = { activate, deactivate };

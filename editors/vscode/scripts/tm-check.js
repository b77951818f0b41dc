#!/usr/bin/env node
// Tokenize .fsm files with the extension's TextMate grammar, exactly as VS Code
// does (vscode-textmate on the Oniguruma WebAssembly build), and report every
// token scoped `invalid`: the grammar says the language does not allow it there.
//
//   node scripts/tm-check.js FILE...          exit 1 if any token is invalid
//   node scripts/tm-check.js --dump FILE...   print every token and its scopes
'use strict';

const fs = require('fs');
const path = require('path');
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const GRAMMAR = path.join(__dirname, '..', 'syntaxes', 'fsm.tmLanguage.json');

async function loadGrammar() {
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName) => {
      if (scopeName !== 'source.fsm') return null;
      return vsctm.parseRawGrammar(fs.readFileSync(GRAMMAR, 'utf8'), GRAMMAR);
    },
  });
  return registry.loadGrammar('source.fsm');
}

/** Every token of `text`: { line, column, text, scopes }, lines and columns from 1. */
function tokenize(grammar, text) {
  const tokens = [];
  let state = vsctm.INITIAL;
  text.split(/\r?\n/).forEach((line, i) => {
    const result = grammar.tokenizeLine(line, state);
    for (const t of result.tokens) {
      tokens.push({
        line: i + 1,
        column: t.startIndex + 1,
        text: line.slice(t.startIndex, t.endIndex),
        scopes: t.scopes,
      });
    }
    state = result.ruleStack;
  });
  return tokens;
}

async function main(argv) {
  const dump = argv[0] === '--dump';
  const files = dump ? argv.slice(1) : argv;
  if (files.length === 0) {
    console.error('usage: tm-check.js [--dump] FILE...');
    return 2;
  }
  const grammar = await loadGrammar();
  let bad = 0;
  for (const file of files) {
    const tokens = tokenize(grammar, fs.readFileSync(file, 'utf8'));
    for (const t of tokens) {
      if (dump) {
        if (t.text.trim() !== '') console.log(`${file}:${t.line}:${t.column} ${JSON.stringify(t.text)} ${t.scopes.slice(1).join(' ')}`);
      } else if (t.scopes.some((s) => s.startsWith('invalid'))) {
        console.error(`${file}:${t.line}:${t.column}: ${JSON.stringify(t.text)} is scoped ${t.scopes.join(' ')}`);
        bad += 1;
      }
    }
  }
  if (!dump) {
    console.log(`TextMate: ${files.length - 0} file(s), ${bad} invalid token(s)`);
  }
  return bad === 0 ? 0 : 1;
}

module.exports = { loadGrammar, tokenize };

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      console.error(err);
      process.exit(2);
    },
  );
}

// Times loading dist/extension.js and calling activate() (what VS Code reports as activation time), then loading
// the features the shell defers, with a stand-in for the 'vscode' module (every API
// returns a disposable no-op), so the cost of activation itself is measured without a VS Code. Prints one JSON line.
const Module = require('node:module');
const path = require('node:path');

function stub() {
  const fn = function () {
    return proxy;
  };
  const proxy = new Proxy(fn, {
    get(_t, prop) {
      if (prop === 'dispose') return () => undefined;
      if (prop === Symbol.iterator) return function* () {};
      if (prop === 'then') return undefined;
      if (prop === 'textDocuments' || prop === 'workspaceFolders' || prop === 'all') return [];
      if (prop === 'subscriptions') return [];
      if (prop === 't') return (m) => m;
      return proxy;
    },
    set() {
      return true;
    },
    apply() {
      return proxy;
    },
    construct() {
      return proxy;
    },
  });
  return proxy;
}

const NAMES = [
  'EventEmitter',
  'languages',
  'window',
  'workspace',
  'commands',
  'l10n',
  'Uri',
  'ViewColumn',
  'StatusBarAlignment',
  'ThemeColor',
  'Range',
  'Position',
  'Selection',
  'Location',
  'DiagnosticSeverity',
  'CodeActionKind',
  'CodeAction',
  'Diagnostic',
  'DiagnosticRelatedInformation',
  'MarkdownString',
  'Hover',
  'WorkspaceEdit',
  'ConfigurationTarget',
  'env',
  'extensions',
];
const vscode = Object.fromEntries(NAMES.map((n) => [n, stub()]));
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === 'vscode') return 'vscode';
  return resolve.call(this, request, ...rest);
};
require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: vscode };

// The shell defers loading the features with setTimeout(0); run timers by hand to time that part separately.
const realSetTimeout = global.setTimeout;
const deferred = [];
global.setTimeout = (fn) => {
  deferred.push(fn);
  return 0;
};
const t0 = process.hrtime.bigint();
const ext = require(path.resolve(__dirname, '..', 'dist', 'extension.js'));
const t1 = process.hrtime.bigint();
ext.activate({ subscriptions: [], extensionUri: stub() });
const t2 = process.hrtime.bigint();
global.setTimeout = realSetTimeout;
// The deferred part starts the language client, which extends VS Code's own classes and cannot load on this
// stand-in: its time is measured only when it loads (the e2e suite times the real host's work).
let featuresLoaded = true;
try {
  for (const fn of deferred) fn();
} catch (e) {
  featuresLoaded = false;
  console.error(`features not timed here: ${e instanceof Error ? e.message : String(e)}`);
}
const t3 = process.hrtime.bigint();
const load = Number(t1 - t0) / 1e6;
const activate = Number(t2 - t1) / 1e6;
console.log(
  JSON.stringify({
    name: 'extension: load dist/extension.js + activate()',
    unit: 'ms',
    median: Number((load + activate).toFixed(3)),
    p99: Number((load + activate).toFixed(3)),
    n: 1,
  }),
);
const features = Number(t3 - t2) / 1e6;
if (featuresLoaded)
  console.log(
    JSON.stringify({
      name: 'extension: features loaded after activation (dist/features.js)',
      unit: 'ms',
      median: Number(features.toFixed(3)),
      p99: Number(features.toFixed(3)),
      n: 1,
    }),
  );

#!/usr/bin/env node
// VRAM Lens end-to-end runner: the extension under development inside a real VS Code
// (code-server 4.100.3 = VS Code 1.100.3), driven by headless Debian Chromium.
//
//   node scripts/e2e/run.mjs --extension <dir> --workspace <dir> --tests <out/test/e2e/index.js>
//        [--ui <ui-script.mjs>] [--screenshots <dir>] [--timeout <seconds>] [--keep-state] [--in-place]
//
// The workspace is copied to a throwaway dir first (--in-place: use it directly); ctx.workspace in
// UI scripts and the folder seen by the extension host are that copy.
//
// 1. starts code-server on 127.0.0.1:<free port> with throwaway user-data/extensions dirs;
// 2. opens the workbench with a `payload` (extensionDevelopmentPath + extensionTestsPath): the
//    server's Node extension host loads the extension and calls run() of the mocha entry;
// 3. optionally runs a UI script (default export `async (ctx) => {}`; see test/e2e/ui/smoke.ui.mjs);
// 4. always kills code-server (its whole process group) and Chromium, also on failure/timeout/signal.
// Last line: `E2E: N passed, N failed` (mocha tests + UI checks). Exit code 0 only if all passed.
// Needs `bash scripts/e2e/install.sh` first. env: E2E_HOME, VERBOSE=1, VRAM_LENS_E2E_GREP.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import util from 'node:util';
import { pathToFileURL } from 'node:url';
import { E2E_HOME, launchBrowser, newPage, closeAll, openPages } from './ui.mjs';

const t0 = Date.now();
const secs = () => ((Date.now() - t0) / 1000).toFixed(1);
const log = (...a) => console.log(`[e2e +${secs()}s]`, ...a);

// ---------- arguments ----------
const { values: args } = util.parseArgs({
  options: {
    extension: { type: 'string' },
    workspace: { type: 'string' },
    tests: { type: 'string' },
    ui: { type: 'string' },
    screenshots: { type: 'string' },
    timeout: { type: 'string' },
    'keep-state': { type: 'boolean' },
    'in-place': { type: 'boolean' },
    help: { type: 'boolean' },
  },
});
if (args.help || !args.extension || !args.workspace || !args.tests) {
  console.error(
    'usage: node scripts/e2e/run.mjs --extension <dir> --workspace <dir> --tests <compiled mocha index.js>\n' +
      '         [--ui <ui-script.mjs>] [--screenshots <dir>] [--timeout <seconds, default 600>] [--keep-state] [--in-place]',
  );
  process.exit(2);
}
const extDir = path.resolve(args.extension);
const wsSource = path.resolve(args.workspace);
let wsDir = wsSource; // a throwaway copy unless --in-place (tests may edit and save files)
const testsJs = path.resolve(args.tests);
const uiScript = args.ui ? path.resolve(args.ui) : undefined;
const shotsDir = path.resolve(args.screenshots ?? path.join(extDir, 'out', 'e2e-artifacts'));
const timeoutMs = Number(args.timeout ?? 600) * 1000;
for (const [what, p] of [
  ['--extension', path.join(extDir, 'package.json')],
  ['--workspace', wsSource],
  ['--tests', testsJs],
  ['--ui', uiScript],
]) {
  if (p && !fs.existsSync(p)) {
    console.error(`${what}: ${p} does not exist`);
    process.exit(2);
  }
}
const csEntry = path.join(E2E_HOME, 'code-server', 'node_modules', 'code-server', 'out', 'node', 'entry.js');
if (!fs.existsSync(csEntry)) {
  console.error(`code-server not found at ${csEntry}: run "bash scripts/e2e/install.sh" first`);
  process.exit(2);
}

// ---------- counters, cleanup ----------
const counts = { mochaPassed: 0, mochaFailed: 0, uiPassed: 0, uiFailed: 0, harness: [] };
let server; // child process (leader of its own process group)
let state; // throwaway dir
let finishing = false;

function killServer(signal) {
  if (!server || server.exitCode !== null || server.signalCode !== null) return;
  try {
    process.kill(-server.pid, signal);
  } catch {
    /* gone */
  }
}
// last resort when node exits for any reason: no code-server survives us
process.on('exit', () => killServer('SIGKILL'));

async function cleanup() {
  await closeAll().catch(() => {});
  if (server && server.exitCode === null && server.signalCode === null) {
    const exited = new Promise((r) => server.once('exit', r));
    killServer('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    killServer('SIGKILL');
  }
  if (state) {
    try {
      fs.mkdirSync(shotsDir, { recursive: true });
      fs.copyFileSync(path.join(state, 'server.log'), path.join(shotsDir, 'server.log'));
    } catch {
      /* no log */
    }
    if (!args['keep-state']) fs.rmSync(state, { recursive: true, force: true });
    else log(`state kept in ${state}`);
  }
}

async function finish(code) {
  if (finishing) return;
  finishing = true;
  await cleanup();
  const passed = counts.mochaPassed + counts.uiPassed;
  const failed = counts.mochaFailed + counts.uiFailed + counts.harness.length;
  for (const h of counts.harness) console.log(`[e2e] harness failure: ${h}`);
  console.log(
    `[e2e] mocha: ${counts.mochaPassed} passed, ${counts.mochaFailed} failed; ui: ${counts.uiPassed} passed, ${counts.uiFailed} failed; ${secs()}s`,
  );
  console.log(`E2E: ${passed} passed, ${failed} failed`);
  process.exit(code !== undefined ? code : failed > 0 || passed === 0 ? 1 : 0);
}
const overall = setTimeout(() => {
  counts.harness.push(`overall timeout of ${timeoutMs / 1000}s reached`);
  finish(1);
}, timeoutMs);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    counts.harness.push(`got ${sig}`);
    finish(1);
  });
}
process.on('unhandledRejection', (e) => {
  counts.harness.push(`unhandled rejection: ${e?.stack ?? e}`);
  finish(1);
});

// ---------- helpers ----------
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}
async function waitHealthy(base, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (server.exitCode !== null)
      throw new Error(`code-server exited with ${server.exitCode} (see ${shotsDir}/server.log)`);
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`code-server not healthy after ${ms / 1000}s`);
}
const NOISE = new RegExp(
  [
    'Creating a socket',
    'connection token',
    'open-vsx',
    'builtin extensions cache',
    'Service Worker',
    'ChatSessionStore',
    'vsda',
    'Ignoring the error while validating workspace folder',
    'Extension Host.*(Started local|Ignoring)',
    'ENOTFOUND',
  ].join('|'),
);

// ---------- main ----------
async function main() {
  state = fs.mkdtempSync(path.join(fs.existsSync('/tmp') ? '/tmp' : os.tmpdir(), 'vle2e-')); // short: unix socket paths must stay < 108 chars
  for (const d of ['user-data/User', 'extensions', 'xdg-config', 'xdg-data', 'tmp'])
    fs.mkdirSync(path.join(state, d), { recursive: true });
  fs.writeFileSync(
    path.join(state, 'user-data/User/settings.json'),
    JSON.stringify(
      {
        'workbench.startupEditor': 'none',
        'security.workspace.trust.enabled': false,
        'telemetry.telemetryLevel': 'off',
        'update.mode': 'none',
        'extensions.autoUpdate': false,
        'extensions.autoCheckUpdates': false,
        'extensions.ignoreRecommendations': true,
        'workbench.tips.enabled': false,
        'workbench.enableExperiments': false,
        'editor.hover.delay': 150,
        'chat.disableAIFeatures': true,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        'workbench.welcomePage.walkthroughs.openOnInstall': false,
        'git.enabled': false,
        'files.autoSave': 'off',
      },
      null,
      2,
    ),
  );
  if (!args['in-place']) {
    wsDir = path.join(state, 'ws', path.basename(wsSource));
    fs.cpSync(wsSource, wsDir, { recursive: true });
  }
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  fs.writeFileSync(path.join(state, 'config.yaml'), `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  const resultsFile = path.join(state, 'mocha-results.json');
  const logFd = fs.openSync(path.join(state, 'server.log'), 'a');
  server = spawn(
    process.execPath,
    [
      csEntry,
      '--config',
      path.join(state, 'config.yaml'),
      '--auth',
      'none',
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--user-data-dir',
      path.join(state, 'user-data'),
      '--extensions-dir',
      path.join(state, 'extensions'),
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--ignore-last-opened',
    ],
    {
      detached: true, // setsid: own process group, killed as a whole (extension host, file watcher, ...)
      stdio: ['ignore', logFd, logFd],
      env: {
        ...process.env,
        XDG_CONFIG_HOME: path.join(state, 'xdg-config'),
        XDG_DATA_HOME: path.join(state, 'xdg-data'),
        TMPDIR: path.join(state, 'tmp'), // server/git/tsserver sockets
        VRAM_LENS_E2E_RESULTS: resultsFile, // inherited by the extension host -> test/e2e/index.ts
      },
    },
  );
  fs.closeSync(logFd);
  await waitHealthy(base, 60_000);
  log(`code-server up on ${base}`);

  const authority = `127.0.0.1:${port}`;
  const remote = (p) => `vscode-remote://${authority}${p}`;
  const folderQ = `folder=${encodeURIComponent(wsDir)}`;

  // ----- layer 1: mocha inside the real extension host -----
  const payload = [
    ['extensionDevelopmentPath', remote(extDir)],
    ['extensionTestsPath', remote(testsJs.replace(/\.js$/, ''))],
  ];
  const browser = await launchBrowser();
  const page = await newPage(browser);
  let mochaLine;
  const exited = new Promise((resolve) => {
    page.exposeFunction('codeAutomationLog', (type, logArgs) => {
      const line = util.format(...(logArgs || []));
      const m = /E2E-MOCHA: (\d+) passed, (\d+) failed/.exec(line);
      if (m) mochaLine = m;
      if (process.env.VERBOSE || !NOISE.test(line)) (type === 'error' ? console.error : console.log)(line);
    });
    page.exposeFunction('codeAutomationExit', (code) => resolve(code));
  });
  page.on('pageerror', (e) => {
    if (process.env.VERBOSE) console.log('[pageerror]', e.message);
  });
  await page.goto(`${base}/?${folderQ}&payload=${encodeURIComponent(JSON.stringify(payload))}`);
  const code = await exited;
  log(`extension tests finished with exit code ${code}`);
  await browser.close();
  if (fs.existsSync(resultsFile)) {
    const r = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
    counts.mochaPassed = r.passed;
    counts.mochaFailed = r.failed;
    if (process.env.VERBOSE) log(`mocha results read from ${resultsFile}`);
    for (const f of r.failures ?? []) console.log(`[e2e] FAILED ${f.title}\n${f.error}`);
  } else if (mochaLine) {
    counts.mochaPassed = Number(mochaLine[1]);
    counts.mochaFailed = Number(mochaLine[2]);
  } else {
    counts.harness.push(
      `no mocha results (exit code ${code}); is ${testsJs} a mocha entry exporting run()? see ${shotsDir}/server.log`,
    );
  }
  if (code !== 0 && counts.mochaFailed === 0 && !counts.harness.length)
    counts.harness.push(`extension test run exited with ${code} but reported no failed test`);

  // ----- layer 2: UI script against the workbench -----
  if (uiScript) {
    const mod = await import(pathToFileURL(uiScript).href);
    if (typeof mod.default !== 'function') throw new Error(`${uiScript} has no default export function`);
    fs.mkdirSync(shotsDir, { recursive: true });
    const devPayload = JSON.stringify([['extensionDevelopmentPath', remote(extDir)]]);
    const ctx = {
      baseUrl: base,
      url: `${base}/?${folderQ}&payload=${encodeURIComponent(devPayload)}`,
      workspace: wsDir,
      extension: extDir,
      screenshots: shotsDir,
      log,
      /** one counted UI check; screenshots every open page on failure */
      async check(name, fn, { timeout = 120_000 } = {}) {
        const s = Date.now();
        let timer;
        try {
          await Promise.race([
            fn(),
            new Promise((_, rej) => {
              timer = setTimeout(() => rej(new Error(`check timed out after ${timeout / 1000}s`)), timeout);
            }),
          ]);
          counts.uiPassed++;
          log(`UI PASS ${name} (${Date.now() - s} ms)`);
          return true;
        } catch (e) {
          counts.uiFailed++;
          log(`UI FAIL ${name}: ${e?.stack ?? e}`);
          const tag = name.replace(/\W+/g, '_').slice(0, 60);
          await Promise.all(
            openPages().map((p, i) =>
              p.screenshot({ path: path.join(shotsDir, `fail-${tag}-${i}.png`) }).catch(() => {}),
            ),
          );
          return false;
        } finally {
          clearTimeout(timer);
        }
      },
    };
    log(`UI script ${path.relative(process.cwd(), uiScript)}`);
    try {
      await mod.default(ctx);
    } catch (e) {
      counts.uiFailed++;
      log(`UI script threw: ${e?.stack ?? e}`);
      await Promise.all(
        openPages().map((p, i) =>
          p.screenshot({ path: path.join(shotsDir, `fail-uncaught-${i}.png`) }).catch(() => {}),
        ),
      );
    }
  }
}

main().then(
  () => {
    clearTimeout(overall);
    return finish();
  },
  (e) => {
    counts.harness.push(String(e?.stack ?? e));
    clearTimeout(overall);
    return finish(1);
  },
);

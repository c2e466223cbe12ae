// npm run bench: panel redraw, the product target being "< 16 ms" (one frame at 60 Hz). Drives the bundled panel
// (dist/webview.js) in headless Chromium through webview-ui/dev/preview.html, which stands in for the extension
// host, and times the two redraws a user waits for:
//   - model update: the host pushes a new PanelModel (the file changed); the panel rebuilds from it;
//   - what-if change: the micro-batch field gets a new value; the panel recomputes with the core and redraws.
// Each iteration starts inside a requestAnimationFrame callback, dispatches the change, and stops in a task posted
// from that callback, which runs once that frame's rendering (the web components' updates, style, layout, paint,
// commit) is done. So the figure is the main-thread work of the frame that shows the change, and it must fit in
// 16 ms. Waiting for the next vsync is left out on purpose: it depends only on when in the frame the change
// arrives, and a timer that spans two requestAnimationFrame callbacks would round every figure up to 16.7 ms.
// The fit map, which the panel computes after that frame on purpose, finishes between iterations and is not
// counted.
// Prints one JSON line per measurement, like bench/speed.ts: {"name", "unit": "ms", "median", "p99", "n"}.
// Without Chromium or playwright-core (bash scripts/e2e/install.sh installs both) it prints
// {"name": "panel redraw", "skipped": "<reason>"} and exits 0.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM, launchBrowser, playwright } from '../scripts/e2e/ui.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WARMUP = 30;
const N = 200;

function skip(reason) {
  console.log(JSON.stringify({ name: 'panel redraw', skipped: reason }));
  process.exit(0);
}

if (!fs.existsSync(CHROMIUM)) skip(`no Chromium at ${CHROMIUM} (bash scripts/e2e/install.sh installs it)`);
try {
  playwright();
} catch (e) {
  skip(String(e.message ?? e));
}
if (!fs.existsSync(path.join(ROOT, 'dist', 'webview.js'))) {
  console.error('dist/webview.js is missing: run "npm run build" first');
  process.exit(1);
}

// ---- a static server for the repository on 127.0.0.1 -------------------------------------------------------------
const TYPES = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.map': 'application/json',
};
const server = http.createServer((req, res) => {
  const rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  if (rel === '/favicon.ico') {
    res.writeHead(204).end();
    return;
  }
  const file = path.resolve(ROOT, `.${rel}`);
  if (!file.startsWith(ROOT + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, {
    'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
    'cache-control': 'no-store',
    // Cross-origin isolation gives performance.now() 5 us resolution instead of 100 us.
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-embedder-policy': 'require-corp',
  });
  fs.createReadStream(file).pipe(res);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;

let browser;
async function shutdown() {
  await browser?.close().catch(() => {});
  server.close();
}
const guard = setTimeout(async () => {
  console.error('panel bench: timed out after 300 s');
  await shutdown();
  process.exit(1);
}, 300_000);

try {
  browser = await launchBrowser();
} catch (e) {
  server.close();
  skip(`Chromium did not start: ${String(e.message ?? e).split('\n')[0]}`);
}

try {
  // A webview panel beside the editor: about half of a 1920 px window.
  const context = await browser.newContext({ viewport: { width: 900, height: 1000 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // Errors, and the panel's own warnings (e.g. a message it dropped as invalid, which would leave nothing to time).
  page.on('console', (m) => {
    if (m.type() === 'error' || (m.type() === 'warning' && m.text().startsWith('[vram-lens]'))) errors.push(m.text());
  });
  await page.goto(`${base}/webview-ui/dev/preview.html?theme=dark`);
  await page.locator('#ctl-micro').waitFor({ timeout: 30_000 });
  await page.locator('.big-num').first().waitFor({ timeout: 30_000 });

  const results = await page.evaluate(
    async ({ warmup, n }) => {
      const frame = () => new Promise((r) => requestAnimationFrame(r));
      const timeout = () => new Promise((r) => setTimeout(r, 0));
      // Lets the work the panel defers past the frame (the fit map: rAF, then setTimeout) finish before the next change.
      const settle = async () => {
        for (let i = 0; i < 3; i++) {
          await frame();
          await timeout();
        }
      };
      /** ms from the change to the end of the frame that shows it (see the header comment). */
      const timeFrame = (act) =>
        new Promise((resolve) =>
          requestAnimationFrame(() => {
            const t0 = performance.now();
            act();
            const ch = new MessageChannel();
            ch.port1.onmessage = () => resolve(performance.now() - t0);
            ch.port2.postMessage(0);
          }),
        );
      const bigNum = () => document.querySelector('.big-num')?.textContent ?? '';

      async function run(acts) {
        const xs = [];
        const shown = new Set();
        for (let i = 0; i < warmup + n; i++) {
          await settle();
          const ms = await timeFrame(acts[i % acts.length]);
          shown.add(bigNum());
          if (i >= warmup) xs.push(ms);
        }
        return { xs, shown: [...shown] };
      }

      // Model update: alternate the sample model and a variant with another micro-batch and every byte figure 10 %
      // higher, so every number on the panel changes. The host's message reaches the webview as a structured clone.
      const a = await (await fetch('sample-model.json')).json();
      const b = structuredClone(a);
      b.setup.micro_batch_size = 3;
      const scale = (o) => {
        for (const [k, v] of Object.entries(o)) {
          if (typeof v === 'number' && /bytes$/i.test(k) && k !== 'memoryBytes') o[k] = Math.round(v * 1.1);
          else if (v && typeof v === 'object') scale(v);
        }
      };
      scale(b.estimate);
      scale(b.advice);
      const post = (model) => () =>
        window.dispatchEvent(new MessageEvent('message', { data: structuredClone({ type: 'panelModel', model }) }));
      const model = await run([post(b), post(a)]);
      post(a)();

      // What-if change: type a micro-batch into the field (the inner <input> of the text field, as a keystroke does).
      // None of the values is the file's (2), so every change recomputes the estimate with the core.
      const type = (value) => () => {
        const input = document.querySelector('#ctl-micro').shadowRoot.querySelector('input');
        input.value = String(value);
        input.dispatchEvent(
          new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertText', data: String(value) }),
        );
      };
      const whatIf = await run([1, 4, 8, 16].map(type));
      return { model, whatIf };
    },
    { warmup: WARMUP, n: N },
  );

  if (errors.length > 0) throw new Error(`the panel reported errors:\n${errors.slice(0, 5).join('\n')}`);
  for (const [name, r] of [
    ['panel redraw: model update', results.model],
    ['panel redraw: what-if change', results.whatIf],
  ]) {
    // The figures must change with the input, or the loop measured a redraw that did not happen.
    if (r.shown.length < 2) throw new Error(`${name}: the panel showed only ${JSON.stringify(r.shown)}`);
    const xs = [...r.xs].sort((x, y) => x - y);
    const q = (p) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];
    console.log(
      JSON.stringify({
        name,
        unit: 'ms',
        median: Number(q(0.5).toFixed(3)),
        p99: Number(q(0.99).toFixed(3)),
        n: xs.length,
      }),
    );
  }
} finally {
  clearTimeout(guard);
  await shutdown();
}

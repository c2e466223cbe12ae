// Mocha entry point run INSIDE the real VS Code extension host (extensionTestsPath).
// Compiled by the project's tsc to out/test/e2e/index.js; started by scripts/e2e/run.mjs.
// Contract (same as @vscode/test-electron): export run(): Promise<void>; reject when a test fails.
//
// Results go back to run.mjs two ways:
//  - a JSON file at $VRAM_LENS_E2E_RESULTS ({ passed, failed, pending, failures[] }), when set
//    (run.mjs sets it in code-server's environment; the extension host inherits it);
//  - a console line `E2E-MOCHA: N passed, N failed` (console output reaches run.mjs via the workbench).
// $VRAM_LENS_E2E_GREP optionally filters tests (mocha grep).
import * as fs from 'fs';
import * as path from 'path';
import Mocha = require('mocha');

interface E2EResults {
  passed: number;
  failed: number;
  pending: number;
  failures: { title: string; error: string }[];
}

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'tdd', color: false, reporter: 'spec', timeout: 60_000 });
  const grep = process.env['VRAM_LENS_E2E_GREP'];
  if (grep) mocha.grep(grep);
  // no glob dependency: every *.e2e.test.js next to this file
  for (const f of fs.readdirSync(__dirname).sort()) {
    if (f.endsWith('.e2e.test.js')) mocha.addFile(path.join(__dirname, f));
  }
  const results: E2EResults = { passed: 0, failed: 0, pending: 0, failures: [] };
  const report = (): void => {
    console.log(`E2E-MOCHA: ${results.passed} passed, ${results.failed} failed`);
    const out = process.env['VRAM_LENS_E2E_RESULTS'];
    if (out) fs.writeFileSync(out, JSON.stringify(results, null, 2));
  };
  return new Promise<void>((resolve, reject) => {
    try {
      const runner = mocha.run((failures) => {
        report();
        if (failures > 0) reject(new Error(`${failures} e2e test(s) failed`));
        else resolve();
      });
      runner.on('pass', () => {
        results.passed++;
      });
      runner.on('pending', () => {
        results.pending++;
      });
      runner.on('fail', (test, err: unknown) => {
        results.failed++;
        results.failures.push({
          title: test.fullTitle(),
          error: err instanceof Error ? (err.stack ?? err.message) : String(err),
        });
      });
    } catch (err) {
      // e.g. a test file that throws while loading
      results.failed++;
      results.failures.push({
        title: '(loading e2e test files)',
        error: err instanceof Error ? (err.stack ?? err.message) : String(err),
      });
      report();
      reject(err);
    }
  });
}

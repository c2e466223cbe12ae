// The same extension-host e2e suite under @vscode/test-electron, for machines that can download a desktop
// VS Code (not used in CI here: this machine cannot download it). Usage: npm run test:e2e:electron
import * as path from 'node:path';
import { runTests } from '@vscode/test-electron';

const root = path.resolve(import.meta.dirname, '..', '..');
try {
  await runTests({
    version: process.env.VSCODE_VERSION ?? '1.100.3',
    extensionDevelopmentPath: root,
    extensionTestsPath: path.join(root, 'out', 'test', 'e2e', 'index.js'),
    launchArgs: [path.join(root, 'test', 'e2e', 'fixtures', 'workspace'), '--disable-extensions'],
  });
} catch (e) {
  console.error(`e2e (electron) failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
}

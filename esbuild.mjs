// Bundles the entry points: the CLI and the benchmarks (node), the extension (node, vscode external) and the
// panel front end (browser). Type checking is tsc's job (`npm run typecheck`).
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';

const minify = process.argv.includes('--minify');
const node = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  mainFields: ['module', 'main'],
  sourcemap: !minify,
  minify,
  logLevel: 'warning',
};

const builds = [
  esbuild.build({
    ...node,
    entryPoints: ['src/cli/main.ts'],
    outfile: 'dist/cli.js',
    banner: { js: '#!/usr/bin/env node' },
  }),
  esbuild.build({ ...node, entryPoints: ['bench/speed.ts'], outfile: 'dist/bench.js' }),
  esbuild.build({ ...node, entryPoints: ['bench/accuracy.ts'], outfile: 'dist/bench-accuracy.js' }),
];
if (fs.existsSync('src/extension.ts')) {
  // A thin activation shell, and the features it loads on first use (see src/extension.ts).
  builds.push(
    esbuild.build({
      ...node,
      entryPoints: ['src/extension.ts'],
      outfile: 'dist/extension.js',
      external: ['vscode', './features.js'],
    }),
  );
  builds.push(
    esbuild.build({ ...node, entryPoints: ['src/vscode/main.ts'], outfile: 'dist/features.js', external: ['vscode'] }),
  );
  // The language server, a process of its own.
  builds.push(esbuild.build({ ...node, entryPoints: ['src/server/main.ts'], outfile: 'dist/server.js' }));
}
if (fs.existsSync('webview-ui/src/main.ts')) {
  builds.push(
    esbuild.build({
      bundle: true,
      platform: 'browser',
      format: 'iife',
      target: 'es2022',
      sourcemap: !minify,
      minify,
      logLevel: 'warning',
      entryPoints: ['webview-ui/src/main.ts'],
      outfile: 'dist/webview.js',
    }),
  );
}
await Promise.all(builds);

// The DeepSpeed JSON Schema (contributed through jsonValidation) is generated from the zod schema.
await esbuild.build({
  ...node,
  sourcemap: false,
  minify: false,
  entryPoints: ['scripts/gen-schema.ts'],
  outfile: 'out/gen-schema.cjs',
});
const { execFileSync } = await import('node:child_process');
execFileSync(process.execPath, ['out/gen-schema.cjs'], { stdio: 'inherit' });
if (fs.existsSync('webview-ui/styles.css')) fs.copyFileSync('webview-ui/styles.css', 'dist/webview.css');

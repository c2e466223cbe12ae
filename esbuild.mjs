// Bundles the entry points: the CLI and the benchmarks (node). Type checking is tsc's job (`npm run typecheck`).
import * as esbuild from 'esbuild';

const minify = process.argv.includes('--minify');
const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node20', sourcemap: !minify, minify, logLevel: 'warning' };

await Promise.all([
  esbuild.build({ ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } }),
  esbuild.build({ ...common, entryPoints: ['bench/speed.ts'], outfile: 'dist/bench.js' }),
  esbuild.build({ ...common, entryPoints: ['bench/accuracy.ts'], outfile: 'dist/bench-accuracy.js' }),
]);

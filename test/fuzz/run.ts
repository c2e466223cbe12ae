// `node out/test/fuzz/run.js [--count N] [--seed S] [--dir DIR]...`: the fuzz campaign from the command line. Seeds are
// the examples, our fixtures and ../shared/corpus; prints every violation with the input's seed number so that it
// can be replayed, then a summary line.
import * as path from 'node:path';
import { checkInput, mutate, rng, seeds } from './harness';

const repo = path.resolve(__dirname, '..', '..', '..');

function main(): void {
  const args = process.argv.slice(2);
  const opt = (name: string, d: number): number => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : d;
  };
  const count = opt('--count', 1000);
  const seed0 = opt('--seed', 1);
  const slow = opt('--slow', Infinity);
  const all = seeds();
  let bad = 0;
  const worst = { analysis: 0, hovers: 0, fixes: 0, panel: 0 };
  const t0 = Date.now();
  for (let i = 0; i < count; i++) {
    const r = rng(seed0 * 1_000_003 + i);
    const s = all[Math.floor(r() * all.length)];
    const text = mutate(s, r);
    const res = checkInput(s.file, text);
    for (const k of Object.keys(worst) as Array<keyof typeof worst>) worst[k] = Math.max(worst[k], res.millis[k]);
    if (Math.max(res.millis.analysis, res.millis.hovers, res.millis.fixes, res.millis.panel) > slow) {
      console.log(
        `#${i} (seed ${seed0}) ${path.relative(repo, s.file)} [${text.length} chars]: ` +
          `${JSON.stringify(res.millis, (_k, v: unknown) => (typeof v === 'number' ? Math.round(v) : v))}`,
      );
    }
    if (res.violations.length > 0) {
      bad++;
      console.log(
        `#${i} (seed ${seed0}) ${path.relative(repo, s.file)} [${text.length} chars]: ${res.violations.map((v) => `${v.kind}: ${v.detail}`).join(' | ')}`,
      );
    }
  }
  console.log(
    `${count} inputs, ${bad} with violations, ${((Date.now() - t0) / 1000).toFixed(0)} s; ` +
      `slowest ms: ${JSON.stringify(worst, (_k, v: unknown) => (typeof v === 'number' ? Math.round(v) : v))}`,
  );
}

if (require.main === module) main();

// A Python file's reading kept between analyses (a keystroke in a launcher or a config reads the unchanged script and
// its helper modules again), with what it read of its project through its ModuleRead: the modules it imports and the
// data files it loads, each with the text found and where, or nothing found. The reading is a function of its text,
// its module context, its environment and those reads; it is given again only while every one of them reads the same.
// Pure but for the bounded list of recent readings (recent.ts).
import type { ConfigFacts, ModuleContext } from './facts';
import { analyzeHfPython } from './hf-python';
import type { ModuleRead } from './hf-python/imported-constants';
import { RecentResults } from './recent';

/** One read the reading made of its project, and what it gave. */
interface Read {
  readonly path: string;
  readonly kind?: 'module' | 'data';
  readonly text?: string;
  readonly found?: string;
}

interface Kept {
  readonly facts: ConfigFacts;
  readonly reads: readonly Read[];
}

const recentReadings = new RecentResults<Kept>(8);

/** analyzeHfPython(text, module, readModule, environment), given again while what it read is unchanged. */
export function keptPythonReading(
  text: string,
  module: ModuleContext | undefined,
  readModule: ModuleRead | undefined,
  environment: ReadonlyMap<string, string> | undefined,
): ConfigFacts {
  const key = JSON.stringify([
    module ? { ...module, options: [...module.options] } : null,
    environment ? [...environment] : null,
  ]);
  const make = (): Kept => {
    // Each path once: a reading asks for the same module again from each place that imports it.
    const reads = new Map<string, Read>();
    const recording: ModuleRead | undefined = readModule
      ? (path, kind) => {
          const got = readModule(path, kind);
          const at = `${kind ?? ''}\u0000${path}`;
          if (!reads.has(at)) reads.set(at, { path, kind, text: got?.text, found: got?.found });
          return got;
        }
      : undefined;
    return { facts: analyzeHfPython(text, module, recording, environment), reads: [...reads.values()] };
  };
  const unchanged = (kept: Kept): boolean =>
    kept.reads.every((r) => {
      const now = readModule?.(r.path, r.kind);
      return now?.text === r.text && now?.found === r.found;
    });
  return recentReadings.get(text, key, make, unchanged).facts;
}

// The longest synchronous run of each piece of the extension's own work on the extension host's thread (document
// sync decisions, status bar, panel), kept so that the end-to-end tests can hold them under 50 ms; the command
// vramLens.internal.hostTimings returns them. No data leaves the process.
const longest = new Map<string, number>();

/** Runs fn and keeps the longest time it took under `name`. */
export function timed<T>(name: string, fn: () => T): T {
  const t0 = performance.now();
  try {
    return fn();
  } finally {
    longest.set(name, Math.max(longest.get(name) ?? 0, performance.now() - t0));
  }
}

/** The longest time of each piece so far; `'reset'` starts over (a test measures its own scenario). */
export function hostTimings(action?: 'reset'): Record<string, number> {
  const out = Object.fromEntries(longest);
  if (action === 'reset') longest.clear();
  return out;
}

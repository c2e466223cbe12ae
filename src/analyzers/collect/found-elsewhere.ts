// The notes the collection of a run's files makes where a file was found elsewhere than its path beside the file that
// names it (collect/index.ts): a script run from a repository root, a module found under src/, a path of another machine.
import { msg, type Reference } from '../facts';
import type { Location, Problem } from '../scenario';
import { variableRooted, type located } from './locate';

/** The note that a script or module was read from elsewhere than its path beside the file, or undefined. */
export function foundElsewhere(at: Location, ref: Reference, found: ReturnType<typeof located>): Problem | undefined {
  // Found by the folder a `cd` of the script moved to: that absolute path, read in this checkout by its last parts, or
  // a folder relative to where the script runs.
  if (found.moved !== undefined) return movedTo(at, ref, found.moved, found);
  if (found.below !== undefined) return foundBelow(at, ref.path, shownFrom(at.file, found.below));
  if (found.rooted !== undefined) return rootedAt(at, ref.path, found.rooted, variableRooted(ref)?.rest ?? found.path);
  if (ref.module !== undefined && found.place !== undefined)
    return found.above || found.place !== ref.path
      ? moduleFoundAt(at, ref.module, { ...found, place: found.place })
      : undefined;
  return found.above ? foundAbove(at, ref.path, found) : undefined;
}

/**
 * A path as seen from the folder of the file that names it (`../r1-v/src/open_r1/grpo.py`) where both are absolute or
 * both relative to the same folder; else as it is.
 */
function shownFrom(file: string, target: string): string {
  const parts = (p: string): string[] => p.split(/[\\/]+/).filter((x) => x !== '' && x !== '.');
  if (/^([\\/]|[A-Za-z]:)/.test(file) !== /^([\\/]|[A-Za-z]:)/.test(target)) return target;
  const from = parts(file).slice(0, -1);
  const to = parts(target);
  let k = 0;
  while (k < from.length && k < to.length - 1 && from[k] === to[k]) k++;
  return [...from.slice(k).map(() => '..'), ...to.slice(k)].join('/');
}

/** A training script found in a subfolder of the launcher's folder or of a folder above it (locate.ts foundBelow). */
function foundBelow(at: Location, written: string, place: string): Problem {
  return {
    ...at,
    severity: 'info',
    code: 'reference-found-above',
    ...msg(
      '{0} is neither beside this file nor in a folder above it: read {1}, the one file of the project with that path ' +
        'below a folder (the script runs there, after a cd this file does not write)',
      written,
      place,
    ),
  };
}

/** A script under a folder variable no file of the run sets, read from the project's root (locate.ts variableRooted). */
function rootedAt(at: Location, written: string, variable: string, below: string): Problem {
  return {
    ...at,
    severity: 'info',
    code: 'reference-found-above',
    ...msg(
      '{0} names its folder by {1}, which no file of the run sets: read {2}, the path below it in this project',
      written,
      `$${variable}`,
      below,
    ),
  };
}

/** Where the file of a module a launch line runs was found, when it is not the name's own path beside the line. */
function moduleFoundAt(at: Location, module: string, found: { place: string; up: number }): Problem {
  return {
    ...at,
    severity: 'info',
    code: 'reference-found-above',
    ...msg(
      'the module {0} is read from {1}, the path from {2} folder(s) up (the line runs from there, as from a repository root)',
      module,
      `${'../'.repeat(found.up)}${found.place}`,
      found.up,
    ),
  };
}

function foundAbove(at: Location, written: string, found: { path: string; up: number }): Problem {
  const up = found.up;
  if (/^(\/|[A-Za-z]:[\\/])/.test(written.trim().replace(/^['"]/, ''))) {
    return {
      ...at,
      severity: 'info',
      code: 'reference-found-above',
      ...msg(
        '{0} is not on this machine: read {1}, the file of this checkout with the same last parts (the clone it was written on)',
        written,
        found.path,
      ),
    };
  }
  const rel = `${'../'.repeat(up)}${written
    .trim()
    .replace(/^['"]|['"]$/g, '')
    .replace(/^\.\//, '')}`;
  return {
    ...at,
    severity: 'info',
    code: 'reference-found-above',
    ...msg(
      '{0} is not beside this file: read {1}, the path from {2} folder(s) up (the script runs from there, as from a repository root)',
      written,
      rel,
      up,
    ),
  };
}

/** Where a file found in the folder a `cd` of the script moved to was read: its note, or undefined beside the script. */
function movedTo(
  at: Location,
  ref: Reference,
  moved: string,
  found: { path: string; up: number },
): Problem | undefined {
  if (ref.cwd === undefined || ref.cwd.startsWith('/')) return foundAbove(at, moved, found);
  return {
    ...at,
    severity: 'info',
    code: 'reference-found-above',
    ...msg(
      '{0} is read from {1}: the script moves to {2} (cd) before this line',
      ref.path,
      `${'../'.repeat(found.up)}${moved}`,
      ref.cwd,
    ),
  };
}

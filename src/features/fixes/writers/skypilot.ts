// SkyPilot task writer: the launch script under `run:` edited as a shell script (writers/shell.ts) over the text with
// everything else blanked, the one changed stretch copied back; a change that reaches outside the script is refused.
// Pure: no I/O.
import { masked, runScriptSpan } from '../../../analyzers/yaml/skypilot';
import type { FixFile, Op, Written } from '../ops';
import { shellSet } from './shell';

export function skypilotSet(file: FixFile, text: string, o: Op): Written {
  const span = runScriptSpan(text);
  if (!span) return { reason: "the task's run script is not found (the YAML does not parse, or run: is not a script)" };
  const before = masked(text, span);
  const r = shellSet(file, before, o);
  if ('reason' in r) return r;
  // The one stretch the shell writer changed: the common prefix and suffix kept.
  let head = 0;
  while (head < before.length && head < r.text.length && before[head] === r.text[head]) head++;
  let tail = 0;
  while (
    tail < before.length - head &&
    tail < r.text.length - head &&
    before[before.length - 1 - tail] === r.text[r.text.length - 1 - tail]
  )
    tail++;
  const from = head;
  const to = before.length - tail;
  if (from < span.start || to > span.end) return { reason: "the change would fall outside the task's run script" };
  return { text: text.slice(0, from) + r.text.slice(head, r.text.length - tail) + text.slice(to) };
}

// Task-file writer (a SkyPilot `run:`, a dstack `commands:`, a Kubernetes container's command): the launch script edited as a shell script
// (writers/shell.ts) over the text with everything else blanked, the one changed stretch copied back; a change that
// reaches outside the script's parts is refused. Pure: no I/O.
import { maskedScript, taskScriptParts } from '../../../analyzers/yaml/task-script';
import { kubernetesScript, type CommandScript } from '../../../analyzers/yaml/kubernetes';
import type { FixFile, Op, Written } from '../ops';
import { shellSet } from './shell';

/** The writer of the script kept under the top-level `key` of a task file. */
export const taskScriptSet = (key: string): ((file: FixFile, text: string, o: Op) => Written) =>
  scriptSet((text) => ({ parts: taskScriptParts(text, key) }), key);

/** The writer of a Kubernetes workload's training command (yaml/kubernetes.ts), inside its items only. */
export function kubernetesCommandSet(file: FixFile, text: string, o: Op): Written {
  return scriptSet(kubernetesScript, 'command')(file, text, o);
}

/** The writer of a script `locate` finds in a task file's text, named `key` in its messages. */
function scriptSet(locate: (text: string) => CommandScript, key: string) {
  return (file: FixFile, text: string, o: Op): Written => {
    const { parts, join } = locate(text);
    if (parts.length === 0) return { reason: `the task's ${key} script is not found (the YAML does not parse)` };
    const before = maskedScript(text, parts, join);
    const r = shellSet(file, before, o);
    if ('reason' in r) return r;
    // The one stretch the shell writer changed: the common prefix and suffix kept.
    let head = 0;
    while (head < before.length && head < r.text.length && before[head] === r.text[head]) head++;
    let tail = 0;
    const most = Math.min(before.length, r.text.length) - head;
    while (tail < most && before[before.length - 1 - tail] === r.text[r.text.length - 1 - tail]) tail++;
    let from = head;
    const to = before.length - tail;
    let written = r.text.slice(head, r.text.length - tail);
    // A change that starts at a folded line's start (where the blanked text has a space for the line break) starts at
    // the break instead: the break becomes that space, the two lines one, as YAML would fold them.
    const folded = parts.find((p) => p.fold && from > p.span.start && from <= p.span.end);
    if (folded && text[from - 1] === '\n') {
      from -= 1;
      written = r.text[from] + written;
    }
    const out = text.slice(0, from) + written + text.slice(to);
    // A plain scalar folds its line breaks: a change there keeps to one line (no continuation) and leaves no blank
    // line, which YAML would read as a line break of the command.
    const lineStart = out.lastIndexOf('\n', from - 1) + 1;
    const lineEnd = out.indexOf('\n', from) < 0 ? out.length : out.indexOf('\n', from);
    const blank = out.slice(lineStart, lineEnd).trim() === '';
    const inside = parts.some(
      (p) => from >= p.span.start && to <= p.span.end && (!p.fold || (!/[\n\\]/.test(written) && !blank)),
    );
    if (!inside) return { reason: `the change would fall outside the task's ${key} script, or break a folded line` };
    return { text: out };
  };
}

// `check_min_version("4.12.0.dev0")` (transformers.utils): transformers' example scripts (run_clm.py, run_glue.py,
// run_summarization.py ...) carry the development version of the release they were written for, bumped at each release,
// and projects copy them as they are. A script that says so is read as run with that release (major.minor), an
// assumption said at the call: the defaults that changed since (SDPA attention from 4.36, float32 loading before 5.0,
// the loss's upcasts) follow the release the script was written for, not the newest one its calls allow. A release the
// file's other calls rule out (`evaluation_strategy`: 4.45 or earlier) is not taken. A pin in the project's dependency
// files wins over both (pinned-versions.ts). Pure; never throws on user text.
import type { SyntaxNode } from '@lezer/common';
import { olderThan } from '../../core';
import type { PythonFile } from './file';
import { clip, span } from './syntax';

/** The release a `check_min_version` string names: "4.12.0.dev0" -> "4.12". */
const RELEASE = /^(\d+)\.(\d+)(?:\.\d+)?(?:\.?dev\d*|rc\d*)?$/;

/** The last `check_min_version("X.Y...")` call, as the run's transformers release, unless another fact rules it out. */
export function minimumVersion(file: PythonFile, calls: readonly SyntaxNode[]): void {
  const named = calls.filter((c) => file.calleeName(c)?.split('.').pop() === 'check_min_version');
  const call = named[named.length - 1];
  const arg = call ? file.args(call).positional[0] : undefined;
  if (!call || arg?.name !== 'String') return;
  const written = file.text.slice(arg.from + 1, arg.to - 1);
  const m = RELEASE.exec(written);
  if (!m) return;
  const release = `${m[1]}.${m[2]}`;
  const bounds = file.facts.filter((f) => f.key === 'transformersVersion');
  // A bound the file's calls give is an upper one (the last release with a removed API): a later release is not taken.
  if (bounds.some((f) => typeof f.value === 'string' && olderThan(f.value, Number(m[1]), Number(m[2])))) return;
  const at = span(call.firstChild!);
  file.facts.push({
    key: 'transformersVersion',
    rawKey: 'check_min_version',
    value: release,
    rawValue: clip(file.text.slice(call.from, call.to)),
    keySpan: at,
    valueSpan: span(arg),
    tool: 'hf-trainer',
    origin: 'call-default',
    // Over a launch line's `--evaluation_strategy`, which bounds the release from above only.
    overridesLauncher: true,
    defaultNote:
      `check_min_version("${written}"), which transformers' example scripts carry for the release they were written ` +
      `for: the script is read as run with transformers ${release} (set transformers_version to change it)`,
  });
}

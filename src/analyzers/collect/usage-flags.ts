// The Trainer's flags of a script's own usage line. A script that parses transformers' TrainingArguments (or a TRL
// config) from its command line takes the Trainer's flags of the line that runs it whether its code reads them or not
// (`--per_device_train_batch_size 4` in TRL's examples/scripts/gspo.py docstring). Read alone, with the usage line its
// docstring or header comments show standing for the launch line (reading.ts), those flags are the run's: the line is
// read as a launch line is (shell/launch.ts), in place in the script, and its facts join the script's for the keys the
// script gives no value of its own. Pure; never throws on user text.
import { analyzeAs } from '../detect';
import { type ConfigFacts, type Fact, msg, type ParseProblem } from '../facts';
import type { UsageCommand } from '../hf-python/usage-line';
import { lineStarts } from '../line-index';

/**
 * The script's text with only the usage command left (its lines, 1-based and inclusive), each line's comment mark or
 * docstring quotes blanked: every offset kept, so the facts read from it point into the script.
 */
function usageOnly(text: string, usage: UsageCommand): string {
  return text
    .split('\n')
    .map((l, k) =>
      k >= usage.line - 1 && k <= usage.lastLine - 1
        ? l.replace(/^(\s*)(#+|"""|''')/, (_, lead: string, mark: string) => lead + ' '.repeat(mark.length))
        : l.replace(/[^\n]/g, ' '),
    )
    .join('\n');
}

/**
 * The script's facts with those of its usage line's flags for the keys it has no fact of (a value the script sets
 * itself, or one of its own options the line fills in, stands), each said to come from the line; an info note at the
 * line names them. The facts as they were where the line gives none.
 */
export function withUsageTrainerFlags(
  walked: ConfigFacts,
  text: string,
  usage: UsageCommand,
  name: string,
): ConfigFacts {
  const line = analyzeAs('shell', usageOnly(text, usage));
  const have = new Set(walked.facts.map((f) => f.key));
  const where = `the usage line of ${name} (line ${usage.line})`;
  const added = line.facts
    .filter((f) => !have.has(f.key))
    .map((f): Fact => ({ ...f, rawValue: `${f.rawValue}, on ${where}` }));
  // The files the line names (an Accelerate config, a DeepSpeed JSON) are read as a launch line's are; the script itself
  // is the file being read.
  const references = line.references.filter((r) => r.kind !== 'script');
  if (added.length === 0 && references.length === 0) return walked;
  return {
    ...walked,
    facts: [...walked.facts, ...added],
    references: [...walked.references, ...references],
    problems: added.length > 0 ? [...walked.problems, usageNote(text, usage, added)] : walked.problems,
  };
}

/** The info note at the usage line that names the flags taken from it. */
function usageNote(text: string, usage: UsageCommand, added: readonly Fact[]): ParseProblem {
  const flags = [...new Set(added.map((f) => f.rawKey))].join(', ');
  const start = lineStarts(text)[usage.line - 1] ?? 0;
  return {
    code: 'read-by-name',
    severity: 'info',
    span: { start, end: start + 1 },
    ...msg(
      "run as the usage line here runs it: the script parses the Trainer's arguments from its command line, so {0} here are the run's",
      flags,
    ),
  };
}

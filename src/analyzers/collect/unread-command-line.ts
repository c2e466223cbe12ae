// A launch line's options given to a script that reads no command line (yuanzhoulvpi2017/zero_nlp's rl_grpo builds
// `GRPOConfig(...)` from literals and parses nothing, though its launcher passes flags): the script's own training
// arguments are the run's, and the options the line passes it set nothing. Told where the script builds its training
// arguments itself (a TrainingArguments or TRL config call in its text) and nothing of the run reads the command line:
// no argparse or HfArgumentParser, no sys.argv, no fire, typer, click, Hydra or other parser, in the script or a
// module of the project it imports. The launcher's own options (torchrun's, accelerate's) stand. Pure.
import { msg, type ConfigFacts, type Fact, type ParseProblem } from '../facts';
import type { Reference } from '../reference';
import type { AnalyzedFile } from '../resolve';

/** What reads a command line, or may (a parser of any library, the arguments themselves, a config system). */
const READS_COMMAND_LINE = new RegExp(
  [
    String.raw`\bsys\.argv\b`,
    String.raw`\bargparse\b`,
    String.raw`ArgumentParser\b`,
    String.raw`\bTrlParser\b`,
    String.raw`\bparse_args\w*\s*\(`,
    String.raw`\bparse_(?:yaml|json)_file\b`,
    String.raw`\bfire\b`,
    String.raw`\btyper\b`,
    String.raw`\bclick\b`,
    String.raw`\btyro\b`,
    String.raw`\bjsonargparse\b`,
    String.raw`\bsimple_parsing\b`,
    String.raw`\bhydra\b`,
    String.raw`\bOmegaConf\.from_cli\b`,
    String.raw`\babsl\b`,
    String.raw`\bdocopt\b`,
    String.raw`\bLightningCLI\b`,
  ].join('|'),
);

/** A call that builds the training arguments in the script's own text. */
const BUILDS_ARGUMENTS =
  /\b(?:Seq2Seq)?TrainingArguments\s*\(|\b(?:SFT|DPO|GRPO|ORPO|KTO|CPO|PPO|RLOO|Reward|GKD|OnlineDPO|BCO|PRM|XPO|Nash)Config\s*\(/;

const optionName = (name: string): string => name.replace(/^-+/, '').replace(/-/g, '_');

/**
 * The launcher's facts without those of the options its script (run by `ref`) is given and cannot read, with a note at
 * the first of them; the facts as they are where the script may read its command line.
 */
export function withoutUnreadCommandLine(
  launcher: ConfigFacts,
  script: AnalyzedFile,
  modules: readonly AnalyzedFile[],
  ref: Reference,
): ConfigFacts {
  const passed = new Set((ref.args ?? []).map((a) => optionName(a.name)));
  if (passed.size === 0 || !BUILDS_ARGUMENTS.test(script.text)) return launcher;
  if ([script, ...modules].some((f) => READS_COMMAND_LINE.test(f.text))) return launcher;
  const unread = (f: Fact): boolean => f.keySpan.start > ref.span.end && passed.has(optionName(f.rawKey));
  const dropped = launcher.facts.filter(unread);
  if (dropped.length === 0) return launcher;
  const note: ParseProblem = {
    code: 'no-effect',
    severity: 'info',
    ...msg(
      '{0}: the script reads no command line (it builds its training arguments itself): the options this line ' +
        'passes it set nothing',
      dropped[0].rawKey,
    ),
    span: dropped[0].keySpan,
    rawKey: dropped[0].rawKey,
  };
  return { ...launcher, facts: launcher.facts.filter((f) => !unread(f)), problems: [...launcher.problems, note] };
}

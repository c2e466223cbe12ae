// A launch line's `--use_lora=False` given to a script that declares the option with argparse `type=bool`
// (pinecypressfxd/finetune-Qwen2.5-VL finetune_distributed.py: `add_argument('--use_lora', type=bool)`): argparse
// calls bool() on the word, and bool("False") is True, so the option is on. The launcher reads its flags by their
// names (shell/flags.ts) as the HF Trainer's parser does (string_to_bool: "False" is False); where the script is read
// and declares the option so, the word is what bool() makes of it. Pure.
import { msg, type ConfigFacts, type Fact, type FactValue, type ParseProblem, type Span, type Unknown } from '../facts';
import type { Reference } from '../reference';
import type { AnalyzedFile } from '../resolve';
import { normName, SCRIPT_FLAGS, toBool } from '../shell/flags';
import { unquoted } from '../launch-args';

/**
 * The launcher's facts with each switch it passes as a false word (`False`, `no`, `0`) to an option the script
 * (run by `ref`) declares with `type=bool` read as on, with a warning at the word; the facts as they are otherwise.
 */
export function withWordTruth(
  facts: ConfigFacts,
  launcherText: string,
  script: AnalyzedFile,
  ref: Reference,
): ConfigFacts {
  const typed = new Set((script.facts.options ?? []).filter((o) => o.truthOfWord).map((o) => o.name));
  if (typed.size === 0) return facts;
  let out = facts;
  for (const a of ref.args ?? []) {
    const name = normName(a.name);
    const flag = SCRIPT_FLAGS[name];
    if (!typed.has(name) || flag?.kind !== 'bool' || typeof a.value !== 'string') continue;
    const word = unquoted(a.value);
    if (word === '' || toBool(word) !== false) continue;
    const at = flagAt(launcherText, a.name, ref.span.start);
    if (!at) continue;
    const ofFlag = (f: Fact): boolean => f.keySpan.start === at.key.start && normName(f.rawKey) === name;
    const pairs: [string, FactValue | Unknown][] = flag.conv ? (flag.conv(true) ?? []) : [[flag.key, true]];
    const tool = out.facts.find(ofFlag)?.tool ?? facts.tools[0] ?? 'pytorch';
    const on = pairs.map(([key, value]): Fact => ({
      key: key as Fact['key'],
      rawKey: a.name,
      value,
      rawValue: launcherText.slice(at.value.start, at.value.end),
      keySpan: at.key,
      valueSpan: at.value,
      tool,
    }));
    const note: ParseProblem = {
      code: 'invalid-value',
      severity: 'warning',
      span: at.value,
      rawKey: a.name,
      ...msg(
        "--{0} {1}: the script declares --{0} with type=bool, and bool('{1}') is True (only an empty word is False): " +
          'the option is on',
        a.name,
        word,
      ),
    };
    out = { ...out, facts: [...out.facts.filter((f) => !ofFlag(f)), ...on], problems: [...out.problems, note] };
  }
  return out;
}

/** The flag `--name` of the launch line from `from` on: its key and its value (the next word, or `=word`). */
function flagAt(text: string, name: string, from: number): { key: Span; value: Span } | undefined {
  const re = new RegExp(`--${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(=|[ \\t]+(?:\\\\\\n[ \\t]*)?)(\\S+)`, 'g');
  re.lastIndex = from;
  const m = re.exec(text);
  if (!m) return undefined;
  const key = { start: m.index, end: m.index + 2 + name.length };
  const valueStart = m.index + m[0].length - m[2].length;
  return { key, value: { start: valueStart, end: valueStart + m[2].length } };
}

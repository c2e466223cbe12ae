// A launch whose command is a variable set differently on the branches of an `if` or `case`: princeton-nlp/ProLong's
// train_sft.sh sets `header="srun torchrun --nnodes=$num_nodes ... -m training.train_language_model"` on more than one
// node and `header="torchrun --nnodes=1 ... -m training.train_language_model"` else, then runs `${header}
// "${base_arguments[@]}"`. The line is analyzed once per branch's command; where every branch launches training with
// the same script, the facts they agree on are the line's, one they set to different known values is the worst for
// memory among them (said as an assumption), and any other is unknown, at the place a branch writes it. Pure.
import { type Fact, type FactValue, isUnknown, type ParseProblem, type Reference } from '../facts';
import type { WordTok } from './lexer';
import { type Env, type Field, type VarVal, quotedValue } from './fields';
import { fieldsOf } from './expand';
import type { CmdResult } from './launch';
import { allocatorConf, chooseWorst, launchOverChoices, ramEfficientLoading } from './choices';

/** The branches' values of the variable a command word is (`$header`, `${LAUNCHER}`, `"$CMD"`), where it has them. */
interface CommandChoices {
  readonly name: string;
  readonly values: readonly VarVal[];
  readonly what: string;
  readonly line: number;
}

/**
 * The launch one command line runs, with the allocator settings and the loading it sees: as written, or per value of
 * the variables it uses (choices.ts), or per branch of its command word.
 */
export function lineLaunch(text: string, words: readonly WordTok[], fields: Field[], env: Env): CmdResult | undefined {
  const r = launchOverChoices(text, words, fields, env) ?? launchOverCommandChoices(text, words, env);
  if (!r) return undefined;
  allocatorConf(text, r, env);
  ramEfficientLoading(text, r, env);
  return r;
}

/**
 * The launch a command word set on the branches of an `if` or `case` runs, as its branches agree on it; undefined
 * where the word is not such a variable, a branch leaves it unset or runs no training, or the branches run different
 * scripts.
 */
function launchOverCommandChoices(text: string, words: readonly WordTok[], env: Env): CmdResult | undefined {
  const command = commandChoices(words[0], env);
  if (!command) return undefined;
  const rs: CmdResult[] = [];
  for (const value of command.values) {
    const e: Env = new Map(env);
    e.set(command.name, value);
    const r = launchOverChoices(text, words, fieldsOf(text, words, e), e);
    if (!r?.training) return undefined;
    rs.push(r);
  }
  const scripts = rs.map((r) => scriptsOf(r.refs));
  if (scripts.some((s) => s !== scripts[0])) return undefined;
  return agreed(text, rs, command);
}

function commandChoices(word: WordTok | undefined, env: Env): CommandChoices | undefined {
  const parts = word?.segs.filter((g) => !(g.k === 'lit' && g.text === '')) ?? [];
  const g = parts.length === 1 ? parts[0] : undefined;
  if (g?.k !== 'param' || g.op !== undefined) return undefined;
  const v = env.get(g.name);
  const from = v?.choices ?? v?.branches;
  if (!from || from.values.some((c) => c === undefined)) return undefined;
  return { name: g.name, values: from.values as VarVal[], what: from.what, line: from.line };
}

/** The training scripts a launch runs, by path: branches that run the same ones launch the same program. */
function scriptsOf(refs: readonly Reference[]): string {
  return refs
    .filter((r) => r.kind === 'script')
    .map((r) => r.path)
    .join('\n');
}

/** The last fact of each key a branch's launch gives. */
function byKey(r: CmdResult): Map<string, Fact> {
  return new Map(r.facts.map((f) => [f.key, f]));
}

/** One launch of the branches' facts, references and problems (the last branch's where they agree). */
function agreed(text: string, rs: readonly CmdResult[], command: CommandChoices): CmdResult {
  const last = rs[rs.length - 1];
  const branches = rs.map(byKey);
  const keys = [...new Set(rs.flatMap((r) => r.facts.map((f) => f.key)))];
  const note =
    `\`${command.name}\`, the command, is ${command.values.map((c) => written(text, c)).join(' or ')} depending on the ` +
    `${command.what} at line ${command.line}`;
  const facts = keys.map((key) =>
    agreedFact(
      branches.map((b) => b.get(key)),
      note,
    ),
  );
  const refs = last.refs.filter((ref) => rs.every((r) => r.refs.some((x) => x.path === ref.path)));
  const problems: ParseProblem[] = [];
  const seen = new Set<string>();
  for (const p of rs.flatMap((r) => r.problems)) {
    const id = `${p.span.start}:${p.span.end}:${p.message}`;
    if (!seen.has(id)) problems.push(p);
    seen.add(id);
  }
  const tools = [...new Set(rs.flatMap((r) => r.tools))];
  return { facts, refs, problems, tools, training: true, launcherTool: last.launcherTool };
}

/**
 * A key's fact over the branches (undefined where a branch's launch does not give it): the same known value on every
 * branch is that value; different known values on every branch the worst for memory where the key ranks them;
 * anything else unknown.
 */
function agreedFact(facts: readonly (Fact | undefined)[], note: string): Fact {
  const present = facts.filter((f): f is Fact => f !== undefined);
  const shown = present[present.length - 1];
  const known = present.filter((f) => !isUnknown(f.value));
  const values = [...new Set(known.map((f) => JSON.stringify(f.value)))];
  if (known.length === facts.length && values.length === 1) return shown;
  const worst =
    known.length === facts.length ? chooseWorst(shown.key, known.map((f) => f.value) as FactValue[]) : undefined;
  if (worst !== undefined) {
    const at = known.find((f) => JSON.stringify(f.value) === JSON.stringify(worst))!;
    const assumed = `${note}; ${at.rawKey} can be ${values.join(' or ')}: the worst for memory (${JSON.stringify(worst)}) is estimated`;
    return { ...at, value: worst, assumed };
  }
  const unknown = present.find((f) => isUnknown(f.value));
  if (unknown && present.every((f) => isUnknown(f.value))) return unknown;
  const why =
    known.length === facts.length
      ? `${values.join(' or ')}`
      : present.length < facts.length
        ? 'given on some branches only'
        : 'not known on some branches';
  return { ...(unknown ?? shown), value: { unknown: `${note}: ${shown.rawKey} is ${why}` } };
}

/** A branch's value as the script writes it, on one line and clipped (`'srun torchrun --rdzv-backend=c10d …'`). */
function written(text: string, c: VarVal): string {
  if (!c.valueSpan) return quotedValue(c.pieces);
  const t = text
    .slice(c.valueSpan.start, c.valueSpan.end)
    .replace(/^(["'])([\s\S]*)\1$/, '$2')
    .replace(/\\\n/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return `'${t.length > 60 ? `${t.slice(0, 59)}…` : t}'`;
}

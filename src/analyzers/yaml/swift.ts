// ms-swift's argument files (`swift sft args.yaml` in 4.x, `--config args.yaml` in 3.x; YAML or JSON): their keys are
// swift's options, read as the command line's are (shell/swift.ts swiftOptFacts), with swift's defaults for those the
// file leaves out. The subcommand is rlhf where the file names an rlhf_type, else sft; the world size is the
// launcher's. Pure: no I/O.
import { msg, type ConfigFacts } from '../facts';
import { Launch } from '../shell/launch';
import { swiftOptFacts } from '../shell/swift';
import { YamlCtx, guarded } from './common';
import { yamlOptions } from './as-options';

/** Keys only ms-swift's arguments have (swift/llm/argument, 3.x and 4.x). */
const SWIFT_ONLY = [
  'tuner_type',
  'train_type',
  'model_author',
  'split_dataset_ratio',
  'attn_impl',
  'rlhf_type',
  'quant_bits',
  'dataset_num_proc',
  'lazy_tokenize',
  'padding_free',
];

/** Whether top-level keys are an ms-swift argument file's: `model` as a checkpoint name and swift's own keys. */
export function isSwiftArgsFile(keys: ReadonlySet<string>, scalarModel: boolean): boolean {
  return scalarModel && SWIFT_ONLY.filter((k) => keys.has(k)).length >= 1 && !keys.has('model_name_or_path');
}

/** Names of a project's section that holds the arguments its wrapper passes to `swift sft` / `swift rlhf`. */
const WRAPPER_SECTION = /^(args|arguments|swift|swift_args|swift_arguments|sft|sft_args|rlhf|rlhf_args|train_args)$/;

/**
 * The top-level section whose keys are ms-swift's arguments, where a project's wrapper passes them on as a command's
 * options (Rhinoogm/qwen_swift's configs/sft.yaml: `env:` and `args:`, run by scripts/run_sft.py as
 * `swift sft --model ... --tuner_type lora ...`): a section of a wrapper's name with a scalar `model` and at least one
 * key only ms-swift has, or any section with two. A cheap scan by lines: the keys one indentation level in.
 */
export function swiftArgsSection(text: string): string | undefined {
  let section: string | undefined;
  let indent: number | undefined;
  let keys = new Set<string>();
  let model = false;
  const done = (): string | undefined => {
    if (section === undefined || !model || keys.has('model_name_or_path')) return undefined;
    const own = SWIFT_ONLY.filter((k) => keys.has(k)).length;
    return own >= 2 || (own >= 1 && WRAPPER_SECTION.test(section)) ? section : undefined;
  };
  for (const line of text.split(/\r?\n/)) {
    const top = /^([A-Za-z_][\w-]*)\s*:\s*(?:#.*)?$/.exec(line);
    if (top || /^\S/.test(line)) {
      const found = done();
      if (found) return found;
      section = top?.[1];
      indent = undefined;
      keys = new Set();
      model = false;
      continue;
    }
    const m = /^( +)([A-Za-z_][\w.-]*)\s*:(?:\s+(.*))?$/.exec(line);
    if (!m || section === undefined) continue;
    indent ??= m[1].length;
    if (m[1].length !== indent) continue;
    keys.add(m[2]);
    const rest = (m[3] ?? '').replace(/\s#.*$/, '').trim();
    if (m[2] === 'model' && rest.length > 0 && !/^[{[&|>]/.test(rest)) model = true;
  }
  return done();
}

export function analyzeSwiftArgsFile(text: string): ConfigFacts {
  const ctx = new YamlCtx(text, { format: 'swift-yaml', tool: 'ms-swift', omegaconf: false });
  return guarded(ctx, () => {
    const section = ctx.top().has('model') ? undefined : swiftArgsSection(text);
    const top = section === undefined ? ctx.top() : ctx.sub(ctx.top().get(section));
    // A section's keys are the options without the section's name (`args.model` is `--model`).
    const cut = section === undefined ? 0 : section.length + 1;
    const opts = yamlOptions(ctx, top).map((o) => (cut ? { ...o, name: o.name.slice(cut) } : o));
    const wrapper = section === undefined ? undefined : ctx.top().get(section);
    if (wrapper)
      ctx.problem(
        'read-by-name',
        'info',
        msg(
          "{0}: read as ms-swift's arguments, which the project's own script passes on to swift as its options " +
            "(ms-swift's defaults for the rest); the script itself is not followed",
          section!,
        ),
        wrapper.keySpan,
      );
    const l = new Launch(ctx.text);
    const sub = top.has('rlhf_type') ? 'rlhf' : 'sft';
    swiftOptFacts(
      l,
      opts,
      { span: { start: 0, end: 0 }, sub, defaults: true },
      () => 'the process count of the launcher is not known from this file',
    );
    for (const f of l.r.facts) ctx.facts.push(f);
    for (const p of l.r.problems) ctx.problems.push(p);
    for (const r of l.r.refs) ctx.references.push(r);
    ctx.setTool('ms-swift');
  });
}

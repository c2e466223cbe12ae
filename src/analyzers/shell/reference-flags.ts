// A preference objective a launch line's own flags give a training script whose trainer is not read: a reference
// model passed by name (`--ref_model /path/to/sft`, yyDing1/ScaleQuest's run_qwen2_qft.sh), or DPO's loss type beside
// its beta. A DPO trainer loads that model beside the policy: DPO with a reference copy is assumed, said at the flag.
// Where the script is read, its own trainer decides and these assumptions are dropped (collect/index.ts). Pure.
import { known, type Opt } from './args';
import type { Span } from '../facts';
import type { Launch } from './launch';

/** The names scripts give the reference model's option (TRL's own scripts and their copies, OpenRLHF-style names). */
export const REFERENCE_MODEL_FLAGS: ReadonlySet<string> = new Set([
  'ref_model',
  'ref_model_name_or_path',
  'ref_model_path',
  'ref_model_name',
  'reference_model',
  'reference_model_name_or_path',
  'reference_model_path',
]);

/** DPOConfig's loss types that name DPO's objective (trl/trainer/dpo_config.py loss_type), beside a --beta. */
const DPO_LOSS_TYPES: ReadonlySet<string> = new Set(['sigmoid', 'ipo', 'hinge', 'robust', 'exo_pair', 'nca_pair']);

/**
 * Whether a launcher's fact is one of these assumptions (a VRAM Lens default of the objective), which the script's own
 * trainer replaces once the script is read.
 */
export const isFlagObjective = (f: { key: string; tool: string; origin?: string }): boolean =>
  (f.key === 'preference' || f.key === 'referenceModel') && f.tool === 'vram-lens' && f.origin === 'call-default';

/** The flags' preference assumptions, for a script launch whose trainer is not known from the line. */
export function referenceByFlags(l: Launch, opts: readonly Opt[]): void {
  const ref = opts.find((o) => REFERENCE_MODEL_FLAGS.has(o.name) && o.value !== undefined);
  const refName = known(ref);
  if (ref && refName !== undefined && refName !== '' && refName !== 'None') {
    const note =
      `${ref.rawKey} names a reference model, which a DPO trainer loads beside the policy: DPO assumed, with that ` +
      "model as a copy, since the script's own trainer is not read";
    assumed(l, ref, 'preference', 'dpo', note);
    assumed(l, ref, 'referenceModel', 'given', note);
    return;
  }
  const loss = opts.find((o) => o.name === 'loss_type');
  const beta = opts.find((o) => o.name === 'beta');
  const lossType = known(loss);
  if (loss && beta && lossType !== undefined && DPO_LOSS_TYPES.has(lossType))
    assumed(
      l,
      loss,
      'preference',
      'dpo',
      `${loss.rawKey} ${lossType} beside ${beta.rawKey} is DPO's loss: DPO assumed, with its reference model, ` +
        "since the script's own trainer is not read",
    );
}

function assumed(l: Launch, o: Opt, key: 'preference' | 'referenceModel', value: string, note: string): void {
  const valueSpan = o.value?.span ?? o.keySpan;
  l.toolDefault({
    key,
    rawKey: o.rawKey,
    value,
    rawValue: l.slice(valueSpan),
    at: o.keySpan,
    valueSpan,
    tool: 'vram-lens',
    note,
  });
}

/** A program's subcommands that name a preference trainer (TRL's CLI names: `trl dpo`, and projects' own CLIs alike). */
const PREFERENCE_SUBCOMMANDS: Readonly<Record<string, string>> = {
  dpo: 'dpo',
  kto: 'kto',
  orpo: 'reference-free',
  cpo: 'reference-free',
  simpo: 'reference-free',
};

/**
 * A program whose code is not in the files, run with a subcommand that names a preference trainer (icip-cas/AutoAlign's
 * `autoalign-cli dpo ...`, whose train/dpo.py builds a DPOTrainer with a reference model): that objective, an
 * assumption at the subcommand.
 */
export function subcommandObjective(l: Launch, sub: { readonly text: string; readonly span: Span } | undefined): void {
  const kind = sub ? PREFERENCE_SUBCOMMANDS[sub.text] : undefined;
  if (!sub || !kind) return;
  const trainer =
    kind === 'reference-free'
      ? 'a reference-free preference trainer'
      : `${sub.text.toUpperCase()}, with its reference model`;
  const note = `the subcommand ${sub.text} names ${trainer}, which the program's code, not in these files, would say`;
  l.toolDefault({
    key: 'preference',
    rawKey: sub.text,
    value: kind,
    rawValue: sub.text,
    at: sub.span,
    tool: 'vram-lens',
    note,
  });
}

// The models of a script that score rather than train: reward and value models a trainer is given, and beside a
// rollout trainer any sequence classifier the script loads (its policy is a causal LM). A Hub id names a reward model
// the estimate counts; another value is said not to be counted. Pure: reads the script's syntax tree.
import type { SyntaxNode } from '@lezer/common';
import { rewardModelNotCounted } from '../facts';
import type { PythonFile } from './file';
import { assignedName, children, span } from './syntax';
import { ROLLOUT_CONFIGS } from './vocab';

/** The models of a script that score rather than train (scoringModels). */
export interface Scorers {
  /** Names passed to a trainer as its reward or value model. */
  readonly names: ReadonlySet<string>;
  /**
   * The script runs a rollout trainer (GRPO, RLOO, online DPO), whose policy is a causal LM ('call'), or defines a
   * trainer on one ('subclass': its loads are the trainer's own, a reward function given by name).
   */
  readonly rollout: 'call' | 'subclass' | undefined;
}

/**
 * Names passed to a trainer as its reward model (OnlineDPOTrainer reward_model=, GRPOTrainer reward_funcs=, PPO's
 * value_model=): their from_pretrained loads a scoring model beside the policy, not the model that trains. Beside a
 * rollout trainer (called, or extended by a class of the file) a sequence classifier scores too, whatever name holds
 * it (sotopia-lab/sotopia-rl's GRPO wraps its reward model in a method passed as reward_funcs).
 */
export function scoringModels(file: PythonFile, calls: readonly SyntaxNode[]): Scorers {
  const names = new Set<string>();
  let called = false;
  for (const c of calls) {
    const last = file.calleeName(c)?.split('.').pop() ?? '';
    if (!/Trainer$/.test(last)) continue;
    called ||= ROLLOUT_CONFIGS[last] !== undefined;
    for (const e of file.args(c).entries) {
      if (!['reward_model', 'reward_funcs', 'value_model'].includes(e.rawKey) || !e.valueNode) continue;
      const nodes =
        e.valueNode.name === 'VariableName'
          ? [e.valueNode]
          : children(e.valueNode).filter((n) => n.name === 'VariableName');
      for (const n of nodes) names.add(file.text.slice(n.from, n.to));
    }
  }
  return { names, rollout: called ? 'call' : extendsRolloutTrainer(file) ? 'subclass' : undefined };
}

/**
 * Whether the file defines a trainer class on a rollout trainer (weirayao/X-R1's `class XGRPOTrainer(GRPOTrainer)`,
 * whose __init__ loads a reward function given by name as a sequence classifier, as TRL's does).
 */
function extendsRolloutTrainer(file: PythonFile): boolean {
  for (let st = file.root.firstChild; st; st = st.nextSibling) {
    const def = st.name === 'DecoratedStatement' ? st.getChild('ClassDefinition') : st;
    const bases = def?.name === 'ClassDefinition' ? def.getChild('ArgList') : null;
    if (!bases) continue;
    for (const b of children(bases)) {
      const base = file.text.slice(b.from, b.to).split('.').pop() ?? '';
      if (/Trainer$/.test(base) && ROLLOUT_CONFIGS[base] !== undefined) return true;
    }
  }
  return false;
}

const seqClassifier = (cls: string | undefined): boolean => /ForSequenceClassification$/.test(cls ?? '');

/**
 * A from_pretrained that loads a scoring model (scoringModels), read as one: true where it is. A Hub id string names
 * the reward model (counted like GRPO's reward_funcs ids); its keywords are its own. A sequence classifier found beside
 * a rollout trainer's call (no trainer argument names it) loaded from another value is said not to be counted; in a
 * trainer class on one it is the trainer's load of a reward function given by name, which the run may not take.
 */
export function scoringModel(file: PythonFile, call: SyntaxNode, scorers: Scorers, modelClass?: string): boolean {
  const target = assignedName(call, file.text);
  const named = target !== undefined && scorers.names.has(target);
  if (!named && !(scorers.rollout !== undefined && seqClassifier(modelClass))) return false;
  const args = file.args(call);
  const first =
    args.positional[0] ??
    args.entries.find((e) => e.rawKey === 'pretrained_model_name_or_path')?.valueNode ??
    undefined;
  if (!first) return true;
  const v = file.evalNode(first, 0);
  if (v.k === 'lit' && typeof v.v === 'string') {
    file.push(
      'rewardModels',
      { rawKey: 'reward_model', keySpan: span(first), valueNode: first, valueSpan: span(first) },
      [v.v],
      'trl',
    );
    file.scoringIds++;
  } else if (!named && scorers.rollout === 'call') {
    const why = `${file.describe(v)}; it is not the policy, which the rollout trainer takes as a causal LM`;
    file.problem('not-modeled', 'warning', rewardModelNotCounted(modelClass!, why, 'from_pretrained'), span(first));
  }
  return true;
}

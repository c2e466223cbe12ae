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
  /** The script runs a rollout trainer (GRPO, RLOO, online DPO), whose policy is a causal LM. */
  readonly rollout: boolean;
}

/**
 * Names passed to a trainer as its reward model (OnlineDPOTrainer reward_model=, GRPOTrainer reward_funcs=, PPO's
 * value_model=): their from_pretrained loads a scoring model beside the policy, not the model that trains. Beside a
 * rollout trainer a sequence classifier scores too, whatever name holds it (sotopia-lab/sotopia-rl's GRPO wraps its
 * reward model in a method passed as reward_funcs).
 */
export function scoringModels(file: PythonFile, calls: readonly SyntaxNode[]): Scorers {
  const names = new Set<string>();
  let rollout = false;
  for (const c of calls) {
    const last = file.calleeName(c)?.split('.').pop() ?? '';
    if (!/Trainer$/.test(last)) continue;
    rollout ||= ROLLOUT_CONFIGS[last] !== undefined;
    for (const e of file.args(c).entries) {
      if (!['reward_model', 'reward_funcs', 'value_model'].includes(e.rawKey) || !e.valueNode) continue;
      const nodes =
        e.valueNode.name === 'VariableName'
          ? [e.valueNode]
          : children(e.valueNode).filter((n) => n.name === 'VariableName');
      for (const n of nodes) names.add(file.text.slice(n.from, n.to));
    }
  }
  return { names, rollout };
}

const seqClassifier = (cls: string | undefined): boolean => /ForSequenceClassification$/.test(cls ?? '');

/**
 * A from_pretrained that loads a scoring model (scoringModels), read as one: true where it is. A Hub id string names
 * the reward model (counted like GRPO's reward_funcs ids); its keywords are its own. A sequence classifier found beside
 * a rollout trainer (no trainer argument names it) loaded from another value is said not to be counted.
 */
export function scoringModel(file: PythonFile, call: SyntaxNode, scorers: Scorers, modelClass?: string): boolean {
  const target = assignedName(call, file.text);
  const named = target !== undefined && scorers.names.has(target);
  if (!named && !(scorers.rollout && seqClassifier(modelClass))) return false;
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
  } else if (!named) {
    const why = `${file.describe(v)}; it is not the policy, which the rollout trainer takes as a causal LM`;
    file.problem('not-modeled', 'warning', rewardModelNotCounted(modelClass!, why, 'from_pretrained'), span(first));
  }
  return true;
}

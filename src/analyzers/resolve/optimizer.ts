// The optimizer (the files' when VRAM Lens models it, else the tool's default, with a warning at an unmodeled one),
// BAdam's block-wise training and GaLore / APOLLO's low-rank projection. Rules of FIELD_RULES; pure.
import { msg } from '../facts';
import { fileProv, numberOf, type ResolveContext } from './context';

const OPTIMIZERS = new Set([
  'adamw',
  'adamw_fused',
  'adamw_hf',
  'adamw_8bit',
  'paged_adamw_8bit',
  'paged_adamw',
  'adafactor',
  'sgd',
  'sgd_momentum',
  'rmsprop',
  'lion',
  'lion_8bit',
  'adam_mini',
  'muon',
  'adamw_4bit',
  'none',
]);

/** The optimizer: the files' when it is modeled (a warning at one that is not), else the tool's default. */
export function resolveOptimizer(ctx: ResolveContext): void {
  const { decided, setup, problems } = ctx;
  ctx.fromFact('optimizer', 'optimizer', (v) => (typeof v === 'string' && OPTIMIZERS.has(v) ? v : undefined));
  if (decided.optimizer && setup.optimizer === undefined) {
    const w = decided.optimizer;
    problems.push({
      ...w.location,
      severity: 'warning',
      code: 'invalid-value',
      ...msg("optimizer '{0}' is not modeled; AdamW is assumed", w.fact.rawValue),
      key: w.fact.rawKey,
    });
  }
  ctx.fromDefault('optimizer', 'optimizer');
}

/**
 * BAdam: layer mode (one decoder layer at a time) or ratio mode (a sparse share of every tensor, badam_update_ratio
 * 0.05 unless set: LLaMA-Factory BAdamArgument).
 */
export function resolveBadam(ctx: ResolveContext): void {
  const { decided, setup, prov, method } = ctx;
  const badamFact = decided.badam;
  if (badamFact && method === 'full') {
    setup.badam =
      badamFact.fact.value === 'ratio'
        ? { mode: 'ratio', update_ratio: numberOf(decided.badamUpdateRatio, 0.05) }
        : { mode: 'layer' };
    prov.badam = fileProv(badamFact);
  }
}

/**
 * GaLore: the rank defaults to 16 in LLaMA-Factory (galore_rank) and to 128 in transformers (optim_args rank);
 * LLaMA-Factory targets every linear layer by default, transformers needs optim_target_modules.
 */
export function resolveGalore(ctx: ResolveContext): void {
  const { decided, setup, prov } = ctx;
  const galoreFact = decided.galore;
  if (galoreFact && (galoreFact.fact.value === 'galore' || galoreFact.fact.value === 'apollo')) {
    const lf = galoreFact.fact.tool === 'llamafactory';
    const kind = galoreFact.fact.value;
    const rank =
      decided.galoreRank && typeof decided.galoreRank.fact.value === 'number'
        ? decided.galoreRank.fact.value
        : lf
          ? 16
          : 128;
    const targets = decided.galoreTargets?.fact.value;
    setup.galore = {
      kind,
      rank,
      target_modules:
        targets === 'all-linear' || (Array.isArray(targets) && targets.length > 0) ? targets : 'all-linear',
      layerwise: decided.galoreLayerwise?.fact.value === true,
    };
    prov.galore = fileProv(galoreFact);
    if (decided.galoreRank) prov['galore.rank'] = fileProv(decided.galoreRank);
    if (decided.galoreTargets) prov['galore.target_modules'] = fileProv(decided.galoreTargets);
    if (!decided.galoreRank)
      prov['galore.rank'] = {
        kind: 'default',
        owner: lf ? 'llamafactory' : 'hf-trainer',
        note: lf ? `${kind}_rank defaults to 16` : 'the rank in optim_args defaults to 128',
      };
    if (!decided.galoreTargets)
      prov['galore.target_modules'] = {
        kind: 'default',
        owner: lf ? 'llamafactory' : 'hf-trainer',
        note: lf
          ? `${kind}_target defaults to all (every linear layer)`
          : 'optim_target_modules is required by transformers; every linear layer assumed',
      };
  }
}

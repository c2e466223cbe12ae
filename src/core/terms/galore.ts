// GaLore / APOLLO: the optimizer's view of the target matrices, projected to rank x max(rows, cols), and the
// projection matrices kept beside them (galore_torch GaLoreProjector). Used by terms/optimizer-states.ts and
// terms/optimizer-step.ts. Docs: docs/estimate/optimizer-states.md. Pure arithmetic; no I/O.
import type { LinearModule } from '../architecture';
import type { TrainingSetup } from '../setup';

/**
 * GaLore's view of the target matrices (galore_torch GaLoreProjector, projection_type 'std'): a gradient of rows x cols
 * is projected on its smaller side to rank x max(rows, cols), with a rank x min(rows, cols) projection matrix; targets
 * not wider than the rank keep their full gradient. Targets: module names, 'attn' / 'mlp' (as HF optim_target_modules
 * matches them in the module paths), or 'all-linear'.
 */
export function galoreShapes(
  g: NonNullable<TrainingSetup['galore']>,
  mods: LinearModule[],
): {
  matrices: Array<[number, number, number]>;
  targetElems: number;
  projectedElems: number;
  projectorElems: number;
  largest: [number, number];
} {
  const names = g.target_modules;
  const hit = (m: LinearModule): boolean => {
    if (m.group === 'router' || m.parameter) return false;
    if (names === 'all-linear') return true;
    return names.some((n) => {
      const t = n.toLowerCase();
      if (/attn|attention/.test(t)) return m.group === 'attention';
      if (/mlp|ffn|feed_forward/.test(t)) return m.group === 'mlp' || m.group === 'expert';
      return m.name.toLowerCase() === t || m.name.split('.').pop()!.toLowerCase() === t;
    });
  };
  // The optimizer's matrices, module by module: projected for a target, as they are otherwise.
  const matrices: Array<[number, number, number]> = [];
  let targetElems = 0;
  let projectedElems = 0;
  let projectorElems = 0;
  let largest: [number, number] = [0, 0];
  for (const m of mods) {
    const rows = m.outFeatures;
    const cols = m.inFeatures;
    if (!hit(m)) {
      matrices.push([rows, cols, m.count]);
      continue;
    }
    targetElems += rows * cols * m.count;
    if (rows * cols > largest[0] * largest[1]) largest = [rows, cols];
    const small = Math.min(rows, cols);
    if (g.rank >= small) {
      matrices.push([rows, cols, m.count]);
      projectedElems += rows * cols * m.count;
      continue;
    }
    matrices.push([g.rank, Math.max(rows, cols), m.count]);
    projectedElems += g.rank * Math.max(rows, cols) * m.count;
    projectorElems += g.rank * small * m.count;
  }
  return { matrices, targetElems, projectedElems, projectorElems, largest };
}

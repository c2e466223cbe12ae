// RL2's configs as it ships them (rl2-configs.ts), read for a launch line whose checkout has none beside it: the
// trainer's primary config by the path the line implies, its group options beside it, under a name of their own.
// Pure: no I/O.
import { RL2_COMMIT, RL2_CONFIGS } from './rl2-configs';
import type { HydraRead } from './compose';

const PREFIX = 'RL2: RL2/trainer/config/';

/** The shipped primary config a launch line's config path names (`RL2/trainer/config/sft.yaml`), or undefined. */
export function rl2Shipped(path: string): { file: string; text: string } | undefined {
  const m = /(?:^|\/)RL2\/trainer\/config\/(\w+\.yaml)$/.exec(path.trim());
  const lines = m ? RL2_CONFIGS[m[1]] : undefined;
  return lines && m ? { file: `${PREFIX}${m[1]}`, text: `${lines.join('\n')}\n` } : undefined;
}

/** For a shipped config: the options of its groups (`actor/fsdp.yaml`), read from the same release; else undefined. */
export function shippedHydraOptions(file: string): HydraRead | undefined {
  if (!file.startsWith(PREFIX)) return undefined;
  return (rel) => {
    const lines = Object.prototype.hasOwnProperty.call(RL2_CONFIGS, rel) ? RL2_CONFIGS[rel] : undefined;
    return lines ? { path: `${PREFIX}${rel}`, text: `${lines.join('\n')}\n` } : undefined;
  };
}

/** How a shipped config is said: RL2's file at its release, read because the checkout has none. */
export function shippedHydraOrigin(file: string): { kind: 'bundled'; owner: string; note: string } | undefined {
  if (!file.startsWith(PREFIX)) return undefined;
  const path = `RL2/trainer/config/${file.slice(PREFIX.length)}`;
  return {
    kind: 'bundled',
    owner: 'rl2',
    note: `${path} as RL2 ships it (ChenmienTan/RL2@${RL2_COMMIT.slice(0, 7)}; no such file in this checkout)`,
  };
}

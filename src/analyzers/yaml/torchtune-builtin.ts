// The configs torchtune ships, named by `tune run <recipe> --config <name>` without a file of that name beside the
// launch line (`--config llama3_1/8B_lora_single_device`): read from the table tools/torchtune-builtin/generate.mjs
// writes, and every value taken from one is shown as torchtune's default. Pure: no I/O.
import { TORCHTUNE_BUILTIN_CONFIGS, TORCHTUNE_COMMIT } from './catalog/torchtune-configs';

/** The name of a config torchtune ships (`llama3_1/8B_lora_single_device`, a `.yaml` suffix allowed), if it is one. */
export function torchtuneBuiltinName(ref: string): string | undefined {
  const name = ref.trim().replace(/\.ya?ml$/i, '');
  return Object.prototype.hasOwnProperty.call(TORCHTUNE_BUILTIN_CONFIGS, name) ? name : undefined;
}

/** The config's keys as torchtune ships it, the synthetic file name it is analyzed under, and how it is said. */
export function torchtuneBuiltin(
  ref: string,
): { file: string; text: string; owner: 'torchtune'; note: string } | undefined {
  const name = torchtuneBuiltinName(ref);
  if (!name) return undefined;
  return {
    file: `torchtune: ${name}`,
    text: `${TORCHTUNE_BUILTIN_CONFIGS[name].join('\n')}\n`,
    owner: 'torchtune',
    note:
      `${name} as torchtune ships it (pytorch/torchtune@${TORCHTUNE_COMMIT.slice(0, 7)} ` +
      `recipes/configs/${name}.yaml; no file of that name beside the launch line)`,
  };
}

// The Accelerate configs TRL ships (examples/accelerate_configs/), named by a launch line run from a TRL checkout that is
// not among the run's files (`git clone https://github.com/huggingface/trl && cd trl`, then `accelerate launch
// --config_file examples/accelerate_configs/fsdp1.yaml trl/scripts/sft.py ...`, as dstack's and huggingface-llama-recipes'
// tasks do): read as TRL ships them, every value shown as TRL's. Pure: no I/O.
import { TRL_ACCELERATE_CONFIGS } from './catalog/trl-accelerate-configs';

/** `examples/accelerate_configs/fsdp1.yaml` at the end of a path, relative or under a checkout's folder. */
const CONFIG_PATH = /(?:^|\/)examples\/accelerate_configs\/([\w.-]+)\.ya?ml$/;

/** The config's lines as TRL shipped it, the synthetic file name it is analyzed under, and how it is said. */
export function trlAccelerateConfig(
  ref: string,
): { file: string; text: string; owner: 'trl'; note: string } | undefined {
  const m = CONFIG_PATH.exec(ref.trim().replace(/\\/g, '/'));
  if (!m || !Object.prototype.hasOwnProperty.call(TRL_ACCELERATE_CONFIGS, m[1])) return undefined;
  const config = TRL_ACCELERATE_CONFIGS[m[1]];
  return {
    file: `TRL: examples/accelerate_configs/${m[1]}.yaml`,
    text: `${config.lines.join('\n')}\n`,
    owner: 'trl',
    note:
      `examples/accelerate_configs/${m[1]}.yaml as TRL ships it (huggingface/trl@${config.commit}); not among the ` +
      "run's files: the launch runs from a TRL checkout",
  };
}

// The training examples LLaMA-Factory ships, named by `llamafactory-cli train` from a LLaMA-Factory checkout that is not
// among the run's files (`cd /root/LLaMA-Factory`, then `llamafactory-cli train examples/train_full/llama3_full_sft.yaml
// model_name_or_path=Qwen/Qwen2.5-0.5B-Instruct`): read from the table tools/llamafactory-examples/generate.mjs writes,
// and every value taken from one is shown as LLaMA-Factory's. Pure: no I/O.
import { LLAMAFACTORY_EXAMPLES, LLAMAFACTORY_EXAMPLES_HEAD } from './catalog/llamafactory-examples';

/** `examples/train_lora/llama3_lora_sft.yaml` at the end of a path, relative or under a checkout's absolute folder. */
const EXAMPLE_PATH = /(?:^|\/)examples\/(train_(?:full|lora|qlora)\/[\w.-]+\.ya?ml)$/;

/** The example a path names (`train_full/llama3_full_sft.yaml`), if LLaMA-Factory ships or shipped one of that name. */
export function llamafactoryExampleName(ref: string): string | undefined {
  const m = EXAMPLE_PATH.exec(ref.trim().replace(/\\/g, '/'));
  return m && Object.prototype.hasOwnProperty.call(LLAMAFACTORY_EXAMPLES, m[1]) ? m[1] : undefined;
}

/** The example's keys as LLaMA-Factory shipped it, the synthetic file name it is analyzed under, and how it is said. */
export function llamafactoryExample(
  ref: string,
): { file: string; text: string; owner: 'llamafactory'; note: string } | undefined {
  const name = llamafactoryExampleName(ref);
  if (!name) return undefined;
  const example = LLAMAFACTORY_EXAMPLES[name];
  const kept = example.commit === LLAMAFACTORY_EXAMPLES_HEAD.slice(0, 7) ? '' : ` as last written at ${example.commit}`;
  return {
    file: `LLaMA-Factory: examples/${name}`,
    text: `${example.lines.join('\n')}\n`,
    owner: 'llamafactory',
    note:
      `examples/${name} as LLaMA-Factory ships it (hiyouga/LLaMA-Factory examples/${name}${kept}; ` +
      "not among the run's files: the launch runs from a LLaMA-Factory checkout)",
  };
}

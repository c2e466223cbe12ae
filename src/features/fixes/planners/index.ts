// PLANNERS: for each format, the planner of its vocabulary and the writer of its syntax, so that a Format without a
// row does not compile; and planning one change for one file: the checks every format shares, then the format's
// planner. Pure: no I/O.
import type { Format } from '../../../analyzers/facts';
import type { SetupChange } from '../../../core';
import { type FixFile, type Op, type PlanCtx, type Planned, type Written, no, planCtx, type Quant } from '../ops';
import { jsonSet } from '../writers/json';
import { pySet } from '../writers/python';
import { shellSet } from '../writers/shell';
import { yamlSet, yamlWriteDeep } from '../writers/yaml';
import { tomlSet } from '../writers/toml';
import { kubernetesCommandSet, taskScriptSet } from '../writers/task-script';
import { planScenario } from './scenario';
import { planDeepSpeed } from './deepspeed';
import { planPython } from './python';
import { planShell } from './shell';
import { planAccelerate } from './accelerate';
import { planLlamaFactory } from './llamafactory';
import { planHfYaml } from './hf-yaml';
import { planAxolotl } from './axolotl';
import { planTorchtune } from './torchtune';
import { planLitgpt } from './litgpt';
import { planVerl } from './verl';
import { planHydra } from './hydra';
import { planLlmFoundry } from './llmfoundry';
import { planSwiftArgs } from './swift';
import { planForge, planTorchtitan } from './torchtitan';
import { planNemoRl } from './nemorl';
import { planOumi } from './oumi';
import { planAutotrain } from './autotrain';
import { planLudwig } from './ludwig';
import { planMistralFinetune } from './mistral-finetune';
import { planAlignAnything } from './align-anything';
import { planArctic } from './arctic';
import { planGlmFinetune } from './glm-finetune';
import { planAreal } from './areal';
import { planPrimeRl } from './prime-rl';
import { planScriptData } from './script-data';

/** How one format takes a setup change: the planner of its vocabulary, and the writer of its syntax. */
export interface Planner {
  /** One setup change -> the operations that say it in this format, or the reason the format cannot. */
  readonly plan: (c: PlanCtx, ch: SetupChange) => Planned;
  /** Writes one operation into the text of a file of this format. */
  readonly write: (file: FixFile, text: string, o: Op) => Written;
}

/** The YAML writer; with `omegaconf` (LLaMA-Factory, torchtune) an interpolated value (`${x}`) is edited where x is written. */
const yamlWriter =
  (omegaconf: boolean) =>
  (_file: FixFile, text: string, o: Op): Written =>
    yamlSet(text, o, omegaconf);

/** A format written in YAML or JSON (a *.vram.json scenario, an Accelerate --config_file x.json): JSON by the name. */
const jsonOrYaml =
  (yaml: (text: string, o: Op) => Written) =>
  (file: FixFile, text: string, o: Op): Written =>
    /\.json$/i.test(file.file) ? jsonSet(text, o) : yaml(text, o);

const FSDP_CONFIG_FIX = "the HF Trainer's fsdp_config file holds FSDP's options: no quick fix writes it";
const NOTEBOOK_FIX = "a notebook's code cells are edited in the notebook: no quick fix writes them";

export const PLANNERS: Readonly<Record<Format, Planner>> = {
  // A notebook's cells are edited in the notebook: no quick fix writes its JSON.
  notebook: {
    plan: () => no(NOTEBOOK_FIX),
    write: () => ({ reason: NOTEBOOK_FIX }),
  },
  // Scenario objects (lora, quantization) are written key by key; a *.vram.json scenario is JSON.
  scenario: {
    plan: (_c, ch) => planScenario(ch),
    write: jsonOrYaml(yamlWriteDeep),
  },
  'deepspeed-json': { plan: planDeepSpeed, write: (_file, text, o) => jsonSet(text, o) },
  'hf-python': { plan: planPython, write: (_file, text, o) => pySet(text, o) },
  shell: { plan: planShell, write: shellSet },
  // Accelerate also reads a JSON config file (--config_file fsdp.json): written as JSON there.
  'accelerate-yaml': {
    plan: planAccelerate,
    write: jsonOrYaml((text, o) => yamlSet(text, o, false)),
  },
  'axolotl-yaml': { plan: planAxolotl, write: yamlWriter(false) },
  // LLaMA-Factory's JSON arguments (llamafactory-cli train args.json) are written as JSON.
  'llamafactory-yaml': { plan: planLlamaFactory, write: jsonOrYaml((text, o) => yamlSet(text, o, true)) },
  'torchtune-yaml': { plan: planTorchtune, write: yamlWriter(true) },
  // HfArgumentParser's JSON arguments (args.json) are written as JSON.
  'hf-yaml': { plan: planHfYaml, write: jsonOrYaml((text, o) => yamlSet(text, o, false)) },
  'litgpt-yaml': { plan: planLitgpt, write: yamlWriter(false) },
  // verl's overrides as the config file's keys (the SFT trainer's GPUs are its launcher's).
  // The DPO reference implementation's primary config (its top-level keys; OmegaConf loads it).
  'hydra-yaml': { plan: planHydra, write: yamlWriter(true) },
  // llm-foundry's YAML (OmegaConf: an interpolated value is written where it is defined).
  'llmfoundry-yaml': { plan: planLlmFoundry, write: yamlWriter(true) },
  // ms-swift's argument files, YAML or JSON by the name.
  'swift-yaml': { plan: planSwiftArgs, write: jsonOrYaml((text, o) => yamlSet(text, o, false)) },
  'torchtitan-toml': { plan: planTorchtitan, write: (_file, text, o) => tomlSet(text, o) },
  'prime-rl-toml': { plan: planPrimeRl, write: (_file, text, o) => tomlSet(text, o) },
  // forge's app configs: torchtitan's keys, under `trainer:` in a GRPO app (OmegaConf: written where defined).
  'forge-yaml': { plan: planForge, write: yamlWriter(true) },
  // NeMo-RL's config (OmegaConf: an interpolated value is written where it is defined).
  'nemorl-yaml': { plan: planNemoRl, write: yamlWriter(true) },
  // A SkyPilot task's `run:` script: planned and written as a launch script, inside the script only.
  'skypilot-yaml': { plan: planShell, write: taskScriptSet('run') },
  // A dstack task's `commands:`: the same, inside its command lines only.
  'dstack-yaml': { plan: planShell, write: taskScriptSet('commands') },
  // A Kubernetes container's command list: the same, inside its items only.
  'kubernetes-yaml': { plan: planShell, write: kubernetesCommandSet },
  // Oumi's training config (OmegaConf: an interpolated value is written where it is defined).
  'oumi-yaml': { plan: planOumi, write: yamlWriter(true) },
  'arctic-yaml': { plan: planArctic, write: yamlWriter(false) },
  // AutoTrain's config (PyYAML: no interpolation).
  'autotrain-yaml': { plan: planAutotrain, write: yamlWriter(false) },
  // Ludwig's config (PyYAML: no interpolation).
  'ludwig-yaml': { plan: planLudwig, write: yamlWriter(false) },
  // mistral-finetune's TrainArgs (simple_parsing's YAML: no interpolation).
  'mistral-finetune-yaml': { plan: planMistralFinetune, write: yamlWriter(false) },
  // align-anything's training config (PyYAML: no interpolation).
  'align-anything-yaml': { plan: planAlignAnything, write: yamlWriter(false) },
  // THUDM's GLM fine-tuning configs (ruamel's safe load: no interpolation).
  'glm-finetune-yaml': { plan: planGlmFinetune, write: yamlWriter(false) },
  // AReaL's experiment config (OmegaConf: an interpolated value is written where it is defined).
  'areal-yaml': { plan: planAreal, write: yamlWriter(true) },
  'verl-yaml': {
    plan: (c, ch) => planVerl(c, ch) ?? no("the SFT trainer's GPUs are its launcher's (torchrun --nproc_per_node)"),
    write: yamlWriter(true),
  },
  // A file a script loads for its values: its keys the script reads, JSON or YAML by the name.
  'script-data': { plan: planScriptData, write: jsonOrYaml((text, o) => yamlSet(text, o, false)) },
  // The HF Trainer's fsdp_config file: its keys are FSDP's; a fix writes the script's or the launcher's arguments.
  'fsdp-config-json': {
    plan: () => no(FSDP_CONFIG_FIX),
    write: () => ({ reason: FSDP_CONFIG_FIX }),
  },
  // A project's own config read by its names: the same, a key it holds rewritten as the kind of value written there.
  'project-yaml': { plan: planScriptData, write: jsonOrYaml((text, o) => yamlSet(text, o, false)) },
};

/** The operations that write one change into one file, or the reason the file cannot say it. */
export function plan(file: FixFile, ch: SetupChange, changes: readonly SetupChange[]): Planned {
  const c = planCtx(file, changes);
  // Quantized fused experts are Axolotl's own loading step (quantize_moe_experts): no other format can ask for it.
  if (
    ch.key === 'quantization' &&
    (ch.value as Quant | undefined)?.experts &&
    file.format !== 'scenario' &&
    file.format !== 'axolotl-yaml'
  ) {
    return no('only Axolotl quantizes fused MoE experts (quantize_moe_experts)');
  }
  // Package versions live in the environment (and a requirements pin), not in a training config.
  if (
    (ch.key === 'torchao_version' ||
      ch.key === 'bitsandbytes_version' ||
      ch.key === 'transformers_version' ||
      ch.key === 'accelerate_version' ||
      ch.key === 'pytorch_version') &&
    file.format !== 'scenario'
  ) {
    return no(
      `${ch.key.replace('_version', '').replace('pytorch', 'torch')} is a package version: upgrade it in the environment and its requirements pin`,
    );
  }
  return PLANNERS[file.format].plan(c, ch);
}

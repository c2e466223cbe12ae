// The YAML analyzers of the training tools' configs and the detector that picks one; re-exported for resolve,
// the CLI and the extension.
export { analyzeAccelerateYaml } from './accelerate';
export { analyzeAxolotlYaml } from './axolotl';
export { analyzeLlamaFactoryYaml } from './llamafactory';
export { analyzeTorchtuneYaml, parseBuilder } from './torchtune';
export { analyzeHfYaml, TRL_KEYS } from './hf-yaml';
export { analyzeLitgptYaml } from './litgpt';
export { analyzeLlmFoundryYaml } from './llmfoundry';
export { analyzeNemoRlYaml } from './nemorl';
export { analyzeSkyPilotYaml } from './skypilot';
export { analyzeDstackYaml } from './dstack';
export { analyzeKubernetesYaml } from './kubernetes';
export { analyzeOumiYaml } from './oumi';
export { analyzeAutotrainYaml } from './autotrain';
export { analyzeLudwigYaml } from './ludwig';
export { analyzeMistralFinetuneYaml } from './mistral-finetune';
export { analyzeAlignAnythingYaml } from './align-anything';
export { analyzeArcticYaml } from './arctic';
export { analyzeSwiftArgsFile } from './swift';
export { detectYamlFormat } from './detect';
export type { Entry, View } from './values';

// Accelerate's DeepSpeedPlugin built in the script, `DeepSpeedPlugin(zero_stage=3, gradient_accumulation_steps=2)`
// handed to `Accelerator(deepspeed_plugin=...)` (zhangfaen/finetune-Qwen2-VL): the Accelerator takes that plugin, not
// the one the launcher's flags and config would make, so its settings are the run's ZeRO setup, over the launcher's.
// DeepSpeedPlugin's defaults (accelerate/utils/dataclasses.py DeepSpeedPlugin.__post_init__): zero_stage from
// ACCELERATE_DEEPSPEED_ZERO_STAGE, else 2; the offload devices "none"; gradient_accumulation_steps 1; an
// `hf_ds_config` (a JSON path or a dict) decides instead, read as a DeepSpeed config of the run. Pure; never throws.
import type { SyntaxNode } from '@lezer/common';
import type { CanonicalKey, FactValue, Tool, Unknown } from '../facts';
import { branchTaken } from './branches';
import { argument, overLauncher } from './calls';
import type { Entry, PythonFile } from './file';
import { deepspeedEntry } from './mapping';
import { span } from './syntax';

const TOOL: Tool = 'accelerate';

/** `DeepSpeedPlugin(...)` of the script: its ZeRO stage, offload, accumulation and zero.Init switch. */
export function deepspeedPluginCall(file: PythonFile, call: SyntaxNode): void {
  if (branchTaken(file, call) === false) return;
  const get = argument(file.args(call));
  const config = get('hf_ds_config', 0);
  if (config) {
    deepspeedEntry(file, config, TOOL);
    return;
  }
  const stage = get('zero_stage');
  if (stage) put(file, 'zeroStage', stage, (v) => (v === 0 || v === 1 || v === 2 || v === 3 ? v : undefined));
  else {
    const at = span(call.firstChild!);
    file.facts.push({
      key: 'zeroStage',
      rawKey: 'DeepSpeedPlugin',
      value: 2,
      rawValue: 'DeepSpeedPlugin()',
      keySpan: at,
      valueSpan: at,
      tool: TOOL,
      origin: 'call-default',
      defaultNote: "DeepSpeedPlugin's zero_stage defaults to 2 (ACCELERATE_DEEPSPEED_ZERO_STAGE unset)",
      overridesLauncher: true,
    });
  }
  const device = (v: FactValue): FactValue | undefined =>
    v === 'cpu' || v === 'nvme' || v === 'none' ? v : v === null ? 'none' : undefined;
  const optimizer = get('offload_optimizer_device');
  if (optimizer) put(file, 'offloadOptimizer', optimizer, device);
  const params = get('offload_param_device');
  if (params) put(file, 'offloadParams', params, device);
  const gas = get('gradient_accumulation_steps');
  if (gas) put(file, 'gradientAccumulationSteps', gas, (v) => (typeof v === 'number' && v >= 1 ? v : undefined));
  const init = get('zero3_init_flag');
  if (init) put(file, 'zero3Init', init, (v) => (typeof v === 'boolean' ? v : undefined));
}

/** A keyword's value through `conv` (unknown where it is not known statically or not a value DeepSpeed takes). */
function put(file: PythonFile, key: CanonicalKey, e: Entry, conv: (v: FactValue) => FactValue | undefined): void {
  const x = file.valueOf(e);
  const value: FactValue | Unknown | undefined =
    x.k === 'lit'
      ? (conv(x.v) ?? { unknown: `${e.rawKey}=${file.describe(x)} is not a value DeepSpeed takes` })
      : undefined;
  file.push(key, e, value ?? { unknown: file.describe(x) }, TOOL, x);
  overLauncher(file);
}

// Planning one change for one file: the checks every format shares, then the format's planner. Pure: no I/O.
import type { SetupChange } from '../../../core/advice';
import { type FixFile, type Planned, no, planCtx, type Quant } from '../ops';
import { planScenario } from './scenario';
import { planDeepSpeed } from './deepspeed';
import { planPython } from './python';
import { planShell } from './shell';
import { planAccelerate } from './accelerate';
import { planLlamaFactory } from './llamafactory';
import { planHfYaml } from './hf-yaml';
import { planAxolotl } from './axolotl';
import { planTorchtune } from './torchtune';

export function plan(file: FixFile, ch: SetupChange, changes: readonly SetupChange[]): Planned {
  const c = planCtx(file, changes);
  // Quantized fused experts are Axolotl's own loading step (quantize_moe_experts): no other format can ask for it.
  if (ch.key === 'quantization' && (ch.value as Quant | undefined)?.experts && file.format !== 'scenario' && file.format !== 'axolotl-yaml') {
    return no('only Axolotl quantizes fused MoE experts (quantize_moe_experts)');
  }
  // Package versions live in the environment (and a requirements pin), not in a training config.
  if ((ch.key === 'torchao_version' || ch.key === 'transformers_version' || ch.key === 'pytorch_version') && file.format !== 'scenario') {
    return no(`${ch.key.replace('_version', '').replace('pytorch', 'torch')} is a package version: upgrade it in the environment and its requirements pin`);
  }
  switch (file.format) {
    case 'scenario': return planScenario(ch);
    case 'deepspeed-json': return planDeepSpeed(c, ch);
    case 'hf-python': return planPython(c, ch);
    case 'shell': return planShell(c, ch);
    case 'accelerate-yaml': return planAccelerate(c, ch);
    case 'axolotl-yaml': return planAxolotl(c, ch);
    case 'llamafactory-yaml': return planLlamaFactory(c, ch);
    case 'torchtune-yaml': return planTorchtune(c, ch);
    case 'hf-yaml': return planHfYaml(c, ch);
  }
}

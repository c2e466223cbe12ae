import { advise } from '../../src/core/advice';
import { findGpu, findModel } from '../../src/core/lookup';
import { TrainingSetupSchema } from '../../src/core/setup';
const qwen7 = findModel('Qwen/Qwen2.5-7B-Instruct');
const a100 = findGpu('A100-80GB');
if (!qwen7.ok || !a100.ok) throw new Error('catalog entry missing');
const grpoSetup = TrainingSetupSchema.parse({
  architecture: qwen7.model.config, parameters: qwen7.model.publishedParams, weights_dtype: 'bf16', mixed_precision: 'bf16',
  micro_batch_size: 8, gradient_accumulation_steps: 4, seq_len: 1536, gradient_checkpointing: 'full',
  rollout: { batch: 32, completion_len: 1024, engine: 'generate', reference: 'copy', old_logps: true },
});
for (let i = 0; i < 20; i++) advise(grpoSetup, { gpu: a100.gpu, gpuSpec: a100.gpu.spec });
const n = 200; const ts: number[] = [];
let ev = 0;
for (let i = 0; i < n; i++) { const t = performance.now(); ev = advise(grpoSetup, { gpu: a100.gpu, gpuSpec: a100.gpu.spec })!.evaluated; ts.push(performance.now() - t); }
ts.sort((a, b) => a - b);
console.log('grpo median', ts[n >> 1].toFixed(2), 'ms; evaluated', ev);

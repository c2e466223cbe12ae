// Hydra applications (src/analyzers/hydra): the composition of a primary config, its group options and the launch line's
// overrides, and the DPO reference implementation's config read as its train.py and trainers.py run it. The files are
// written here after eric-mitchell/direct-preference-optimization@f8b8c0f's config/ (its keys and defaults).
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { composeHydra, type HydraFile } from '../../../src/analyzers/hydra/compose';
import { analyzeAs, detectFormat } from '../../../src/analyzers/detect';
import { applyEditData, editsForChanges, type FixFile } from '../../../src/features/fixes';
import type { SetupChange } from '../../../src/core/advice';
import { analyzeShell } from '../../../src/analyzers/shell';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';
import { runPipeline, type FileReader, type PipelineResult } from '../../../src/analyzers/pipeline';
import { estimate } from '../../../src/core/estimate';
import { runFact } from '../helpers';

const CONFIG = `seed: 0
exp_name: ???
batch_size: 4
eval_batch_size: 16
lr: 5e-7
gradient_accumulation_steps: 1
max_grad_norm: 10.0
max_length: 512
max_prompt_length: 256
trainer: BasicTrainer
optimizer: RMSprop
activation_checkpointing: false

defaults:
- _self_
- model: blank_model
- loss: sft
`;
const BLANK = `name_or_path: ???
tokenizer_name_or_path: null
block_name: null
policy_dtype: float32
fsdp_policy_mp: null
reference_dtype: float16
`;
const PYTHIA = `name_or_path: EleutherAI/pythia-2.8b
block_name: GPTNeoXLayer
policy_dtype: float32
fsdp_policy_mp: null
reference_dtype: float16
`;
const SFT = 'name: sft\n';
const DPO = 'name: dpo\nbeta: ???\nlabel_smoothing: 0\nreference_free: false\n';
const TRAIN = `import hydra
from omegaconf import DictConfig
import transformers

@hydra.main(version_base=None, config_path="config", config_name="config")
def main(config: DictConfig):
    policy = transformers.AutoModelForCausalLM.from_pretrained(config.model.name_or_path)
`;
const LAUNCH =
  'python -u train.py model=pythia28 datasets=[hh] loss=dpo loss.beta=0.1 exp_name=dpo gradient_accumulation_steps=2 ' +
  'batch_size=64 eval_batch_size=32 trainer=FSDPTrainer sample_during_eval=false model.fsdp_policy_mp=bfloat16\n';

const FILES: Record<string, string> = {
  '/d/train.py': TRAIN,
  '/d/launch.sh': LAUNCH,
  '/d/config/config.yaml': CONFIG,
  '/d/config/model/blank_model.yaml': BLANK,
  '/d/config/model/pythia28.yaml': PYTHIA,
  '/d/config/loss/sft.yaml': SFT,
  '/d/config/loss/dpo.yaml': DPO,
};
const reader: FileReader = {
  read: (p) => FILES[p],
  join: (from, rel) => path.posix.join(path.posix.dirname(from), rel),
};
const read = (rel: string): HydraFile | undefined => {
  const p = `/d/config/${rel}`;
  return FILES[p] === undefined ? undefined : { path: p, text: FILES[p] };
};
const primary: HydraFile = { path: '/d/config/config.yaml', text: CONFIG };

function pipelineOf(file: string, gpusPerNode?: number): PipelineResult {
  return runPipeline([{ file, text: FILES[file] }], reader, gpusPerNode ? { gpusPerNode, origin: 'flag' } : {});
}

const factOf = runFact;

describe('Hydra: composing a config', () => {
  it('composes the primary, then its group options (after _self_), then the launch line, each value where written', () => {
    const c = composeHydra(primary, [], read);
    // model: blank_model's ??? stays; the primary's own keys come first, the options' over them.
    assert.equal(c.values.get('model.name_or_path')?.file, '/d/config/model/blank_model.yaml');
    assert.deepEqual(c.values.get('model.policy_dtype')?.view, { t: 'str', v: 'float32', plain: true });
    assert.deepEqual(c.values.get('loss.name')?.view, { t: 'str', v: 'sft', plain: true });
    assert.deepEqual(c.values.get('batch_size')?.view, { t: 'num', v: 4 });
    assert.deepEqual(
      c.files.map((f) => f.path),
      ['/d/config/config.yaml', '/d/config/model/blank_model.yaml', '/d/config/loss/sft.yaml'],
    );
    // The launch line chooses options (model=pythia28) and sets values; a value it sets is placed at the key it replaces.
    const o = composeHydra(
      primary,
      [
        { name: 'model', value: 'pythia28' },
        { name: 'batch_size', value: '64' },
        { name: 'model.fsdp_policy_mp', value: 'bfloat16' },
      ],
      read,
    );
    assert.equal(o.groups.get('model')?.option, 'pythia28');
    const batch = o.values.get('batch_size')!;
    assert.deepEqual(
      [batch.view, batch.rawKey, batch.file],
      [{ t: 'num', v: 64 }, 'batch_size (launch line)', primary.path],
    );
    assert.equal(CONFIG.slice(batch.valueSpan.start, batch.valueSpan.end), '4');
    const mp = o.values.get('model.fsdp_policy_mp')!;
    assert.equal(mp.file, '/d/config/model/pythia28.yaml');
    assert.equal(PYTHIA.slice(mp.valueSpan.start, mp.valueSpan.end), 'null');
  });

  it('says where an option is missing or must be given, at the defaults entry', () => {
    const c = composeHydra(primary, [{ name: 'model', value: 'llama7b' }], read);
    const p = c.problems.map((x) => [x.file, x.problem.code, x.problem.message]);
    assert.deepEqual(p, [
      [primary.path, 'reference-not-found', "the config group 'model' has no option 'llama7b' (model/llama7b.yaml)"],
    ]);
    const at = c.problems[0].problem.span;
    assert.equal(CONFIG.slice(at.start, at.end), 'model: blank_model');
    const mandatory = composeHydra(
      { path: primary.path, text: CONFIG.replace('model: blank_model', 'model: ???') },
      [],
      read,
    );
    assert.match(mandatory.problems[0].problem.message, /no option of the config group 'model' is chosen \(\?\?\?\)/);
    // An option listed twice (Hydra refuses it) is composed once, the second entry said: the fuzz campaign's mutant of
    // HALOs' llama.yaml listed `- base_model` 470 times.
    const twice = composeHydra(
      { path: primary.path, text: CONFIG.replace('- loss: sft', '- loss: sft\n- model: blank_model') },
      [],
      read,
    );
    assert.equal(twice.files.filter((f) => f.path.endsWith('blank_model.yaml')).length, 1);
    assert.match(
      twice.problems[0]?.problem.message ?? '',
      /model\/blank_model appears more than once in the defaults list/,
    );
  });

  it('detects the primary config and the model and loss options, not other YAML with a defaults list', () => {
    assert.equal(detectFormat('config/config.yaml', CONFIG), 'hydra-yaml');
    assert.equal(detectFormat('config/model/pythia28.yaml', PYTHIA), 'hydra-yaml');
    assert.equal(detectFormat('config/loss/dpo.yaml', DPO), 'hydra-yaml');
    assert.notEqual(detectFormat('conf/config.yaml', 'defaults:\n- db: mysql\nserver:\n  port: 80\n'), 'hydra-yaml');
    assert.notEqual(detectFormat('optim.yaml', 'name: adam\nbeta: 0.9\n'), 'hydra-yaml');
  });
});

describe('Hydra: the DPO reference implementation', () => {
  it("a launch line's overrides reach the config through train.py's @hydra.main", () => {
    const sh = analyzeShell(LAUNCH);
    const ref = sh.references.find((r) => r.kind === 'script');
    assert.deepEqual(ref?.overrides?.slice(0, 4), [
      { name: 'model', value: 'pythia28' },
      { name: 'datasets', value: '[hh]' },
      { name: 'loss', value: 'dpo' },
      { name: 'loss.beta', value: '0.1' },
    ]);
    const py = analyzeHfPython(TRAIN);
    assert.deepEqual(
      py.references.map((r) => [r.kind, r.path, r.hydra]),
      [['config', 'config/config.yaml', true]],
    );
    // train.py's own from_pretrained reads the config at run time: no warning that nothing trains there.
    assert.ok(!py.problems.some((p) => /no Trainer, TRL trainer or training loop/.test(p.message)));
  });

  it('FSDPTrainer with DPO over 8 GPUs: each fact from the file that writes it, the batch split over accumulation and ranks', () => {
    const r = pipelineOf('/d/launch.sh', 8);
    const s = r.setup!;
    assert.equal(s.fsdp, 'full_shard');
    assert.equal(s.fsdp_version, 1);
    assert.equal(s.fsdp_backward_prefetch, 'pre');
    assert.equal(s.fsdp_use_orig_params, false);
    // batch_size is the step's: 64 / (2 accumulation steps x 8 ranks) = 4 pairs per GPU (trainers.py
    // slice_and_move_batch_for_device over the accumulation steps, then the ranks).
    assert.deepEqual([s.micro_batch_size, s.gradient_accumulation_steps, s.seq_len], [4, 2, 512]);
    assert.deepEqual([s.weights_dtype, s.mixed_precision, s.optimizer], ['fp32', 'bf16', 'rmsprop']);
    assert.deepEqual(s.preference, { reference: 'copy', logps: 'whole', paired: true, logits_kept: false });
    assert.equal(s.reference_dtype, 'fp16');
    assert.equal(s.gradient_checkpointing, 'none');
    const model = factOf(r, 'model')!;
    assert.deepEqual([model.file, model.at], ['/d/config/model/pythia28.yaml', 'EleutherAI/pythia-2.8b']);
    const mp = factOf(r, 'mixedPrecision')!;
    assert.deepEqual(
      [mp.file, mp.fact.rawKey],
      ['/d/config/model/pythia28.yaml', 'model.fsdp_policy_mp (launch line)'],
    );
    assert.equal(factOf(r, 'preference')?.file, '/d/config/loss/dpo.yaml');
    assert.equal(factOf(r, 'trainBatchSize')?.fact.rawKey, 'batch_size (launch line)');
    // Pythia-2.8B: 2,775,208,960 parameters (32 layers x 78,676,480, embedding and head 2 x 50,304 x 2,560, the final
    // norm 5,120). The reference in float16, sharded over 8 ranks like the policy: 2,775,208,960 x 2 B / 8.
    const e = estimate(s);
    assert.ok(e.ok);
    assert.equal(e.estimate.parameters.total, 2_775_208_960);
    const ref = e.estimate.perGpu.components.find((c) => c.label === 'Reference model weights (frozen copy)');
    assert.equal(ref?.bytes, (2_775_208_960 * 2) / 8);
    const states = e.estimate.perGpu.components.find((c) => c.id === 'optimizer-states');
    assert.equal(states?.bytes, (2_775_208_960 * 4) / 8);
  });

  it("activation_checkpointing is FSDPTrainer's (non-reentrant); BasicTrainer keeps every activation and says so", () => {
    const fsdp = runPipeline(
      [{ file: '/d/launch.sh', text: LAUNCH.replace('\n', ' activation_checkpointing=true\n') }],
      reader,
      {},
    ).setup!;
    assert.deepEqual([fsdp.gradient_checkpointing, fsdp.checkpoint_reentrant], ['full', false]);
    const basic = runPipeline(
      [{ file: '/d/launch.sh', text: LAUNCH.replace('trainer=FSDPTrainer', 'activation_checkpointing=true') }],
      reader,
      {},
    );
    assert.equal(basic.setup?.gradient_checkpointing, 'none');
    assert.equal(basic.setup?.fsdp, 'none');
    // One process: 64 / 2 accumulation steps = 32 pairs a step on the GPU the estimate is for.
    assert.equal(basic.setup?.micro_batch_size, 32);
    const notes = basic.files.flatMap((f) => f.facts.problems.map((p) => p.message));
    assert.ok(notes.some((m) => /BasicTrainer loads the model with device_map='balanced'/.test(m)));
    assert.ok(notes.some((m) => /activation_checkpointing is applied by FSDPTrainer only/.test(m)));
  });

  it('a model option opened alone is composed with ../config.yaml; the primary alone names no model, at its defaults', () => {
    const r = pipelineOf('/d/config/model/pythia28.yaml');
    assert.equal(r.setup?.preference, undefined);
    assert.deepEqual([r.setup?.micro_batch_size, r.setup?.optimizer, r.setup?.seq_len], [4, 'rmsprop', 512]);
    assert.equal(factOf(r, 'model')?.at, 'EleutherAI/pythia-2.8b');
    // The primary alone composes blank_model, whose name_or_path is ??? (must be given): unknown there.
    const alone = pipelineOf('/d/config/config.yaml');
    const blank = factOf(alone, 'model')!;
    assert.deepEqual([blank.file, blank.at], ['/d/config/model/blank_model.yaml', '???']);
    assert.match(JSON.stringify(blank.fact.value), /pass model=<option> or model.name_or_path=<model>/);
    // An option that is not there (the repository's own config.yaml names blank_model_fp32): at the defaults entry.
    const text = CONFIG.replace('model: blank_model', 'model: blank_model_fp32');
    const missing = runPipeline([{ file: '/d/config/config.yaml', text }], reader, {});
    const at = factOf(missing, 'model')!;
    assert.deepEqual([at.file, at.at], ['/d/config/config.yaml', 'model: blank_model_fp32']);
    // reference_free: DPO without the reference model.
    const free = runPipeline(
      [{ file: '/d/launch.sh', text: LAUNCH.replace('loss.beta=0.1', 'loss.beta=0.1 loss.reference_free=true') }],
      reader,
      {},
    );
    assert.equal(free.setup?.preference?.reference, 'none');
  });
});

describe('Hydra: quick fixes in the primary config', () => {
  const fix = (text: string, key: string, value: unknown, more: readonly SetupChange[] = []) => {
    const file: FixFile = {
      file: '/d/config/config.yaml',
      text,
      format: 'hydra-yaml',
      facts: analyzeAs('hydra-yaml', text),
    };
    return editsForChanges([{ key: key as SetupChange['key'], value }, ...more], [file], file.file);
  };

  it('writes max_length and the optimizer class where the config writes them; checkpointing only under FSDPTrainer', () => {
    const seq = fix(CONFIG, 'seq_len', 256);
    assert.deepEqual(seq.unsupported, []);
    assert.match(applyEditData(CONFIG, seq.edits), /^max_length: 256$/m);
    assert.match(applyEditData(CONFIG, fix(CONFIG, 'optimizer', 'sgd').edits), /^optimizer: SGD$/m);
    // BasicTrainer ignores activation_checkpointing (trainers.py applies it in FSDPTrainer only).
    assert.match(fix(CONFIG, 'gradient_checkpointing', 'full').unsupported[0].reason, /only FSDPTrainer/);
    // Halving the micro-batch with twice the accumulation: batch_size stays the step's, the accumulation says it.
    const half = fix(CONFIG, 'micro_batch_size', 2, [{ key: 'gradient_accumulation_steps', value: 2 }]);
    assert.deepEqual(half.unsupported, []);
    assert.match(applyEditData(CONFIG, half.edits), /^gradient_accumulation_steps: 2$/m);
    const fsdp = CONFIG.replace('trainer: BasicTrainer', 'trainer: FSDPTrainer');
    assert.match(
      applyEditData(fsdp, fix(fsdp, 'gradient_checkpointing', 'full').edits),
      /^activation_checkpointing: true$/m,
    );
  });

  it('a key the launch line overrides is not written in the file: the line decides it, which is said', () => {
    // The README's launch line sets gradient_accumulation_steps=2 over config.yaml's 1: a fix written in config.yaml
    // would change nothing the run does.
    const r = pipelineOf('/d/launch.sh', 8);
    const files: FixFile[] = r.files.map((f) => ({
      file: f.file,
      text: f.text,
      format: f.facts.format,
      facts: f.facts,
    }));
    const plan = editsForChanges(
      [
        { key: 'micro_batch_size', value: 2 },
        { key: 'gradient_accumulation_steps', value: 4 },
      ],
      files,
      '/d/launch.sh',
    );
    assert.deepEqual(plan.edits, []);
    assert.match(JSON.stringify(plan.unsupported), /the launch line sets gradient_accumulation_steps: change it there/);
  });
});

describe("Hydra: a primary config given alone, run as the README's command runs its application", () => {
  // The DPO reference implementation's README: `python -u train.py model=pythia28 ... loss=dpo ...` in a code block.
  const README = '# DPO\n\n```bash\n' + LAUNCH + '```\n';
  const withReadme: Record<string, string> = { ...FILES, '/d/README.md': README };
  delete withReadme['/d/launch.sh'];
  const run = (files: Record<string, string>): PipelineResult =>
    runPipeline([{ file: '/d/config/config.yaml', text: CONFIG }], { read: (p) => files[p], join: reader.join }, {});

  it("the README's overrides choose the model option and set the batch: the run of train.py, said at the command", () => {
    const r = run(withReadme);
    assert.equal(r.setup?.model, 'EleutherAI/pythia-2.8b');
    assert.equal(r.setup?.gradient_accumulation_steps, 2);
    const note = r.problems.find((p) => p.code === 'readme-launch');
    assert.equal(note?.file, '/d/README.md');
    assert.match(note?.message ?? '', /^train\.py is run by this command/);
  });

  it('without a README, or one whose command runs no script beside config/, the config alone leaves the model open', () => {
    const alone: Record<string, string> = { ...withReadme };
    delete alone['/d/README.md'];
    assert.equal(run(alone).setup?.model, undefined);
    const other = { ...withReadme, '/d/README.md': '```bash\npython -u scripts/eval.py model=pythia28\n```\n' };
    assert.equal(run(other).setup?.model, undefined);
    assert.ok(!run(other).problems.some((p) => p.code === 'readme-launch'));
  });
});

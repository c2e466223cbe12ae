// A project that pins transformers but not TRL runs the newest TRL that release allows (src/analyzers/
// trl-dated-defaults.ts trlOfTransformersRelease): TRL's install_requires at its release tags (huggingface/trl) ask
// for transformers >= 4.46.0 from 0.12 to 0.17, 4.50.0 in 0.18, 4.51.0 in 0.19, 4.53.2 in 0.20, 4.55.0 in 0.21-0.22,
// 4.56.1 in 0.23-0.26 and 4.56.2 from 0.27 on. The dated defaults then follow that release: GRPOConfig's
// gradient_checkpointing False before 0.22, beta 0.04 (a KL reference) before 0.19.
import * as assert from 'node:assert/strict';
import { runFiles } from './helpers';

// SiliangZeng/R1-Experiment@9981999 grpo_demo.py, shortened: GRPOConfig sets neither gradient_checkpointing nor beta;
// its requirements.txt pins transformers==4.48.1 and its README installs TRL from the repository.
const SCRIPT = [
  'from transformers import AutoModelForCausalLM',
  'from trl import GRPOConfig, GRPOTrainer',
  'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B-Instruct")',
  'args = GRPOConfig(output_dir="out", per_device_train_batch_size=8, num_generations=8, bf16=True,',
  '                  max_prompt_length=256, max_completion_length=512)',
  'trainer = GRPOTrainer(model=model, reward_funcs=[lambda completions, **kw: [0.0] * len(completions)], args=args)',
  'trainer.train()',
  '',
].join('\n');

const run = (requirements: string) =>
  runFiles({ '/w/grpo.py': SCRIPT, '/w/requirements.txt': `${requirements}\n` }, '/w/grpo.py');

describe("TRL's release from the project's transformers pin", () => {
  it('is the newest release line the pin allows, said as a default with the release that asks for more', () => {
    const r = run('transformers==4.48.1');
    assert.equal(r.setup?.trl_version, '0.17');
    const p = r.provenance.trl_version;
    assert.equal(p?.kind, 'default');
    assert.match(
      p?.kind === 'default' ? (p.note ?? '') : '',
      /newest TRL that transformers 4\.48\.1 allows: TRL 0\.18 asks for transformers >= 4\.50\.0/,
    );
  });

  it("takes back the defaults that release did not have: no checkpointing, beta 0.04's reference", () => {
    const s = run('transformers==4.48.1').setup;
    assert.equal(s?.gradient_checkpointing, 'none');
    assert.equal(s?.rollout?.reference, 'copy');
  });

  it('leaves checkpointing on from the release that made it the default (0.22, allowed from 4.55.0)', () => {
    assert.equal(run('transformers==4.53.2').setup?.trl_version, '0.20');
    assert.equal(run('transformers==4.53.2').setup?.gradient_checkpointing, 'none');
    assert.equal(run('transformers==4.55.4').setup?.trl_version, '0.22');
    assert.equal(run('transformers==4.55.4').setup?.gradient_checkpointing, 'full');
  });

  it('says nothing where the pin allows a current TRL, or where TRL is pinned itself', () => {
    assert.equal(run('transformers==4.57.1').setup?.trl_version, undefined);
    assert.equal(run('transformers==4.57.1').setup?.gradient_checkpointing, 'full');
    const both = run('transformers==4.48.1\ntrl==0.14.0');
    assert.equal(both.setup?.trl_version, '0.14.0');
    assert.equal(both.provenance.trl_version?.kind, 'file');
  });

  it('reads no release from a lower bound, which leaves the version open', () => {
    assert.equal(run('transformers>=4.48.1').setup?.trl_version, undefined);
  });

  it("generates a micro-step's completions at a time under TRL 0.15 and 0.16, the accumulated batch from 0.17", () => {
    const accumulating = SCRIPT.replace('bf16=True,', 'bf16=True, gradient_accumulation_steps=4,');
    const round = (requirements: string) =>
      runFiles({ '/w/grpo.py': accumulating, '/w/requirements.txt': `${requirements}\n` }, '/w/grpo.py').setup?.rollout
        ?.batch;
    // 8 completions a micro-step (per_device_train_batch_size counts completions from 0.15), 4 micro-steps a step.
    assert.equal(round('trl==0.15.2'), 8);
    assert.equal(round('trl==0.16.1'), 8);
    assert.equal(round('trl==0.17.0'), 32);
    assert.equal(round('transformers==4.48.1'), 32);
  });
});

describe("GRPOConfig's beta before TRL 0.19 where the file's own beta is not known statically", () => {
  it("takes the release's 0.04, a KL reference, and keeps what the file says (sotopia-lab/sotopia-rl: beta=self.args.beta)", () => {
    const script = SCRIPT.replace('bf16=True,', 'bf16=True, beta=settings.beta,');
    const r = runFiles({ '/w/grpo.py': script, '/w/requirements.txt': 'trl==0.16.1\n' }, '/w/grpo.py');
    assert.equal(r.setup?.rollout?.reference, 'copy');
    const p = r.provenance['rollout.reference' as keyof typeof r.provenance];
    const note = p?.kind === 'default' ? (p.note ?? '') : '';
    assert.match(
      note,
      /^beta is not known statically .*GRPOConfig beta defaulted to 0\.04 before TRL 0\.19 \(TRL 0\.16\.1/,
    );
  });
});

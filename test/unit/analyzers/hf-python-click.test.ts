// Scripts whose command line is a click or typer command (src/analyzers/hf-python/click.ts, typer.ts): each option's
// default is what runs when the launch line passes nothing, and the launch line's flag replaces it. The click script is
// databricks' dolly training/trainer.py shortened (its model is a click option whose default is DEFAULT_INPUT_MODEL
// from training/consts.py, "EleutherAI/pythia-6.9b", passed on through `main(**kwargs)` -> `train(**kwargs)` ->
// load_model()); the typer script is a plain SFT script of the same shape.
import * as assert from 'node:assert/strict';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';
import { runFact, runFiles } from '../helpers';

const CONSTS = 'DEFAULT_INPUT_MODEL = "EleutherAI/pythia-6.9b"\nDEFAULT_SEED = 42\n';

const DOLLY = `import click
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments
from .consts import DEFAULT_INPUT_MODEL, DEFAULT_SEED


def load_model(pretrained_model_name_or_path: str = DEFAULT_INPUT_MODEL, *, gradient_checkpointing: bool = False):
    return AutoModelForCausalLM.from_pretrained(
        pretrained_model_name_or_path, trust_remote_code=True, use_cache=False if gradient_checkpointing else True
    )


def train(*, input_model: str, per_device_train_batch_size: int, gradient_checkpointing: bool, seed: int):
    model = load_model(input_model, gradient_checkpointing=gradient_checkpointing)
    args = TrainingArguments(
        output_dir="out",
        per_device_train_batch_size=per_device_train_batch_size,
        gradient_checkpointing=gradient_checkpointing,
        bf16=True,
        seed=seed,
    )
    Trainer(model=model, args=args).train()


@click.command()
@click.option("--input-model", type=str, help="Input model to fine tune", default=DEFAULT_INPUT_MODEL)
@click.option("--per-device-train-batch-size", type=int, default=8, help="Batch size to use for training.")
@click.option(
    "--gradient-checkpointing/--no-gradient-checkpointing",
    is_flag=True,
    default=True,
    help="Use gradient checkpointing?",
)
@click.option("--seed", type=int, default=DEFAULT_SEED, help="Seed to use for training.")
def main(**kwargs):
    train(**kwargs)


if __name__ == "__main__":
    main()
`;

const last = (facts: ReturnType<typeof analyzeHfPython>, key: string) => facts.facts.filter((f) => f.key === key).pop();

describe('hf-python: click and typer commands', () => {
  it("dolly's trainer: the model is the click option's default, an imported constant passed on through **kwargs", () => {
    const r = runFiles({ '/d/training/trainer.py': DOLLY, '/d/training/consts.py': CONSTS }, '/d/training/trainer.py');
    assert.equal(r.setup?.model, 'EleutherAI/pythia-6.9b');
    assert.equal(r.setup?.micro_batch_size, 8);
    // `--gradient-checkpointing/--no-gradient-checkpointing`, default=True: on unless the launch line turns it off.
    assert.equal(r.setup?.gradient_checkpointing, 'full');
    const model = runFact(r, 'model')!;
    assert.equal(model.fact.origin, 'script-default');
    assert.equal(model.fact.fromArg?.name, 'input-model');
    assert.match(model.fact.rawValue, /click\.option default of --input-model, line 25/);
  });

  it("the launch line's flags replace the defaults, --no-gradient-checkpointing turning the flag off", () => {
    const files = {
      '/d/run.sh':
        'python training/trainer.py --input-model EleutherAI/pythia-2.8b --per-device-train-batch-size 4 ' +
        '--no-gradient-checkpointing\n',
      '/d/training/trainer.py': DOLLY,
      '/d/training/consts.py': CONSTS,
    };
    const r = runFiles(files, '/d/run.sh', '/d/training/trainer.py');
    assert.equal(r.setup?.model, 'EleutherAI/pythia-2.8b');
    assert.equal(r.setup?.micro_batch_size, 4);
    assert.equal(r.setup?.gradient_checkpointing, 'none');
  });

  it('an option without a default that is required, and an argument, stay unknown with the reason', () => {
    const required = DOLLY.replace(
      '"--input-model", type=str, help="Input model to fine tune", default=DEFAULT_INPUT_MODEL',
      '"--input-model", "-m", required=True',
    );
    assert.deepEqual(last(analyzeHfPython(required), 'model')?.value, {
      unknown: 'input_model is a required option of the script (@click.command() main --input-model)',
    });
    const argument = DOLLY.replace(
      '@click.option("--input-model", type=str, help="Input model to fine tune", default=DEFAULT_INPUT_MODEL)',
      '@click.argument("input-model")',
    );
    assert.deepEqual(last(analyzeHfPython(argument), 'model')?.value, {
      unknown: 'input_model is an argument the command line gives by position (@click.command() main)',
    });
  });

  it('a name declared beside the flags names the parameter (`@click.option("--model", "-m", "input_model")`)', () => {
    const named = DOLLY.replace('"--input-model", type=str,', '"--model", "-m", "input_model", type=str,');
    const r = runFiles({ '/d/t/trainer.py': named, '/d/t/consts.py': CONSTS }, '/d/t/trainer.py');
    assert.equal(r.setup?.model, 'EleutherAI/pythia-6.9b');
    assert.equal(runFact(r, 'model')?.fact.fromArg?.name, 'model');
  });

  it('two click commands in one file (a group): the one that trains; of two that train, none is taken', () => {
    const group = DOLLY.replace('@click.command()', '@cli.command()').replace(
      'if __name__',
      '@cli.command()\ndef other():\n    pass\n\nif __name__',
    );
    const r = runFiles({ '/d/training/trainer.py': group, '/d/training/consts.py': CONSTS }, '/d/training/trainer.py');
    assert.equal(r.setup?.model, 'EleutherAI/pythia-6.9b');
    assert.equal(runFact(r, 'model')?.fact.fromArg?.name, 'input-model');
    const both = group.replace('def other():\n    pass', 'def other():\n    train()');
    const model = last(analyzeHfPython(both), 'model');
    assert.ok(model && typeof model.value === 'object' && model.value !== null && 'unknown' in model.value);
  });

  const TYPER = (params: string, run: string): string => `import typer
from typing import Annotated
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments

app = typer.Typer()


${run === 'app' ? '@app.command()\n' : ''}def main(${params}):
    model = AutoModelForCausalLM.from_pretrained(model_name, torch_dtype="bfloat16")
    args = TrainingArguments(output_dir="out", per_device_train_batch_size=batch_size, gradient_checkpointing=ckpt)
    Trainer(model=model, args=args).train()


if __name__ == "__main__":
    ${run === 'app' ? 'app()' : 'typer.run(main)'}
`;

  it('typer: plain defaults, typer.Option(default, "--flag") and Annotated[...] defaults are the options', () => {
    const params =
      'model_name: str = typer.Option("Qwen/Qwen2.5-0.5B", "--model"), ' +
      'batch_size: Annotated[int, typer.Option("--bs")] = 4, ckpt: bool = True';
    for (const run of ['app', 'typer.run']) {
      const r = runFiles({ '/t/sft.py': TYPER(params, run) }, '/t/sft.py');
      assert.equal(r.setup?.model, 'Qwen/Qwen2.5-0.5B', run);
      assert.equal(r.setup?.micro_batch_size, 4, run);
      assert.equal(r.setup?.gradient_checkpointing, 'full', run);
      assert.equal(runFact(r, 'model')?.fact.fromArg?.name, 'model', run);
    }
    const files = { '/t/run.sh': 'python sft.py --model Qwen/Qwen2.5-1.5B --bs 2 --no-ckpt\n', '/t/sft.py': '' };
    files['/t/sft.py'] = TYPER(params, 'app');
    const r = runFiles(files, '/t/run.sh', '/t/sft.py');
    assert.deepEqual(
      [r.setup?.model, r.setup?.micro_batch_size, r.setup?.gradient_checkpointing],
      ['Qwen/Qwen2.5-1.5B', 2, 'none'],
    );
  });

  it('typer: of several commands, the one that trains, directly or through a function of the file (RobotSail/mini-grpo)', () => {
    const text = TYPER('model_name: str = "Qwen/Qwen2-1.5B-Instruct", batch_size: int = 4, ckpt: bool = True', 'app')
      .replace('    Trainer(model=model, args=args).train()', '    step(Trainer(model=model, args=args))')
      .replace(
        'if __name__',
        'def step(t):\n    t.train()\n\n@app.command()\ndef generate_data(model_name: str = "gpt2"):\n    pass\n\nif __name__',
      );
    const r = analyzeHfPython(text);
    assert.equal(last(r, 'model')?.value, 'Qwen/Qwen2-1.5B-Instruct');
    assert.equal(last(r, 'model')?.fromArg?.name, 'model-name');
  });

  it('typer: a parameter without a default is an argument, typer.Option(...) a required option', () => {
    const argument = analyzeHfPython(TYPER('model_name: str, batch_size: int = 4, ckpt: bool = False', 'app'));
    assert.deepEqual(last(argument, 'model')?.value, {
      unknown: 'model_name is an argument the command line gives by position (@app.command() main)',
    });
    const required = analyzeHfPython(
      TYPER('model_name: str = typer.Option(..., "--model"), batch_size: int = 4, ckpt: bool = False', 'typer.run'),
    );
    assert.deepEqual(last(required, 'model')?.value, {
      unknown: 'model_name is a required option of the script (typer.run(main) --model)',
    });
  });
});

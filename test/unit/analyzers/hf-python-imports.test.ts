// Constants a training script imports from a module of its project (src/analyzers/hf-python/imported-constants.ts):
// `from config import MODEL_NAME`, `import config` with `config.BATCH_SIZE`, `from .consts import *`, read through
// the pipeline's reader, each fact located where the script reads the name and saying where its value is written.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { runPipeline, type FileReader, type PipelineResult } from '../../../src/analyzers/pipeline';
import { projectImports } from '../../../src/analyzers/hf-python/imported-constants';
import { runFact } from '../helpers';

const CONFIG = `MODEL_NAME = "meta-llama/Llama-3.2-1B"
BATCH_SIZE = 4
MAX_LEN = 1024
_PRIVATE = "Qwen/Qwen2.5-7B"
`;
const TRAINER = (imports: string, model: string, batch: string): string => `${imports}
from transformers import AutoModelForCausalLM, TrainingArguments, Trainer

model = AutoModelForCausalLM.from_pretrained(${model})
args = TrainingArguments(output_dir="out", per_device_train_batch_size=${batch}, bf16=True)
Trainer(model=model, args=args).train()
`;

function runOf(files: Record<string, string>, entry: string): PipelineResult {
  const reader: FileReader = {
    read: (p) => files[p],
    join: (from, rel) => path.posix.join(path.posix.dirname(from), rel),
  };
  return runPipeline([{ file: entry, text: files[entry] }], reader, {});
}

describe('hf-python: constants imported from the project', () => {
  it('`from config import NAME`: the value where the script reads it, and the module line that writes it', () => {
    const text = TRAINER('from config import MODEL_NAME, BATCH_SIZE as BS', 'MODEL_NAME', 'BS');
    const r = runOf({ '/p/train.py': text, '/p/config.py': CONFIG }, '/p/train.py');
    assert.equal(r.setup?.model, 'meta-llama/Llama-3.2-1B');
    assert.equal(r.setup?.micro_batch_size, 4);
    const model = runFact(r, 'model')!;
    assert.deepEqual([model.file, model.at], ['/p/train.py', 'MODEL_NAME']);
    assert.match(model.fact.rawValue, /MODEL_NAME in config\.py, line 1/);
    assert.equal(runFact(r, 'microBatchSize')?.at, 'BS');
  });

  it('`import config` then `config.NAME`, and `from .consts import *` (its underscore names left out)', () => {
    const dotted = TRAINER('import config', 'config.MODEL_NAME', 'config.BATCH_SIZE');
    const a = runOf({ '/p/train.py': dotted, '/p/config.py': CONFIG }, '/p/train.py');
    assert.deepEqual([a.setup?.model, a.setup?.micro_batch_size], ['meta-llama/Llama-3.2-1B', 4]);
    const star = TRAINER('from .consts import *', 'MODEL_NAME', 'BATCH_SIZE');
    const b = runOf({ '/p/pkg/train.py': star, '/p/pkg/consts.py': CONFIG }, '/p/pkg/train.py');
    assert.deepEqual([b.setup?.model, b.setup?.micro_batch_size], ['meta-llama/Llama-3.2-1B', 4]);
    const hidden = TRAINER('from .consts import *', '_PRIVATE', 'BATCH_SIZE');
    const c = runOf({ '/p/pkg/train.py': hidden, '/p/pkg/consts.py': CONFIG }, '/p/pkg/train.py');
    assert.equal(c.setup, undefined);
  });

  it("`from package import module` then `module.NAME`, and a name of the package's __init__.py", () => {
    // ferrazzipietro/mistral_finetuning finetuning_qwen.py: `from config.finetuning_qwen import config,
    // training_params`, then `config.BASE_MODEL_CHECKPOINT` (config/finetuning_qwen/config.py; the package's
    // __init__.py is empty).
    const text = TRAINER(
      'from config.finetuning_qwen import config, training_params',
      'config.MODEL_NAME',
      'training_params.BATCH_SIZE',
    );
    const files = {
      '/p/train.py': text,
      '/p/config/finetuning_qwen/__init__.py': '',
      '/p/config/finetuning_qwen/config.py': CONFIG,
      '/p/config/finetuning_qwen/training_params.py': 'BATCH_SIZE = 2\n',
    };
    const r = runOf(files, '/p/train.py');
    assert.deepEqual([r.setup?.model, r.setup?.micro_batch_size], ['meta-llama/Llama-3.2-1B', 2]);
    const pkg = TRAINER('from settings import MODEL_NAME', 'MODEL_NAME', '4');
    const s = runOf({ '/p/train.py': pkg, '/p/settings/__init__.py': CONFIG }, '/p/train.py');
    assert.equal(s.setup?.model, 'meta-llama/Llama-3.2-1B');
  });

  it('a name the script binds itself wins; a module that is not there leaves the name unknown, said where it is read', () => {
    const own = TRAINER('from config import MODEL_NAME\nMODEL_NAME = "gpt2"', 'MODEL_NAME', '2');
    assert.equal(runOf({ '/p/train.py': own, '/p/config.py': CONFIG }, '/p/train.py').setup?.model, 'gpt2');
    const missing = runOf(
      { '/p/train.py': TRAINER('from config import MODEL_NAME', 'MODEL_NAME', '2') },
      '/p/train.py',
    );
    assert.equal(missing.setup, undefined);
    assert.match(JSON.stringify(runFact(missing, 'model')?.fact.value), /MODEL_NAME is not assigned in this file/);
  });

  it('installed packages are no project modules', () => {
    const imports = projectImports('import torch\nfrom transformers import Trainer\nfrom utils.consts import A as B\n');
    assert.deepEqual(imports, [{ path: 'utils/consts.py', names: [['B', 'A']], star: false }]);
  });
});

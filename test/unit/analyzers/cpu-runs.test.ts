// Runs that train on the CPU (`runs-on-cpu`): a launch that hides every GPU, an Accelerate config with `use_cpu`, and
// the run of a file chosen among its launchers, a GPU run before a CPU debug launcher, in the CLI and the editor.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { analyzeShell } from '../../../src/analyzers/shell';
import { analyzeAccelerateYaml } from '../../../src/analyzers/yaml';
import { textRunsOnCpu } from '../../../src/analyzers/shell/visible';
import { RunIndex } from '../../../src/server/runs';
import { Workspace } from '../../../src/server/workspace';
import { run } from '../../../src/cli/main';
import { tempDir } from '../helpers';

const cpuWarnings = (
  r: { problems: readonly { code: string; message: string; span: { start: number; end: number } }[] },
  text: string,
): string[] => r.problems.filter((p) => p.code === 'runs-on-cpu').map((p) => text.slice(p.span.start, p.span.end));

// xuanduy04/trl_tool (abridged): scripts/debug_grpo_tool.sh and accelerate_configs/debug_cpu.yaml run the GRPO script
// on the CPU for debugging; scripts/grpo_tool.sh runs it on four GPUs with FSDP2.
const SCRIPT =
  'from trl import GRPOConfig, GRPOTrainer, ModelConfig, TrlParser\n' +
  'args, model_args = TrlParser((GRPOConfig, ModelConfig)).parse_args_and_config()\n' +
  'GRPOTrainer(model=model_args.model_name_or_path, args=args, reward_funcs=[]).train()\n';
const DEBUG =
  'CUDA_VISIBLE_DEVICES="" \\\naccelerate launch --config_file ./accelerate_configs/debug_cpu.yaml ./main/train.py \\\n' +
  '  --model_name_or_path Qwen/Qwen2.5-0.5B --per_device_train_batch_size 2\n';
const GPU =
  'CUDA_VISIBLE_DEVICES="0,3,4,7" \\\naccelerate launch --config_file ./accelerate_configs/fsdp2.yaml ./main/train.py \\\n' +
  '  --model_name_or_path Qwen/Qwen2.5-3B --per_device_train_batch_size 16\n';
const FILES: Record<string, string> = {
  'scripts/main/train.py': SCRIPT,
  'scripts/debug_grpo_tool.sh': DEBUG,
  'scripts/grpo_tool.sh': GPU,
  'scripts/accelerate_configs/debug_cpu.yaml': 'distributed_type: "NO"\nnum_processes: 1\nuse_cpu: true\n',
  'scripts/accelerate_configs/fsdp2.yaml':
    'distributed_type: FSDP\nnum_processes: 4\nfsdp_config:\n  fsdp_version: 2\n',
};

function project(): string {
  const dir = tempDir('vram-lens-cpu-');
  for (const [rel, text] of Object.entries(FILES)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

describe('runs on the CPU', () => {
  it('a launch that hides every GPU is said to train on the CPU, at the variable', () => {
    assert.deepEqual(cpuWarnings(analyzeShell(DEBUG), DEBUG), ['CUDA_VISIBLE_DEVICES=""']);
    const minus = 'export CUDA_VISIBLE_DEVICES=-1\npython train.py --model_name_or_path gpt2\n';
    assert.deepEqual(cpuWarnings(analyzeShell(minus), minus), ['CUDA_VISIBLE_DEVICES=-1']);
    // A device list, or a value not known statically, hides nothing that can be told.
    assert.deepEqual(cpuWarnings(analyzeShell(GPU), GPU), []);
    const unknown = 'CUDA_VISIBLE_DEVICES=$GPUS python train.py --model_name_or_path gpt2\n';
    assert.deepEqual(cpuWarnings(analyzeShell(unknown), unknown), []);
  });

  it("an Accelerate config's use_cpu is said at the key", () => {
    const text = FILES['scripts/accelerate_configs/debug_cpu.yaml'];
    assert.deepEqual(cpuWarnings(analyzeAccelerateYaml(text), text), ['use_cpu: true']);
    const off = 'distributed_type: MULTI_GPU\nnum_processes: 2\nuse_cpu: false\n';
    assert.deepEqual(cpuWarnings(analyzeAccelerateYaml(off), off), []);
  });

  it('the text test that orders runs before they are analyzed takes the same settings', () => {
    assert.equal(textRunsOnCpu(DEBUG), true);
    assert.equal(textRunsOnCpu(FILES['scripts/accelerate_configs/debug_cpu.yaml']), true);
    assert.equal(textRunsOnCpu(GPU), false);
    assert.equal(textRunsOnCpu('use_cpu: false\n'), false);
  });

  it('the CLI reads a script as its GPU run, not the CPU debug launcher that sorts first', async () => {
    const dir = project();
    try {
      let out = '';
      let err = '';
      const code = await run(['estimate', 'scripts/main/train.py', '--json'], {
        out: (s) => (out += s),
        err: (s) => (err += `${s}\n`),
        cwd: dir,
        env: { HOME: os.tmpdir(), HF_HUB_CACHE: path.join(os.tmpdir(), 'vram-lens-no-cache') },
      });
      assert.equal(code, 0, err);
      assert.match(err, /read as the run of scripts\/grpo_tool\.sh, which runs it \(1 other file\(s\) run it too\)/);
      const j = JSON.parse(out) as { model: string; layout: { world: number } };
      assert.deepEqual([j.model, j.layout.world], ['Qwen/Qwen2.5-3B', 4]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the editor's first run of the script is the GPU one; the debug launcher stays a run to choose", async () => {
    const dir = project();
    try {
      const workspace = new Workspace(true, { HOME: '/nonexistent' });
      workspace.setFolders([dir]);
      const index = new RunIndex(workspace, () => undefined);
      index.rebuild();
      for (let i = 0; i < 200 && !index.ready; i++) await new Promise((r) => setTimeout(r, 5));
      const script = path.join(dir, 'scripts/main/train.py');
      assert.deepEqual(
        index.runsOf(script).map((r) => path.relative(dir, r.entry)),
        ['scripts/grpo_tool.sh', 'scripts/debug_grpo_tool.sh'],
      );
      assert.equal(index.runFor(script)?.entry, path.join(dir, 'scripts/grpo_tool.sh'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

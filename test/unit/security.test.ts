// Regression tests of the security review: files that are not configs of the run are never echoed (the process
// environment, a token file), devices and FIFOs are refused at once, an untrusted workspace's paths stay inside it,
// Markdown and terminal escapes in a config render as text, and out-of-range numbers get a message in our words.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { run } from '../../src/cli/main';
import { nodeFileReader } from '../../src/node/files';
import { resolveModelSync } from '../../src/node/models';
import { CLI_READ_BUDGET_MS, readBounded, readPolicy } from '../../src/node/read';
import { analyzeDocument } from '../../src/features/analysis';
import { hoverAt } from '../../src/features/hover';
import { mdCode, mdText, messageMarkdown } from '../../src/features/markdown';
import { catalogResolver } from '../../src/analyzers/resolve';
import { tempDir } from './helpers';

const tmp = (): string => tempDir('vram-lens-sec-');
const env = { HOME: '/nonexistent', HF_HUB_CACHE: '/nonexistent', XDG_CACHE_HOME: '/nonexistent' };

async function cli(cwd: string, ...args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await run(args, { out: (s) => (out += `${s}\n`), err: (s) => (out += `${s}\n`), cwd, env });
  return { code, out };
}

function mkfifo(p: string): boolean {
  try {
    execFileSync('mkfifo', [p]);
    return true;
  } catch {
    return false;
  }
}

describe('security: files that are not configs of the run', () => {
  it('a launcher pointing --deepspeed at /proc/self/environ: the environment is never printed', async function () {
    if (process.platform !== 'linux') this.skip();
    const dir = tmp();
    process.env.VRAM_LENS_TEST_SECRET = 'ghp_notarealtoken_123456';
    fs.writeFileSync(
      path.join(dir, 'launch.sh'),
      'deepspeed train.py --model_name_or_path meta-llama/Llama-2-7b-hf --deepspeed /proc/self/environ\n',
    );
    const r = await cli(dir, 'estimate', 'launch.sh');
    delete process.env.VRAM_LENS_TEST_SECRET;
    assert.doesNotMatch(r.out, /ghp_notarealtoken|PATH=|HOME=/);
    assert.match(
      r.out,
      /launch\.sh:1:\d+: warning: the referenced file \/proc\/self\/environ is not read: a system file under \/proc/,
    );
  });

  it('a model path that names a token file: not JSON, and not one character of it shown', async () => {
    const dir = tmp();
    fs.writeFileSync(path.join(dir, 'token'), 'hf_SECRETTOKENVALUE1234567890\n');
    fs.writeFileSync(
      path.join(dir, 'ax.yaml'),
      'base_model: ./token\nadapter: lora\nmicro_batch_size: 1\ngradient_accumulation_steps: 1\n',
    );
    const r = await cli(dir, 'estimate', 'ax.yaml');
    assert.equal(r.code, 2);
    assert.doesNotMatch(r.out, /hf_|SECRET|TOKENVALUE/);
    assert.match(r.out, /ax\.yaml:1:13: error \[base_model\]: .*token: invalid JSON \(its content is not shown\)/);
  });

  it('a data file a script loads is read only inside the project: a symlink out of it, `..` and `/` are not', async () => {
    const outside = tmp();
    fs.writeFileSync(path.join(outside, 'creds.json'), '{"auths": "SECRETVALUE1234"}\n');
    const dir = tmp();
    fs.symlinkSync(path.join(outside, 'creds.json'), path.join(dir, 'cfg.json'));
    for (const p of ['cfg.json', path.join(outside, 'creds.json'), `../${path.basename(outside)}/creds.json`]) {
      fs.writeFileSync(
        path.join(dir, 'train.py'),
        `import json\ncfg = json.load(open(${JSON.stringify(p)}))\n` +
          'm = AutoModelForCausalLM.from_pretrained(cfg["auths"])\n',
      );
      const r = await cli(dir, 'estimate', 'train.py');
      assert.equal(r.code, 2, p);
      assert.doesNotMatch(r.out, /SECRET/, p);
    }
  });

  it('a referenced "DeepSpeed config" that is not a JSON object is not analyzed, so none of its words are quoted', async () => {
    const dir = tmp();
    fs.writeFileSync(path.join(dir, 'secrets.txt'), 'AWS_SECRET_ACCESS_KEY=abc123secret\n');
    fs.writeFileSync(
      path.join(dir, 'run.sh'),
      'deepspeed train.py --model_name_or_path gpt2 --deepspeed secrets.txt\n',
    );
    const r = await cli(dir, 'estimate', 'run.sh');
    assert.doesNotMatch(r.out, /AWS_SECRET|abc123secret/);
    assert.match(
      r.out,
      /the referenced file secrets\.txt is not a DeepSpeed config \(it is not a JSON object\); it is not read/,
    );
  });

  it('/dev/zero as a model path and as a config: refused at once, no read', async function () {
    if (process.platform !== 'linux') this.skip();
    const dir = tmp();
    fs.writeFileSync(
      path.join(dir, 'z.yaml'),
      'base_model: /dev/zero\nadapter: lora\nmicro_batch_size: 1\ngradient_accumulation_steps: 1\n',
    );
    const t0 = Date.now();
    const r = await cli(dir, 'estimate', 'z.yaml');
    assert.match(r.out, /\/dev\/zero: not read as a model config\.json: a system file under \/dev/);
    const r2 = await cli(dir, 'estimate', '/dev/zero');
    assert.equal(r2.code, 2);
    assert.match(r2.out, /\/dev\/zero: a system file under \/dev/);
    assert.ok(Date.now() - t0 < 2000);
  });

  it('a FIFO as a config, a reference and a model path: refused without blocking', async function () {
    const dir = tmp();
    if (!mkfifo(path.join(dir, 'pipe.json'))) this.skip();
    fs.writeFileSync(path.join(dir, 'run.sh'), 'deepspeed train.py --model_name_or_path gpt2 --deepspeed pipe.json\n');
    fs.writeFileSync(path.join(dir, 'm.vram.yaml'), 'model: ./pipe.json\n');
    const r1 = await cli(dir, 'estimate', 'pipe.json');
    assert.match(r1.out, /pipe\.json: not a regular file \(a device, FIFO or socket\)/);
    const r2 = await cli(dir, 'estimate', 'run.sh');
    assert.match(r2.out, /the referenced file pipe\.json is not read: not a regular file/);
    const r3 = await cli(dir, 'estimate', 'm.vram.yaml');
    assert.match(r3.out, /pipe\.json: not read as a model config\.json: not a regular file/);
  });

  it('a size limit per kind of file: an 8 MiB "config" is refused with its size', () => {
    const dir = tmp();
    const big = path.join(dir, 'big.json');
    fs.writeFileSync(big, `{"a": "${'x'.repeat(8 * 1024 * 1024)}"}`);
    const r = readBounded(big, 'config');
    assert.ok(
      !r.ok && /too large for a config \(8\.0 MiB; the limit is 4\.0 MiB\)/.test(r.reason),
      JSON.stringify(r.ok ? '' : r.reason),
    );
  });

  it("reading stops at the analysis's budget, which says how long it was: 2 s in the editor, the CLI's own", () => {
    const dir = tmp();
    const file = path.join(dir, 'ds.json');
    fs.writeFileSync(file, '{"train_micro_batch_size_per_gpu": 4}');
    const spent = (budgetMs?: number) => {
      const policy = readPolicy(undefined, budgetMs);
      return readBounded(file, 'config', { ...policy, deadline: Date.now() - 1 });
    };
    const editor = spent();
    assert.ok(!editor.ok && /spent its 2000 ms for reading files/.test(editor.reason));
    const cli = spent(CLI_READ_BUDGET_MS);
    assert.ok(!cli.ok && /spent its 10000 ms for reading files/.test(cli.reason));
    assert.ok(readBounded(file, 'config', readPolicy(undefined, CLI_READ_BUDGET_MS)).ok);
  });

  it('an untrusted workspace: a symlink out of the workspace and a model path outside it are not read', () => {
    const outside = tmp();
    const ws = tmp();
    fs.writeFileSync(path.join(outside, 'ds.json'), '{"train_micro_batch_size_per_gpu": 4}');
    fs.mkdirSync(path.join(outside, 'model'));
    fs.writeFileSync(
      path.join(outside, 'model', 'config.json'),
      JSON.stringify({ model_type: 'gpt2', n_layer: 2, n_embd: 64, n_head: 2, vocab_size: 100 }),
    );
    fs.symlinkSync(path.join(outside, 'ds.json'), path.join(ws, 'ds.json'));
    const reader = nodeFileReader(ws, readPolicy([ws]));
    assert.equal(reader.read(path.join(ws, 'ds.json')), undefined);
    assert.match(reader.refusal?.(path.join(ws, 'ds.json')) ?? '', /outside the workspace/);
    const trusted = nodeFileReader(ws);
    assert.ok(trusted.read(path.join(ws, 'ds.json')));
    const m = resolveModelSync(path.join(outside, 'model'), { cwd: ws, env, roots: [ws] });
    assert.ok(!m.ok && /outside the workspace/.test(m.message), m.ok ? 'resolved' : m.message);
    assert.ok(resolveModelSync(path.join(outside, 'model'), { cwd: ws, env }).ok);
  });
});

describe('security: Markdown and terminal escapes', () => {
  it('mdCode: a fence longer than any backtick run inside, so a key cannot break out of its code span', () => {
    assert.equal(mdCode('a`b'), '``a`b``');
    assert.equal(mdCode('``x'), '``` ``x ```');
    assert.equal(mdCode('plain'), '`plain`');
  });

  it('mdText: links, images, HTML and bare addresses render as text', () => {
    assert.equal(mdText('[click](http://evil.example)'), '\\[click\\](`http://evil.example`)');
    assert.equal(mdText('![x](y) <img src=x> **b**'), '\\!\\[x\\](y) \\<img src=x\\> \\*\\*b\\*\\*');
    assert.equal(mdText('seq_len stays, _emph_ does not'), 'seq_len stays, \\_emph\\_ does not');
  });

  it("messageMarkdown: the template's words and bare values as escaped text, quoted values in long enough fences", () => {
    const md = messageMarkdown('', {
      text: 'unknown key `{0}` (did you mean `{1}`?)',
      args: ['a`](http://x)', 'lora_r'],
    });
    assert.equal(md, 'unknown key ``a`](http://x)`` (did you mean `lora_r`?)');
    assert.equal(
      messageMarkdown('', { text: 'the model ({0}) is not known', args: ['[x](http://evil)'] }),
      'the model (\\[x\\](`http://evil`)) is not known',
    );
  });

  it('a hover over a key written with backticks and a link shows them as code', () => {
    const text = 'model: "[x](https://evil.example/a.png)"\n"`](https://evil.example)": 1\nmicro_batch_size: 2\n';
    const file = '/w/s.vram.yaml';
    const a = analyzeDocument(
      { file, text },
      { gpu: '', headroomPercent: 5 },
      { reader: { read: () => undefined, join: (_f, r) => r }, resolver: catalogResolver },
    );
    const md = hoverAt(a, text.indexOf('micro_batch_size'), text) ?? '';
    // The key that starts with a backtick is inside a longer fence, so its `](...)` cannot close a link.
    assert.match(md, /No estimate yet: unknown key `` `\]\(https:\/\/evil\.example\) ``$/);
  });

  it('the CLI strips terminal escapes (screen clear, window title, hyperlinks) from what it prints', async () => {
    const dir = tmp();
    fs.writeFileSync(
      path.join(dir, 'e.vram.yaml'),
      'model: "x\\u001b[2J\\u001b]0;title\\u0007\\u001b]8;;http://evil\\u0007y\\u202e"\n',
    );
    const r = await cli(dir, 'estimate', 'e.vram.yaml');
    assert.equal(r.code, 2);
    assert.doesNotMatch(r.out, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    // A name with a slash that is no Hub id is a model path that is not here: said with the escapes stripped.
    assert.match(r.out, /model path 'x\[2J\]0;title\]8;;http:\/\/evily' does not exist/);
  });
});

describe('security: numbers out of range', () => {
  it('hidden_size 1e308, micro_batch_size 1e15 and an infinite dropout: located messages in our words', async () => {
    const dir = tmp();
    fs.writeFileSync(
      path.join(dir, 'big.vram.yaml'),
      'architecture:\n' +
        '  model_type: llama\n' +
        '  hidden_size: 1e308\n' +
        '  num_hidden_layers: 2\n' +
        '  num_attention_heads: 2\n' +
        '  vocab_size: 100\n' +
        '  intermediate_size: 64\n' +
        'micro_batch_size: 1e15\n' +
        'lora: {r: 8, dropout: .inf}\n',
    );
    const r = await cli(dir, 'estimate', 'big.vram.yaml');
    assert.equal(r.code, 2);
    assert.match(
      r.out,
      /big\.vram\.yaml:3:16: error \[architecture\.hidden_size\]: `architecture\.hidden_size` must be at most 1,048,576 \(found 1e308\)/,
    );
    assert.match(
      r.out,
      /big\.vram\.yaml:8:19: error \[micro_batch_size\]: `micro_batch_size` must be at most 65,536 \(found 1e15\)/,
    );
    assert.match(r.out, /`lora\.dropout` must be a finite number \(found \.inf\)/);
    assert.doesNotMatch(r.out, /Too big|Too small|expected number|Invalid input/);
  });
});

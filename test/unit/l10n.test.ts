// Localisation: every runtime string of the host (vscode.l10n.t / t in features) and of the panel has a Simplified
// Chinese entry in l10n/bundle.l10n.zh-cn.json, and every package.nls.json key is in package.nls.zh-cn.json.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { analyzeDocument } from '../../src/features/analysis';
import { computeFindings } from '../../src/features/findings';
import { catalogResolver } from '../../src/analyzers/resolve';
import { PANEL_STRINGS } from '../../webview-ui/src/strings';

const repo = path.resolve(__dirname, '..', '..', '..');
const read = (p: string): string => fs.readFileSync(path.join(repo, p), 'utf8');

/** The TypeScript sources of a folder and its subfolders (analyzers and features keep one folder per format or feature). */
function sources(dir: string): string[] {
  return fs
    .readdirSync(path.join(repo, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => read(path.join(dir, f)));
}

/** The value of a string literal or of a `+` chain of string literals (a long message split over lines), else undefined. */
function constantText(node: ts.Node): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isParenthesizedExpression(node)) return constantText(node.expression);
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const left = constantText(node.left);
    const right = constantText(node.right);
    return left !== undefined && right !== undefined ? left + right : undefined;
  }
  return undefined;
}

/** The constant first arguments of calls to the named functions (`t` and `l10n.t`, `msg`, `about`) in a source text. */
function keysOf(source: string, callees: readonly string[]): string[] {
  const keys: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.arguments.length > 0) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee)
        ? callee.text
        : ts.isPropertyAccessExpression(callee)
          ? callee.name.text
          : undefined;
      const key = name !== undefined && callees.includes(name) ? constantText(node.arguments[0]) : undefined;
      if (key !== undefined) keys.push(key);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile('source.ts', source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS));
  return keys;
}

describe('l10n (zh-cn)', () => {
  const bundle = JSON.parse(read('l10n/bundle.l10n.zh-cn.json')) as Record<string, string>;
  it('every host string has a translation', () => {
    const missing: string[] = [];
    for (const text of [...sources('src/vscode'), ...sources('src/features')]) {
      for (const s of keysOf(text, ['t'])) if (!(s in bundle)) missing.push(s);
    }
    assert.deepEqual(missing, []);
  });
  it('every panel string has a translation', () => {
    assert.deepEqual(
      PANEL_STRINGS.filter((s) => !(s in bundle)),
      [],
    );
  });
  it('every analyzer message template has a translation that keeps its placeholders and code spans', () => {
    // Analyzer problems carry `template` from msg('...', args) or about('...', args) (src/analyzers/facts.ts).
    const templates = new Set<string>();
    for (const text of sources('src/analyzers')) for (const s of keysOf(text, ['msg', 'about'])) templates.add(s);
    assert.ok(templates.size > 50, `found only ${templates.size} templates`);
    assert.deepEqual(
      [...templates].filter((s) => !(s in bundle)),
      [],
    );
    const marks = (s: string): string[] => [...s.matchAll(/\{\d+\}|`[^`]*`/g)].map((m) => m[0]).sort();
    assert.deepEqual(
      [...templates].filter((s) => JSON.stringify(marks(s)) !== JSON.stringify(marks(bundle[s]))),
      [],
    );
  });
  it('a DeepSpeed problem renders in Chinese through computeFindings', () => {
    const zh = (message: string, ...args: Array<string | number>): string =>
      (bundle[message] ?? message).replace(/\{(\d+)\}/g, (_, i: string) => String(args[Number(i)]));
    const text =
      '{\n  "train_micro_batch_size_per_gpu": 4,\n  "bf16": {"enabled": true},\n  "fp16": {"enabled": true}\n}\n';
    const reader = {
      read: (): string | undefined => undefined,
      join: (from: string, rel: string) => path.join(path.dirname(from), rel),
    };
    const a = analyzeDocument(
      { file: '/w/ds_config.json', text },
      { gpu: 'A100-40GB', headroomPercent: 5 },
      { reader, resolver: catalogResolver },
    );
    const en = a.findings.find((f) => f.code === 'conflicting-precision');
    assert.ok(en, JSON.stringify(a.findings));
    assert.match(en.message, /^bf16 and fp16 are both enabled/);
    const f = computeFindings(a, text, undefined, zh).find((x) => x.code === 'conflicting-precision');
    assert.ok(f);
    assert.equal(
      f.message,
      'bf16 和 fp16 同时启用：DeepSpeed 会报错退出（"bfloat16 and fp16 modes cannot be simultaneously enabled"）',
    );
    assert.match(f.message, /[\u4e00-\u9fff]/);
    // A template with arguments is filled after translation.
    const stage = computeFindings(
      analyzeDocument(
        { file: '/w/ds.json', text: '{\n  "zero_optimization": {"stage": 1, "offload_param": {"device": "cpu"}}\n}\n' },
        { gpu: 'A100-40GB', headroomPercent: 5 },
        { reader, resolver: catalogResolver },
      ),
      '',
      undefined,
      zh,
    ).find((x) => x.code === 'offload-needs-zero');
    assert.ok(stage);
    assert.match(stage.message, /^offload_param 需要 ZeRO stage 3（当前 stage 为 1）/);
  });
  it('package.nls.zh-cn.json covers package.nls.json', () => {
    const en = JSON.parse(read('package.nls.json')) as Record<string, string>;
    const zh = JSON.parse(read('package.nls.zh-cn.json')) as Record<string, string>;
    assert.deepEqual(
      Object.keys(en).filter((k) => !(k in zh)),
      [],
    );
  });
});

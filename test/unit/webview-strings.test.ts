// The panel's strings and webview rules: every UI string has a Simplified Chinese translation; the front end
// never writes HTML from strings and the stylesheet takes every colour from the theme.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PANEL_STRINGS, S, setStrings, tr } from '../../webview-ui/src/strings';

const root = path.resolve(__dirname, '..', '..', '..');
const placeholders = (s: string): string[] => (s.match(/\{\d+\}/g) ?? []).sort();

describe('webview strings and rules', () => {
  const zh = JSON.parse(fs.readFileSync(path.join(root, 'l10n', 'panel.zh-cn.json'), 'utf8')) as Record<string, string>;

  it('translates every strings.ts entry into Simplified Chinese, with the same placeholders', () => {
    const missing = PANEL_STRINGS.filter((s) => typeof zh[s] !== 'string' || zh[s].trim() === '');
    assert.deepEqual(missing, []);
    for (const s of PANEL_STRINGS) assert.deepEqual(placeholders(zh[s]), placeholders(s), s);
    const stale = Object.keys(zh).filter((k) => !PANEL_STRINGS.includes(k));
    assert.deepEqual(stale, [], 'l10n/panel.zh-cn.json has no entries strings.ts lost');
  });

  it('looks strings up by their English text and fills placeholders', () => {
    setStrings({});
    assert.equal(tr('saves', '1.0 GiB', '70.0 GiB'), 'saves 1.0 GiB per GPU → 70.0 GiB');
    setStrings(zh);
    assert.equal(tr('apply'), '应用');
    assert.equal(tr('needsGpus', 16), '需要 16 块 GPU');
    setStrings({});
    assert.equal(tr('apply'), S.apply);
  });

  const sources = (): Array<[string, string]> => {
    const dir = path.join(root, 'webview-ui', 'src');
    return fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]);
  };

  it('never builds DOM from HTML strings (innerHTML, outerHTML, insertAdjacentHTML, document.write)', () => {
    const files = sources();
    assert.ok(files.some(([f]) => f === 'render.ts'));
    const bad = files
      .filter(([, text]) =>
        /\.(innerHTML|outerHTML)\b|insertAdjacentHTML|document\.write|DOMParser|createContextualFragment/.test(text),
      )
      .map(([f]) => f);
    assert.deepEqual(bad, []);
  });

  it('sets no inline style attributes and evaluates no strings (the CSP forbids both)', () => {
    const bad = sources()
      .filter(([, text]) => /setAttribute\(\s*['"]style['"]|\beval\(|new Function\(|style=\\?["']/.test(text))
      .map(([f]) => f);
    assert.deepEqual(bad, []);
  });

  it('posts only through the typed helper and answers every host message type', () => {
    const files = Object.fromEntries(sources());
    const direct = Object.entries(files)
      .filter(([f, t]) => f !== 'vscode-api.ts' && /\.postMessage\(/.test(t) && !/window\.postMessage/.test(t))
      .map(([f]) => f);
    assert.deepEqual(direct, []);
    assert.match(files['main.ts'], /assertNever\(msg\)/);
    assert.match(files['main.ts'], /post\(\{ type: 'ready' \}\)/);
  });

  it('takes colours only from --vscode-* variables', () => {
    const css = fs.readFileSync(path.join(root, 'webview-ui', 'styles.css'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    assert.doesNotMatch(css, /#[0-9a-fA-F]{3,8}\b|\brgba?\(|\bhsla?\(/);
    const named = css.match(
      /(?:color|background|fill|stroke|border[a-z-]*)\s*:\s*(red|green|blue|black|white|gray|grey|yellow|orange|purple)\b/g,
    );
    assert.equal(named, null);
    for (const v of css.match(/var\(--[a-z0-9-]+/gi) ?? []) {
      assert.ok(/^var\(--(vscode-|gap|radius|fits|near|oom|good|warn|bad|seg-)/.test(v), v);
    }
  });
});

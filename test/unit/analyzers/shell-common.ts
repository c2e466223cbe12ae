// What the tests of the shell readers share: analyze a launch script and check its facts, each at the text its key
// and value spans point at.
import * as assert from 'node:assert/strict';
import { analyzeShell } from '../../../src/analyzers/shell';
import { isUnknown, type CanonicalKey, type ConfigFacts, type FactValue } from '../../../src/analyzers/facts';

/** [canonical key, value ('?' = unknown), key text as written, value text as written]. */
export type Want = [CanonicalKey, FactValue | '?', string, string];

/** Analyzes `text` and checks each wanted fact (the last of its key at that key text); returns the analysis. */
export function checkFacts(text: string, want: readonly Want[]): ConfigFacts {
  const r = analyzeShell(text);
  const list = r.facts
    .map((f) => `${f.key}=${JSON.stringify(f.value)} [${text.slice(f.keySpan.start, f.keySpan.end)}]`)
    .join('; ');
  for (const [key, value, keyText, valueText] of want) {
    const found = r.facts.filter((f) => f.key === key && text.slice(f.keySpan.start, f.keySpan.end) === keyText);
    assert.ok(found.length > 0, `no ${key} fact at '${keyText}'; facts: ${list}`);
    const f = found[found.length - 1];
    if (value === '?') assert.ok(isUnknown(f.value), `${key} should be unknown, got ${JSON.stringify(f.value)}`);
    else assert.deepEqual(f.value, value, `${key} at '${keyText}'`);
    assert.equal(text.slice(f.valueSpan.start, f.valueSpan.end), valueText, `${key} value span`);
  }
  return r;
}

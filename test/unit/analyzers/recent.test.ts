// The bounded list of recent results (src/analyzers/recent.ts) that keeps a helper module's reading and a script's
// settled reading between keystrokes: a result is made once per text and key, an edited text or another key makes a
// new one, and the least recently used is dropped past the list's size.
import * as assert from 'node:assert/strict';
import { RecentResults } from '../../../src/analyzers/recent';

describe('recent results by text and key', () => {
  it('makes a result once per text and key, again for an edited text or another key', () => {
    const recent = new RecentResults<string>(4);
    let made = 0;
    const read = (text: string, key: string): string => recent.get(text, key, () => `${key}:${text}:${++made}`);
    assert.equal(read('a = 1', 'm.py'), 'm.py:a = 1:1');
    assert.equal(read('a = 1', 'm.py'), 'm.py:a = 1:1');
    assert.equal(read('a = 2', 'm.py'), 'm.py:a = 2:2');
    assert.equal(read('a = 1', 'n.py'), 'n.py:a = 1:3');
    assert.equal(made, 3);
  });

  it('drops the least recently used past its size', () => {
    const recent = new RecentResults<number>(2);
    let made = 0;
    const read = (text: string): number => recent.get(text, '', () => ++made);
    read('x');
    read('y');
    read('x'); // x is now the most recent, y the least
    read('z'); // drops y
    assert.equal(read('x'), 1);
    assert.equal(read('y'), 4, 'y was dropped and is made again');
    assert.equal(made, 4);
  });
});

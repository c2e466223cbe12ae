// The short form of a value a message quotes (src/analyzers/hf-python/syntax.ts clip): every run of blanks that holds a
// line break becomes one space, other blanks stay, and past n characters the text ends in an ellipsis. It reads one
// pass up to n characters: `s.replace(/\s*\n\s*/g, ' ')` backtracked over long runs of blanks, and a fuzzed script
// whose values are thousands of characters long took about 2 s to read (fuzz seed 12, input 1921).
import * as assert from 'node:assert/strict';
import { clip } from '../../../src/analyzers/hf-python/syntax';

describe('hf-python: clipped values in messages', () => {
  it('line breaks with the blanks around them are one space; other blanks stay', () => {
    assert.equal(clip('f(a,\n    b)'), 'f(a, b)');
    assert.equal(clip('x  =  1'), 'x  =  1');
    assert.equal(clip('\n  a \n\n b\t\n'), ' a b ');
    assert.equal(clip('a\r\nb'), 'a b');
  });

  it('past n characters: the first n - 1 and an ellipsis, whatever follows', () => {
    assert.equal(clip('abcdefghij', 5), 'abcd…');
    assert.equal(clip('abcde', 5), 'abcde');
    // A value of a hundred thousand characters is clipped the same as its start would be.
    const long = `model_name = ${' \n'.repeat(50_000)}"x"`;
    assert.equal(clip(long, 20), 'model_name = "x"');
    assert.equal(clip(`${'y'.repeat(100_000)}`, 3), 'yy…');
  });
});

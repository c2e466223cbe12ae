// olderThan reads a pinned release as `Number` reads each dot-separated field: the cases the setups pin (two or three
// fields), and the odd ones (a pre-release suffix, a missing field), whose answers are what the split-and-Number reading
// gave before it was made allocation-free.
import * as assert from 'node:assert/strict';
import { olderThan } from '../../src/core/util/version';

describe('olderThan', () => {
  it('compares major, minor and patch', () => {
    assert.equal(olderThan('4.45.2', 4, 46), true);
    assert.equal(olderThan('4.46', 4, 46), false);
    assert.equal(olderThan('4.46.0', 4, 46, 1), true);
    assert.equal(olderThan('4.57.6', 4, 49), false);
    assert.equal(olderThan('0.9', 0, 21), true);
    assert.equal(olderThan('10.2.3', 9, 0), false);
    assert.equal(olderThan('1.13', 1, 7), false);
  });
  it('unset is not older; odd fields decide nothing they cannot', () => {
    assert.equal(olderThan(undefined, 4, 46), false);
    assert.equal(olderThan('', 4, 46), false);
    // One field: the major alone decides.
    assert.equal(olderThan('3', 4, 0), true);
    assert.equal(olderThan('4', 4, 46), false);
    // A pre-release suffix reads the field as NaN: only the fields before it decide.
    assert.equal(olderThan('4.46.0.dev0', 4, 46), false);
    assert.equal(olderThan('1.0rc1', 1, 1), false);
    assert.equal(olderThan('0.9rc1', 1, 0), true);
    // An empty field reads as 0.
    assert.equal(olderThan('4..1', 4, 1), true);
  });
});

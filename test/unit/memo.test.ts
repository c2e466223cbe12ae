// The estimator's memos: memoByHash finds a result by a number equal arguments share, then by the equality that
// decides, so arguments that share a number (a collision) still get their own results, and equal ones built afresh
// get the one computed first; memoByObject remembers per object, an undefined result included.
import * as assert from 'node:assert/strict';
import { memoByHash, memoByObject } from '../../src/core/util/memo';

interface Plan {
  readonly batch: number;
  readonly seq: number;
  readonly targets: readonly string[];
}

describe('memoByHash', () => {
  it('arguments that share a hash are told apart by the equality, equal ones are computed once', () => {
    let computed = 0;
    const f = memoByHash((p: Plan) => ({ tokens: p.batch * p.seq, targets: p.targets.join(','), n: ++computed }), {
      // Only the batch goes into the number: every plan of one batch collides.
      hash: (p) => p.batch,
      same: (a, b) => a.batch === b.batch && a.seq === b.seq && a.targets.join() === b.targets.join(),
      limit: 16,
    });
    const a = f({ batch: 2, seq: 512, targets: ['q_proj'] });
    const b = f({ batch: 2, seq: 1024, targets: ['q_proj'] });
    const c = f({ batch: 2, seq: 512, targets: ['q_proj', 'v_proj'] });
    assert.deepEqual([a.tokens, b.tokens, c.tokens], [1024, 2048, 1024]);
    assert.deepEqual([a.targets, c.targets], ['q_proj', 'q_proj,v_proj']);
    assert.equal(computed, 3);
    // The same plans built afresh: the results first computed, nothing computed again.
    assert.equal(f({ batch: 2, seq: 1024, targets: ['q_proj'] }), b);
    assert.equal(f({ batch: 2, seq: 512, targets: ['q_proj', 'v_proj'] }), c);
    assert.equal(f({ batch: 2, seq: 512, targets: ['q_proj'] }), a);
    assert.equal(computed, 3);
  });

  it('keeps at most `limit` hash values per scope, and the scopes apart', () => {
    let computed = 0;
    const scopeA = {};
    const scopeB = {};
    const f = memoByHash((k: { s: object; v: number }) => ({ v: k.v, n: ++computed }), {
      hash: (k) => k.v,
      same: (x, y) => x.v === y.v,
      limit: 2,
      scope: (k) => k.s,
    });
    const first = f({ s: scopeA, v: 1 });
    // The same value in another scope is computed on its own.
    assert.notEqual(f({ s: scopeB, v: 1 }), first);
    assert.equal(computed, 2);
    // Three more values in scope A: the map, over its limit, is emptied, and value 1 is computed again.
    for (const v of [2, 3, 4]) f({ s: scopeA, v });
    assert.equal(computed, 5);
    assert.notEqual(f({ s: scopeA, v: 1 }), first);
    assert.equal(computed, 6);
  });
});

describe('memoByObject', () => {
  it('remembers an undefined result as it remembers any other', () => {
    let computed = 0;
    const f = memoByObject((o: { q?: number }) => {
      computed++;
      return o.q === undefined ? undefined : o.q * 2;
    });
    const none = {};
    const four = { q: 2 };
    assert.equal(f(none), undefined);
    assert.equal(f(none), undefined);
    assert.equal(f(four), 4);
    assert.equal(f(four), 4);
    assert.equal(computed, 2);
  });
});

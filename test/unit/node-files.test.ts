// The file reader of one analysis (src/node/files.ts nodeFileReader): what it learns of the folders it looks in. Most
// paths an analysis asks for are places a module might be and is not; a miss tells whether its folder exists, so later
// paths under an absent folder are misses without a stat, and a present folder's other files are still read.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { nodeFileReader } from '../../src/node/files';
import { tempDir } from './helpers';

describe('the file reader of one analysis: absent and present folders', () => {
  it('a path under a folder one miss showed absent is a miss; files of a present folder are still read', () => {
    const root = tempDir('vram-lens-reader-');
    fs.mkdirSync(path.join(root, 'pkg'));
    fs.writeFileSync(path.join(root, 'pkg', 'there.py'), 'X = 1\n');
    const reader = nodeFileReader(root);
    assert.equal(reader.read('dschat/utils/model/model_utils.py'), undefined);
    assert.equal(reader.read('pkg/missing.py'), undefined);
    assert.equal(reader.read('pkg/there.py'), 'X = 1\n');
    // A file made under the absent folder while this analysis runs is not seen by it (a reader serves one analysis);
    // the next analysis's reader finds it.
    fs.mkdirSync(path.join(root, 'dschat', 'utils', 'model'), { recursive: true });
    fs.writeFileSync(path.join(root, 'dschat', 'utils', 'model', 'model_utils.py'), 'Y = 2\n');
    assert.equal(reader.read('dschat/utils/model/model_utils.py'), undefined);
    assert.equal(reader.read('dschat/other.py'), undefined);
    assert.equal(nodeFileReader(root).read('dschat/utils/model/model_utils.py'), 'Y = 2\n');
  });

  it('a miss whose folder exists leaves that folder and the folders above it readable', () => {
    const root = tempDir('vram-lens-reader-');
    fs.mkdirSync(path.join(root, 'a', 'b'), { recursive: true });
    fs.writeFileSync(path.join(root, 'a', 'top.yaml'), 'k: 1\n');
    const reader = nodeFileReader(root);
    assert.equal(reader.read('a/b/c/d.yaml'), undefined);
    assert.equal(reader.read('a/top.yaml'), 'k: 1\n');
    assert.equal(reader.refusal?.('a/b/c/d.yaml'), undefined);
  });

  it('the places a relative reference may be are in the form the referencing file is given in', () => {
    // One file reached from a relative and from an absolute path is one file of the run, read once (cli.test.ts: a
    // launcher's config that its script, found from the folder above, loads as data).
    const root = tempDir('vram-lens-reader-');
    fs.mkdirSync(path.join(root, 'scripts'));
    const reader = nodeFileReader(root);
    assert.deepEqual(reader.lookup?.('scripts/run.sh', 'configs/a.yaml'), ['scripts/configs/a.yaml', 'configs/a.yaml']);
    const absolute = path.join(root, 'scripts', 'run.sh');
    assert.deepEqual(reader.lookup?.(absolute, 'configs/a.yaml'), [
      path.join(root, 'scripts', 'configs', 'a.yaml'),
      path.join(root, 'configs', 'a.yaml'),
    ]);
  });
});

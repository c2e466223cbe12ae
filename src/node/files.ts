// Reading the user's files from disk for the pipeline (host I/O shared by the CLI and the extension).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FileReader } from '../analyzers/pipeline';

/** Files named by references are read relative to the referencing file; `~` is the home directory. */
export function nodeFileReader(cwd: string): FileReader {
  return {
    read(p: string): string | undefined {
      try {
        const abs = path.resolve(cwd, p);
        return fs.statSync(abs).isFile() ? fs.readFileSync(abs, 'utf8') : undefined;
      } catch {
        return undefined;
      }
    },
    join(fromFile: string, relative: string): string {
      const r = relative.trim().replace(/^['"]|['"]$/g, '');
      if (r.startsWith('~/')) return path.join(os.homedir(), r.slice(2));
      return path.isAbsolute(r) ? r : path.join(path.dirname(fromFile), r);
    },
  };
}


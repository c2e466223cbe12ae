// A model folder a project fills with a download step rather than a training run: `huggingface-cli download
// Qwen/Qwen2.5-1.5B --local-dir autodl-tmp/qwen-1.5b` (also `hf download`, `modelscope download`, in a shell script or
// an `os.system(...)` line), or `snapshot_download(repo_id="Qwen/Qwen2.5-1.5B", local_dir="models/qwen")` (ModelScope's
// `snapshot_download("qwen/Qwen2.5-1.5B", cache_dir="models")` puts it under models/qwen/Qwen2.5-1.5B). The folder a
// training launcher names is then that Hub model (Mrkuhuo/data-warehouse-learning's download_model.py beside its
// pretrain.sh). Pure text matching; the caller reads the files.

/** A download into a folder: the Hub id, the folder, and where in the text the command or call is. */
export interface Download {
  readonly id: string;
  readonly folder: string;
  readonly index: number;
  /** How the text names the folder (`--local-dir`, `local_dir`, `cache_dir`). */
  readonly key: string;
}

const HUB_ID = /^[\w.-]+\/[\w.-]+$/;
/** The download commands' options that take a value (huggingface_hub's `download`, ModelScope's). */
const VALUED = new Set(['--local-dir', '--local_dir', '--cache-dir', '--cache_dir', '--revision', '--repo-type']);
const VALUED_MORE = new Set(['--repo_type', '--token', '--max-workers', '--max_workers', '--model', '--dataset']);
const COMMAND = /\b(?:huggingface-cli|hf|modelscope)\s+download\b([^\n'"`;|&]*)/g;
const CALL = /\bsnapshot_download\s*\(([^)]*)\)/g;

/** Every download into a folder the text writes. */
export function downloads(text: string): Download[] {
  if (!/download/.test(text)) return [];
  return [...commandDownloads(text), ...callDownloads(text)];
}

function commandDownloads(text: string): Download[] {
  const out: Download[] = [];
  for (const m of text.matchAll(COMMAND)) {
    const words = m[1].trim().split(/\s+/);
    let id: string | undefined;
    let folder: string | undefined;
    let key = '--local-dir';
    for (let i = 0; i < words.length; i++) {
      const [name, inline] = words[i].split('=', 2);
      if (name === '--local-dir' || name === '--local_dir') {
        folder = inline ?? words[i + 1];
        key = name;
      }
      // modelscope download --model qwen/Qwen2.5-1.5B --local_dir P
      if (name === '--model') id = inline ?? words[i + 1];
      if (VALUED.has(name) || VALUED_MORE.has(name)) {
        if (inline === undefined) i++;
        continue;
      }
      if (id === undefined && !name.startsWith('-') && HUB_ID.test(name)) id = name;
    }
    if (id && folder && HUB_ID.test(id)) out.push({ id, folder: unquote(folder), index: m.index, key });
  }
  return out;
}

function callDownloads(text: string): Download[] {
  const out: Download[] = [];
  for (const m of text.matchAll(CALL)) {
    const args = m[1];
    const id =
      /\b(?:repo_id|model_id)\s*=\s*["']([^"']+)["']/.exec(args)?.[1] ?? /^\s*["']([^"']+)["']/.exec(args)?.[1];
    if (!id || !HUB_ID.test(id)) continue;
    const local = /\blocal_dir\s*=\s*["']([^"']+)["']/.exec(args)?.[1];
    // ModelScope's cache_dir keeps the id's own folders under it; huggingface_hub's a cache layout (models--org--name).
    const modelscope = /modelscope/.test(text) ? /\bcache_dir\s*=\s*["']([^"']+)["']/.exec(args)?.[1] : undefined;
    if (local) out.push({ id, folder: local, index: m.index, key: 'local_dir' });
    else if (modelscope)
      out.push({ id, folder: `${modelscope.replace(/\/+$/, '')}/${id}`, index: m.index, key: 'cache_dir' });
  }
  return out;
}

const unquote = (s: string): string => s.replace(/^['"]|['"]$/g, '');

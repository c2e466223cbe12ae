// Two parameter expansions launch scripts count their GPUs with (Facico/Chinese-Vicuna finetune.sh:
// `TOT_CUDA="2,3"`, `CUDAs=(${TOT_CUDA//,/ })`, `CUDA_NUM=${#CUDAs[@]}`, then `--nproc_per_node=$CUDA_NUM`): an array's
// length, `${#NAME[@]}`, and a literal pattern replaced in a value, `${NAME//pattern/string}` (every match) or
// `${NAME/pattern/string}` (the first). Values known statically only; a glob pattern (`*`, `?`, `[`) is not read.
// Pure: bash's own rules (Parameter Expansion), no I/O.
import type { Env, Piece } from './fields';

/** The length of an array whose elements are known, or the text of a value with a literal pattern replaced. */
export function paramForm(complex: string, env: Env): string | undefined {
  const length = /^\$\{#([A-Za-z_]\w*)\[[@*]\]\}$/.exec(complex);
  if (length) {
    const v = env.get(length[1]);
    if (!v?.elements || v.elements.some((e) => unknownIn(e))) return undefined;
    return String(v.elements.length);
  }
  const replace = /^\$\{([A-Za-z_]\w*)(\/\/?)([^/*?[\]}]+)\/([^/}]*)\}$/.exec(complex);
  if (!replace) return undefined;
  const v = env.get(replace[1]);
  if (!v || v.elements || unknownIn(v.pieces)) return undefined;
  const text = v.pieces.map((p) => p.text).join('');
  const [, , how, pattern, by] = replace;
  return how === '//' ? text.split(pattern).join(by) : text.replace(pattern, () => by);
}

function unknownIn(pieces: readonly Piece[]): boolean {
  return pieces.some((p) => p.unknown !== undefined);
}

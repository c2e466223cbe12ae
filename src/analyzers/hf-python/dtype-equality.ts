// Comparisons of torch dtypes the script names (`model_dtype == torch.bfloat16`), which are not literals. Pure.
import type { Val } from './static-values';

/** torch's dtype names and their aliases (torch.half is torch.float16, torch.float torch.float32). */
const TORCH_DTYPES: Readonly<Record<string, string>> = {
  bfloat16: 'bfloat16',
  float16: 'float16',
  half: 'float16',
  float32: 'float32',
  float: 'float32',
  float64: 'float64',
  double: 'float64',
};

/**
 * `model_dtype == torch.bfloat16` with `model_dtype = torch.bfloat16` (guc1/Meaning-in-Temperatures:
 * `bf16=(model_dtype == torch.bfloat16)`): two torch dtypes compared by `==` / `!=`; undefined for anything else.
 */
export function dtypeEquality(op: string, a: Val, b: Val): boolean | undefined {
  if ((op !== '==' && op !== '!=') || a.k !== 'dotted' || b.k !== 'dotted') return undefined;
  const dtype = (v: { text: string }): string | undefined =>
    v.text.startsWith('torch.') ? TORCH_DTYPES[v.text.slice('torch.'.length)] : undefined;
  const x = dtype(a);
  const y = dtype(b);
  if (x === undefined || y === undefined) return undefined;
  return (x === y) === (op === '==');
}

// `bf16=is_bfloat16_supported(), fp16=not is_bfloat16_supported()` (Unsloth's notebooks, and scripts that ask torch):
// the run takes 16-bit mixed precision whichever GPU it meets, bf16 where the GPU computes in it and fp16 elsewhere.
// Read as on a GPU that supports bf16, an assumption said at the keyword: both AMP dtypes keep the same bytes.
// `fp16=torch.cuda.is_available()` ("use 16-bit if GPU"): True on the GPU the estimate is for, said at the keyword.
// `bf16=torch.cuda.get_device_capability()[0] == 8` (or `True if ... else False`): worked out on a GPU of compute
// capability 8.x, the Ampere and Ada cards, said at the keyword with the cards that answer otherwise.
// Pure: no I/O, no node:* and no 'vscode'.
import type { SyntaxNode } from '@lezer/common';
import type { CanonicalKey } from '../facts';
import type { Entry, PythonFile } from './file';
import { booleanTree } from './boolean-operators';
import { parsedDefaultNode } from './script-defaults';

/** The calls that answer whether the GPU computes in bf16 (Unsloth, torch.cuda, transformers.utils). */
const BF16_PREDICATES: ReadonlySet<string> = new Set([
  'is_bfloat16_supported',
  'unsloth.is_bfloat16_supported',
  'is_bf16_supported',
  'torch.cuda.is_bf16_supported',
  'cuda.is_bf16_supported',
  'is_torch_bf16_gpu_available',
  'transformers.utils.is_torch_bf16_gpu_available',
]);

/** The calls that answer whether the process sees a CUDA GPU. */
const CUDA_PREDICATES: ReadonlySet<string> = new Set(['torch.cuda.is_available', 'cuda.is_available']);

const CUDA_NOTE = 'is True on the GPU the estimate is for';

export const BF16_SUPPORT_NOTE =
  'is True on GPUs that compute in bf16 (compute capability 8.0 and later: A100, H100, RTX 30 and 40 series) and ' +
  'read as such; on a T4 or V100 the run takes fp16 mixed precision instead, which keeps the same bytes';

const CAPABILITY_NOTE =
  'is worked out on a GPU of compute capability 8.x (A100, A10, L4, RTX 30 and 40 series) and read as such; ' +
  'an H100 (9.0), a T4 (7.5) or a V100 (7.0) may answer otherwise, and the run then trains in other precision';

/** The compute capability the capability tests are worked out on (CAPABILITY_NOTE). */
const ASSUMED_CAPABILITY: readonly [number, number] = [8, 0];

/** What a GPU question answers on the GPU the estimate is for, and what it asked (bf16, a GPU, its capability). */
interface GpuAnswer {
  readonly value: boolean;
  readonly cuda: boolean;
  readonly capability?: true;
}

/**
 * True for `pred()`, false for `not pred()`, where pred asks the GPU for bf16 or whether there is a GPU (directly, or
 * through a name assigned once from such an expression); undefined for anything else.
 */
export function bf16Support(file: PythonFile, node: SyntaxNode, depth = 0): GpuAnswer | undefined {
  if (depth > 4) return undefined;
  if (node.name === 'ParenthesizedExpression' && node.firstChild?.nextSibling)
    return bf16Support(file, node.firstChild.nextSibling, depth + 1);
  // `not pred()`; `not pred() and x` is no `not` of one operand (boolean-operators.ts).
  const tree = node.name === 'UnaryExpression' ? booleanTree(node) : undefined;
  if (tree?.op === 'not' && tree.operand.op === 'leaf') {
    const inner = bf16Support(file, tree.operand.node, depth + 1);
    return inner === undefined ? undefined : { ...inner, value: !inner.value };
  }
  if (node.name === 'CallExpression') {
    const name = file.calleeName(node);
    const bare = node.getChild('ArgList')?.getChildren('VariableName').length === 0;
    if (name === undefined || !bare) return undefined;
    if (BF16_PREDICATES.has(name)) return { value: true, cuda: false };
    return CUDA_PREDICATES.has(name) ? { value: true, cuda: true } : undefined;
  }
  if (node.name === 'VariableName') {
    const value = file.bindingValue(node);
    return value ? bf16Support(file, value, depth + 1) : undefined;
  }
  // `bf16=args.bf16` of `add_argument("--bf16", default=True if torch.cuda.get_device_capability()[0] == 8 else
  // False)` (tohtana/ds_repro_2746): the option's default, which a launch line's flag outranks.
  if (node.name === 'MemberExpression') {
    const written = parsedDefaultNode(file, file.text.slice(node.from, node.to), node);
    return written ? bf16Support(file, written, depth + 1) : undefined;
  }
  if (node.name === 'ConditionalExpression') return chosenBySupport(file, node, depth);
  return node.name === 'BinaryExpression' ? capabilityTest(file, node) : undefined;
}

/** `True if pred() else False` (or the other way round): pred's answer, or its negation. */
function chosenBySupport(file: PythonFile, node: SyntaxNode, depth: number): GpuAnswer | undefined {
  const [yes, kw, test, els, no] = [
    node.firstChild,
    node.getChild('if'),
    node.getChild('if')?.nextSibling,
    node.getChild('else'),
    node.lastChild,
  ];
  if (!yes || !kw || !test || !els || !no || yes.name !== 'Boolean' || no.name !== 'Boolean') return undefined;
  const [a, b] = [file.text.slice(yes.from, yes.to), file.text.slice(no.from, no.to)];
  if (a === b) return undefined;
  const inner = bf16Support(file, test, depth + 1);
  return inner && { ...inner, value: a === 'True' ? inner.value : !inner.value };
}

/**
 * `torch.cuda.get_device_capability()[0] == 8` (`>= 8`, `> 7`, `!= 8`), or `torch.cuda.get_device_capability() >=
 * (8, 0)`: the comparison on a GPU of ASSUMED_CAPABILITY.
 */
function capabilityTest(file: PythonFile, node: SyntaxNode): GpuAnswer | undefined {
  const [left, op, right] = [node.firstChild, node.firstChild?.nextSibling, node.lastChild];
  if (!left || op?.name !== 'CompareOp' || !right || op.nextSibling?.from !== right.from) return undefined;
  const major =
    left.name === 'MemberExpression' && /^\[\s*0\s*\]$/.test(file.text.slice(left.firstChild?.to ?? 0, left.to));
  const call = major ? left.firstChild : left;
  if (call?.name !== 'CallExpression' || !/^(?:torch\.)?cuda\.get_device_capability$/.test(file.calleeName(call) ?? ''))
    return undefined;
  const written = file.text.slice(right.from, right.to).replace(/\s+/g, '');
  const m = major ? /^(\d+)$/.exec(written) : /^\((\d+),(\d+)\)$/.exec(written);
  if (!m) return undefined;
  const asked = major ? Number(m[1]) * 100 : Number(m[1]) * 100 + Number(m[2]);
  const have = major ? ASSUMED_CAPABILITY[0] * 100 : ASSUMED_CAPABILITY[0] * 100 + ASSUMED_CAPABILITY[1];
  const value = compared(file.text.slice(op.from, op.to), have, asked);
  return value === undefined ? undefined : { value, cuda: false, capability: true };
}

function compared(op: string, a: number, b: number): boolean | undefined {
  const table: Record<string, boolean> = {
    '==': a === b,
    '!=': a !== b,
    '>=': a >= b,
    '>': a > b,
    '<=': a <= b,
    '<': a < b,
  };
  return table[op];
}

/**
 * The bf16 / fp16 keyword of training arguments when its value asks the GPU for bf16: the value it takes on such a
 * GPU, a default said at the keyword (resolve reports it as an assumption). False when the value is anything else.
 */
export function bf16SupportFact(file: PythonFile, e: Entry, key: Extract<CanonicalKey, 'bf16' | 'fp16'>): boolean {
  if (!e.valueNode) return false;
  const answer = bf16Support(file, e.valueNode);
  if (answer === undefined) return false;
  const { value } = answer;
  const written = file.text.slice(e.valueSpan.start, e.valueSpan.end);
  const option = e.valueNode.name === 'MemberExpression' ? parsedDefaultNode(file, written, e.valueNode) : undefined;
  const said = option ? `${written} (its default, ${file.text.slice(option.from, option.to)},)` : written;
  const note = answer.capability ? CAPABILITY_NOTE : answer.cuda ? CUDA_NOTE : BF16_SUPPORT_NOTE;
  file.facts.push({
    key,
    rawKey: e.rawKey,
    value,
    rawValue: `${e.rawKey}=${written}`,
    keySpan: e.keySpan,
    valueSpan: e.valueSpan,
    // VRAM Lens's reading, not a default of the trainer the keyword is given to.
    tool: 'vram-lens',
    origin: 'call-default',
    defaultNote: `${said} ${note}`,
  });
  return true;
}

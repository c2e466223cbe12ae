// A launch option whose value is a slot the command leaves to fill in (yangjianxin1/Firefly's README:
// `deepspeed --num_gpus={num_gpus} train.py ...`; `--nproc_per_node [GPUS]`): said as such (the diagnostic code
// `placeholder`), not as a wrong value. Pure.
import { msg, type ParseProblem, type Span } from '../facts';
import type { Opt } from './args';

/** The warning for an option whose value is an unfilled slot, `{name}`, `<name>` or `[NAME]`; undefined otherwise. */
export function unfilledSlot(o: Opt, span: Span): ParseProblem | undefined {
  const text = o.value?.text.trim() ?? '';
  if (!/^(\{\w+\}|<[^<>\s]+>|\[\w+\])$/.test(text)) return undefined;
  return {
    code: 'placeholder',
    severity: 'warning',
    ...msg('{0} {1} is a placeholder left to fill in: its value is not known', o.rawKey, text),
    span,
    rawKey: o.rawKey,
  };
}

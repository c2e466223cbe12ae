// Schema issues in the product's words: what a setup value must be, with the value as the user wrote it, never the
// schema library's own wording ("Too small: expected number to be >0"). Used by the scenario reader and by resolve.
import type { z } from 'zod';
import { msg, type Message } from './facts';

/** One template per expected type, so that translations need no English words filled in. */
const TYPE_TEMPLATES: Readonly<Record<string, string>> = {
  number: '{0} must be a number (found {1})',
  int: '{0} must be a whole number (found {1})',
  bigint: '{0} must be a whole number (found {1})',
  string: '{0} must be text (found {1})',
  boolean: '{0} must be true or false (found {1})',
  array: '{0} must be a list (found {1})',
  object: '{0} must be a mapping (found {1})',
  record: '{0} must be a mapping (found {1})',
};

/** A value as it is shown in a message: what the user wrote when known, else a short rendering of the parsed value. */
export function shownValue(value: unknown, written?: string): string {
  if (written !== undefined && written.length > 0) return written;
  if (typeof value === 'string') return JSON.stringify(value);
  // A value worked out from the file's (torchtitan's GPU count, the product of its degrees: `1e308` x 2 x 8) may
  // overflow; it is said in words, not as JavaScript's Infinity, which the user did not write.
  if (typeof value === 'number' && !Number.isFinite(value))
    return Number.isNaN(value) ? 'a value that is not a number' : 'a number too large to hold';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  return value === undefined ? 'nothing' : 'a mapping';
}

function limit(n: unknown): string {
  return typeof n === 'bigint' || typeof n === 'number' ? n.toLocaleString('en-US') : String(n);
}

/**
 * One schema issue as a message: `where` names the key (a code span), `value` is the value found there and `written`
 * how the user wrote it, when the caller knows.
 */
export function describeSetupIssue(issue: z.core.$ZodIssue, where: string, value: unknown, written?: string): Message {
  const found = shownValue(value, written);
  switch (issue.code) {
    case 'invalid_value':
      return msg(
        '{0} must be one of {1} (found {2})',
        where,
        issue.values.map((v) => JSON.stringify(v)).join(', '),
        found,
      );
    case 'invalid_type':
      if (issue.expected === 'number' && typeof value === 'number')
        return msg('{0} must be a finite number (found {1})', where, found);
      return TYPE_TEMPLATES[issue.expected]
        ? msg(TYPE_TEMPLATES[issue.expected], where, found)
        : msg('{0} has an invalid value (found {1})', where, found);
    case 'too_small':
      return issue.inclusive === false
        ? msg('{0} must be greater than {1} (found {2})', where, limit(issue.minimum), found)
        : msg('{0} must be at least {1} (found {2})', where, limit(issue.minimum), found);
    case 'too_big':
      return issue.inclusive === false
        ? msg('{0} must be less than {1} (found {2})', where, limit(issue.maximum), found)
        : msg('{0} must be at most {1} (found {2})', where, limit(issue.maximum), found);
    case 'not_multiple_of':
      return msg('{0} must be a whole number (found {1})', where, found);
    case 'invalid_format':
      return msg('{0} is not in the expected form (found {1})', where, found);
    case 'custom':
      return msg('{0}: {1}', where, issue.message);
    default:
      return msg('{0} has an invalid value (found {1})', where, found);
  }
}

/** The value at a path of a parsed object, for messages. */
export function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = root;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[seg as string];
  }
  return v;
}

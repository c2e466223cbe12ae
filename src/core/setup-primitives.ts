// The building blocks of the setup's schemas: bounded counts and sizes, a release string, a dtype. Pure.
import { z } from 'zod';

/** A count: a positive whole number, at most `max` (every count is bounded, so products stay exact). */
export const count = (max: number) => z.number().int().positive().max(max);
export const positiveInt = count(2 ** 31 - 1);
/** A size in elements or bytes (bucket sizes, live-parameter limits). */
export const size = z.number().nonnegative().max(1e15);

/** A PyTorch or transformers release, "major.minor" or "major.minor.patch". */
export const PYTORCH_VERSION = /^\d+\.\d+(\.\d+)?$/;

export const DtypeSchema = z.enum(['fp32', 'bf16', 'fp16']);

// Term: optimizer states. Docs: docs/estimate/optimizer-states.md. Pure arithmetic; no I/O.

/** bitsandbytes blockwise 8-bit optimizers: 2048-element blocks with an fp32 absmax; tensors under 4096 elements stay 32-bit. */
export const BNB_BLOCK = 2048;
export const BNB_MIN_8BIT = 4096;
/** torchao AdamW4bit's default quantization block (torchao/optim/adam.py). */
export const TORCHAO_4BIT_BLOCK = 128;

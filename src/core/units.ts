// Byte units and formatting. Core computes in bytes; only formatBytes() turns bytes into text.
export const KiB = 1024;
export const MiB = 1024 * KiB;
export const GiB = 1024 * MiB;

/** Bytes per element of each storage dtype. */
export const DTYPE_BYTES = { fp32: 4, bf16: 2, fp16: 2, fp8: 1, int8: 1 } as const;

/** 61.3 GiB / 812 MiB / 4.0 KiB: one decimal, binary units (what nvidia-smi and PyTorch print). */
export function formatBytes(bytes: number): string {
  const sign = bytes < 0 ? '-' : '';
  const b = Math.abs(bytes);
  if (b >= GiB) return `${sign}${(b / GiB).toFixed(1)} GiB`;
  if (b >= MiB) return `${sign}${(b / MiB).toFixed(0)} MiB`;
  if (b >= KiB) return `${sign}${(b / KiB).toFixed(1)} KiB`;
  return `${sign}${Math.round(b)} B`;
}

/** 6.74B / 124M / 8.4K: a parameter count for people. */
export function formatCount(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)}B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}K`;
  return String(n);
}

// Version comparisons for the library releases a setup pins (transformers_version, torchao_version ...). Pure.

/** True when `version` ("major.minor[.patch]") is set and older than major.minor. */
export function olderThan(version: string | undefined, major: number, minor: number): boolean {
  if (!version) return false;
  const [ma, mi] = version.split('.').map(Number);
  return ma < major || (ma === major && mi < minor);
}

// Version comparisons for the library releases a setup pins (transformers_version, torchao_version ...). Pure.

/** True when `version` ("major.minor[.patch]") is set and older than major.minor[.patch]. */
export function olderThan(version: string | undefined, major: number, minor: number, patch = 0): boolean {
  if (!version) return false;
  const [ma, mi, pa = 0] = version.split('.').map(Number);
  return ma < major || (ma === major && (mi < minor || (mi === minor && pa < patch)));
}

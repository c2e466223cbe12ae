// Version comparisons for the library releases a setup pins (transformers_version, torchao_version ...). Pure.

/** True when `version` ("major.minor[.patch]") is set and older than major.minor[.patch]. */
export function olderThan(version: string | undefined, major: number, minor: number, patch = 0): boolean {
  if (!version) return false;
  const ma = field(version, 0) as number;
  const mi = field(version, 1);
  const pa = field(version, 2) ?? 0;
  return ma < major || (ma === major && mi !== undefined && (mi < minor || (mi === minor && pa < patch)));
}

/**
 * The dot-separated field `index` of a version as `Number` reads it (an empty field 0, one with other characters than
 * digits NaN, which no comparison meets), undefined when the version has fewer fields. Read in place: the estimator
 * asks this many times per estimate, and splitting the string each time was a measurable share of the advice search.
 */
function field(version: string, index: number): number | undefined {
  const n = version.length;
  let i = 0;
  for (let k = 0; k < index; k++) {
    while (i < n && version.charCodeAt(i) !== 46) i++;
    if (i >= n) return undefined;
    i++;
  }
  let value = 0;
  for (let j = i; j < n; j++) {
    const c = version.charCodeAt(j);
    if (c === 46) break;
    if (c < 48 || c > 57) {
      const end = version.indexOf('.', i);
      return Number(end < 0 ? version.slice(i) : version.slice(i, end));
    }
    value = value * 10 + (c - 48);
  }
  return value;
}

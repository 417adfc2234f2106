// Canonical JSON, as the server writes it (ledger.canonical_json): object keys sorted by their
// Unicode code points (the order of their UTF-8 bytes), no spaces, strings as JSON.stringify writes
// them (characters beyond ASCII kept as they are, not \u-escaped). A player's phone signs these bytes
// when it confirms a hand (issue 31), and the server checks the signature over its own bytes: one
// character apart and the signature does not verify.

/** Compare two strings by code point (UTF-8 byte order), not by UTF-16 unit as Array.sort does. */
function byCodePoint(a, b) {
  const x = Array.from(a, (c) => c.codePointAt(0));
  const y = Array.from(b, (c) => c.codePointAt(0));
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

/** The canonical JSON text of ``value`` (objects, arrays, strings, integers, booleans, null;
 * a key whose value is undefined is left out, as JSON.stringify does). */
export function canonicalJson(value) {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    // integers are what results hold; a float is written as both sides write short ones (0.5)
    if (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value))) throw new TypeError(`not canonical JSON: ${value}`);
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object") {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort(byCodePoint);
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`;
  }
  throw new TypeError(`not JSON: ${typeof value}`);
}

/** The canonical JSON of ``value`` as UTF-8 bytes, what is signed. */
export function canonicalBytes(value) {
  return new TextEncoder().encode(canonicalJson(value));
}

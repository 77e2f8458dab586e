/**
 * The media type of a `Content-Type` header when it is exactly one of `allowed`: case-insensitive,
 * whitespace around it tolerated, parameters allowed (`; charset=utf-8`) but a charset must be
 * UTF-8. Anything else is undefined, in particular a type that merely contains an allowed one
 * (`text/plain; x=application/json`: a web page can send that cross-origin without a CORS preflight).
 */
export function acceptedMediaType<T extends string>(header: string | undefined, allowed: readonly T[]): T | undefined {
  if (header === undefined) return undefined;
  const [type, ...params] = header.split(';');
  const mediaType = type.trim().toLowerCase();
  const match = allowed.find((a) => a === mediaType);
  if (match === undefined) return undefined;
  for (const param of params) {
    const eq = param.indexOf('=');
    const name = (eq === -1 ? param : param.slice(0, eq)).trim().toLowerCase();
    if (name !== 'charset') continue;
    const value = eq === -1 ? '' : param.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1').toLowerCase();
    if (value !== 'utf-8' && value !== 'utf8') return undefined;
  }
  return match;
}

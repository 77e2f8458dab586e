/** Classes of tool and run errors, most specific first. */
const CLASSES: ReadonlyArray<readonly [string, RegExp]> = [
  ['timeout', /time[ds]?[ -]?out|deadline exceeded|etimedout/i],
  ['rate_limit', /rate[ -]?limit|\b429\b|too many requests|quota/i],
  ['unavailable', /\b50[234]\b|unavailable|econnrefused|econnreset|connection (?:refused|reset|closed)|outage|bad gateway|is down\b/i],
  ['auth', /\b40[13]\b|unauthori[sz]ed|forbidden|permission|access denied|not allowed/i],
  ['not_found', /\b404\b|not found|no such|does not exist|unknown (?:id|order|user|item)/i],
  ['invalid_argument', /\b4(?:00|22)\b|invalid|missing (?:required )?(?:param|argument|field)|validation|bad request|unexpected (?:param|argument|keyword)|must be|expected .* got/i],
  ['server_error', /\b500\b|internal (?:server )?error|exception|traceback/i],
];

/** The class of an error text: one of the names above, or `other`. */
export function errorClassOf(text: string): string {
  for (const [name, pattern] of CLASSES) if (pattern.test(text.slice(0, 2_000))) return name;
  return 'other';
}

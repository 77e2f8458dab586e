import { PermanentError } from '../../runtime/errors/index.ts';

// ClickHouse 18.16 (Debian's package) has no query parameters, so every value that reaches its SQL
// goes through this module. The same literals are valid on current servers, so there is one path,
// tested against the real server, rather than a second untested one. DuckDB never uses this module:
// it binds values.

/** A value that can be written as a ClickHouse literal. */
export type SqlValue = string | number | bigint | boolean | null | readonly SqlValue[] | SqlFragment;

/** Already-safe SQL text: built only by {@link sql} and {@link sqlIdentifier}, never from input. */
export interface SqlFragment {
  readonly sqlText: string;
}

const fragmentBrand = new WeakSet<SqlFragment>();

function fragment(sqlText: string): SqlFragment {
  const f = Object.freeze({ sqlText });
  fragmentBrand.add(f);
  return f;
}

function isFragment(v: unknown): v is SqlFragment {
  return typeof v === 'object' && v !== null && fragmentBrand.has(v as SqlFragment);
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Replaces lone UTF-16 surrogates with U+FFFD. They have no UTF-8 form, so the HTTP body would
 * carry U+FFFD anyway; doing it here makes stored and queried strings agree.
 */
export function toWellFormed(s: string): string {
  return s.replace(LONE_SURROGATE, '\uFFFD');
}

/**
 * A ClickHouse string literal. Backslash and quote are escaped, every control character
 * (U+0000–U+001F, U+007F) becomes `\xHH`, lone surrogates become U+FFFD. Other characters pass as
 * UTF-8, which ClickHouse stores byte for byte.
 */
export function quoteString(value: string): string {
  if (typeof value !== 'string') throw new PermanentError(`quoteString expects a string, got ${typeof value}`);
  let out = "'";
  const s = toWellFormed(value);
  for (let i = 0; i < s.length; i++) {
    const ch = s.charCodeAt(i);
    if (ch === 0x5c) out += '\\\\';
    else if (ch === 0x27) out += "\\'";
    else if (ch < 0x20 || ch === 0x7f) out += '\\x' + ch.toString(16).padStart(2, '0');
    else out += s[i];
  }
  return out + "'";
}

/** A finite number literal; NaN and ±Infinity are refused (they are not data we keep). */
export function quoteNumber(value: number): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new PermanentError(`not a finite number: ${String(value)}`);
  }
  // Parenthesised so that a negative value after a minus sign cannot form a `--` comment.
  return value < 0 ? `(${String(value)})` : Object.is(value, -0) ? '0' : String(value);
}

/** An integer literal: a safe-integer number or a bigint. */
export function quoteInteger(value: number | bigint): string {
  if (typeof value === 'bigint') return value < 0n ? `(${value.toString()})` : value.toString();
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new PermanentError(`not a safe integer: ${String(value)}`);
  }
  return quoteNumber(value);
}

/** 18.16 has no Bool type; booleans are stored as UInt8. */
export function quoteBoolean(value: boolean): string {
  if (typeof value !== 'boolean') throw new PermanentError(`not a boolean: ${String(value)}`);
  return value ? '1' : '0';
}

export function quoteArray(values: readonly SqlValue[]): string {
  if (!Array.isArray(values)) throw new PermanentError('quoteArray expects an array');
  const items: readonly SqlValue[] = values;
  return `[${items.map((v) => quoteValue(v)).join(', ')}]`;
}

/** Any {@link SqlValue} as a literal; `null` is `NULL`, fragments pass through. */
export function quoteValue(value: SqlValue): string {
  if (value === null) return 'NULL';
  if (isFragment(value)) return value.sqlText;
  if (Array.isArray(value)) return quoteArray(value as readonly SqlValue[]);
  switch (typeof value) {
    case 'string':
      return quoteString(value);
    case 'number':
      return quoteNumber(value);
    case 'bigint':
      return quoteInteger(value);
    case 'boolean':
      return quoteBoolean(value);
    default:
      throw new PermanentError(`cannot quote a value of type ${typeof value}`);
  }
}

/**
 * A database, table or column name. Only plain identifiers are accepted (no quoting games): names
 * come from configuration, and anything else is a mistake or an attack.
 */
export function quoteIdentifier(name: string): string {
  if (typeof name !== 'string' || !IDENTIFIER.test(name)) {
    throw new PermanentError(`not a plain identifier (expected [A-Za-z_][A-Za-z0-9_]*): ${JSON.stringify(name)}`);
  }
  return name;
}

/** An identifier as a fragment, for use inside {@link sql}. */
export function sqlIdentifier(name: string): SqlFragment {
  return fragment(quoteIdentifier(name));
}

/**
 * Builds ClickHouse SQL: the template text is trusted, every `${value}` is quoted with
 * {@link quoteValue}. Nested `sql` results and {@link sqlIdentifier} pass through unquoted.
 */
export function sql(strings: TemplateStringsArray, ...values: SqlValue[]): SqlFragment {
  let text = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) {
    text += quoteValue(values[i] ?? null) + (strings[i + 1] ?? '');
  }
  return fragment(text);
}

/** Joins fragments with a trusted separator (e.g. ' AND '). */
export function joinSql(parts: readonly SqlFragment[], separator: string): SqlFragment {
  for (const p of parts) if (!isFragment(p)) throw new PermanentError('joinSql expects sql fragments');
  return fragment(parts.map((p) => p.sqlText).join(separator));
}

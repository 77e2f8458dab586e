/**
 * Reads the Python `repr` of a value: strings, numbers, `None`/`True`/`False`, lists, tuples,
 * dicts, and pydantic-style objects `Name(key=value, …)` (read as `{__type: "Name", key: value}`).
 * Some instrumentations write SDK objects as their repr where a message belongs
 * (opentelemetry-instrumentation-openai-agents-v2 0.1.0); nothing is evaluated, anything else
 * gives undefined.
 */
export type PyValue = string | number | boolean | null | PyValue[] | { [key: string]: PyValue };

const MAX_DEPTH = 32;

class Reader {
  i = 0;
  constructor(readonly s: string) {}

  fail(): never {
    throw new SyntaxError(`not a Python literal at ${this.i}`);
  }

  skipSpace(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i])) this.i++;
  }

  eat(ch: string): boolean {
    this.skipSpace();
    if (this.s[this.i] !== ch) return false;
    this.i++;
    return true;
  }

  value(depth: number): PyValue {
    if (depth > MAX_DEPTH) this.fail();
    this.skipSpace();
    const c = this.s[this.i];
    if (c === "'" || c === '"') return this.string();
    if (c === '[') return this.sequence(']', depth);
    if (c === '(') return this.sequence(')', depth);
    if (c === '{') return this.dict(depth);
    const num = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(this.s.slice(this.i));
    if (num) {
      this.i += num[0].length;
      return Number(num[0]);
    }
    const name = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(this.s.slice(this.i));
    if (!name) this.fail();
    this.i += name[0].length;
    if (name[0] === 'None') return null;
    if (name[0] === 'True') return true;
    if (name[0] === 'False') return false;
    if (!this.eat('(')) this.fail();
    const obj: { [key: string]: PyValue } = { __type: name[0] };
    if (this.eat(')')) return obj;
    do {
      this.skipSpace();
      const key = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.s.slice(this.i));
      if (!key) this.fail();
      this.i += key[0].length;
      if (!this.eat('=')) this.fail();
      obj[key[0]] = this.value(depth + 1);
    } while (this.eat(','));
    if (!this.eat(')')) this.fail();
    return obj;
  }

  sequence(close: string, depth: number): PyValue[] {
    this.i++;
    const out: PyValue[] = [];
    if (this.eat(close)) return out;
    do {
      if (this.eat(close)) return out; // trailing comma: `(1,)`
      out.push(this.value(depth + 1));
    } while (this.eat(','));
    if (!this.eat(close)) this.fail();
    return out;
  }

  dict(depth: number): { [key: string]: PyValue } {
    this.i++;
    const out: { [key: string]: PyValue } = {};
    if (this.eat('}')) return out;
    do {
      const key = this.value(depth + 1);
      if (typeof key !== 'string' && typeof key !== 'number') this.fail();
      if (!this.eat(':')) this.fail();
      out[String(key)] = this.value(depth + 1);
    } while (this.eat(','));
    if (!this.eat('}')) this.fail();
    return out;
  }

  string(): string {
    const quote = this.s[this.i++];
    let out = '';
    for (;;) {
      const c = this.s[this.i++];
      if (c === undefined) this.fail();
      if (c === quote) return out;
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = this.s[this.i++];
      const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0', a: '\x07', b: '\b', f: '\f', v: '\v' };
      if (e in simple) out += simple[e];
      else if (e === 'x' || e === 'u' || e === 'U') {
        const len = e === 'x' ? 2 : e === 'u' ? 4 : 8;
        const hex = this.s.slice(this.i, this.i + len);
        if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) this.fail();
        out += String.fromCodePoint(parseInt(hex, 16));
        this.i += len;
      } else this.fail();
    }
  }
}

/** The value a Python repr spells, or undefined when the text is not one (or has trailing text). */
export function parsePythonRepr(text: string): PyValue | undefined {
  const r = new Reader(text);
  try {
    const v = r.value(0);
    r.skipSpace();
    return r.i === text.length ? v : undefined;
  } catch (e) {
    if (e instanceof SyntaxError) return undefined;
    throw e;
  }
}

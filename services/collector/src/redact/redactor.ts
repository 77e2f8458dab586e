import type { DecodedLogRecord, DecodedResource, DecodedScope, DecodedSpan } from '../otlp/types.ts';
import { BUILTIN_DETECTORS } from './detectors.ts';
import { createPseudonyms, createTraceNumberings, type Numbering } from './numbering.ts';
import { triggersOf } from './prefilter.ts';
import type { CompiledRule } from './rules.ts';

export interface RedactorOptions {
  /** `detect`: count what would be replaced, change nothing; `redact`: replace. */
  mode: 'detect' | 'redact';
  rules: readonly CompiledRule[];
  /** Key of the identifiers' hashes (see createPseudonyms). */
  key: string;
  /** Called once per replaced (or, detecting, found) value. */
  onFound(rule: string): void;
  /** Traces whose numbering is kept (default 50,000). */
  maxTraces?: number;
}

/** Rewrites decoded spans and log records in place, before they are normalized and sent to the bus. */
export interface Redactor {
  span(span: DecodedSpan, project: string | undefined): void;
  logRecord(record: DecodedLogRecord, project: string | undefined): void;
  resource(resource: DecodedResource, project: string | undefined): void;
  /** The instrumentation scope's name and version: free text the sender chooses, stored with every span. */
  scope(scope: DecodedScope, project: string | undefined): void;
  /** Text outside any trace (rejection reasons answered to the client). */
  text(text: string): string;
  /**
   * A document a request stores beside units (a simulation's dialog), rewritten in place like
   * unit content: every string at any depth, numbered per `key` (one numbering per document).
   */
  document<T>(doc: T, project: string | undefined, key: string): T;
  /** A simulation id as the collector writes it in a span's `tracecheck.simulation.id`, so that the two still meet. */
  identifier(id: string, project: string | undefined): string;
}

/** Attributes that identify a session, conversation or user: their values are hashed, not numbered (see createPseudonyms). */
const IDENTIFIER_KEYS: ReadonlySet<string> = new Set([
  'session.id',
  'gen_ai.conversation.id',
  'tracecheck.conversation.id',
  'tracecheck.simulation.id',
  'user.id',
  'enduser.id',
  'langfuse.session.id',
  'langfuse.user.id',
  'traceloop.association.properties.session_id',
]);

const SIMULATION_ID = 'tracecheck.simulation.id';

/** Strings shorter than this hold nothing a detector finds ("::1" is the shortest). */
const MIN_LENGTH = 3;

interface Scope {
  numbering: Numbering;
  patterns: readonly CompiledRule[];
  attributes: ReadonlyMap<string, string>;
}

export function createRedactor(options: RedactorOptions): Redactor {
  const detect = options.mode === 'detect';
  const numberings = createTraceNumberings(options.maxTraces ?? 50_000);
  const pseudonyms = createPseudonyms(options.key);
  const byProject = new Map<string, { patterns: CompiledRule[]; attributes: Map<string, string> }>();

  function rulesOf(project: string | undefined): { patterns: CompiledRule[]; attributes: Map<string, string> } {
    const key = project ?? '';
    let rules = byProject.get(key);
    if (!rules) {
      const applying = options.rules.filter((r) => !r.projects || (project !== undefined && r.projects.has(project)));
      const attributes = new Map<string, string>();
      for (const r of applying) for (const a of r.attributes ?? []) if (!attributes.has(a)) attributes.set(a, r.name);
      rules = { patterns: applying.filter((r) => r.pattern), attributes };
      if (byProject.size < 10_000) byProject.set(key, rules);
    }
    return rules;
  }

  function scopeOf(traceId: string | undefined, project: string | undefined): Scope {
    const rules = rulesOf(project);
    const numbering = traceId === undefined ? numberings.of(`\u0001export`) : numberings.of(`${project ?? ''}\u0000${traceId}`);
    return { numbering, patterns: rules.patterns, attributes: rules.attributes };
  }

  function replaceText(text: string, numbering: Numbering, patterns: readonly CompiledRule[]): string {
    if (text.length < MIN_LENGTH) return text;
    return rewrite(text, triggersOf(text), numbering, patterns);
  }

  function rewrite(text: string, triggers: number, numbering: Numbering, patterns: readonly CompiledRule[]): string {
    let out = triggers === 0 ? text : replaceBuiltIns(text, triggers, numbering);
    for (const rule of patterns) {
      out = out.replace(rule.pattern as RegExp, (m: string) => {
        options.onFound(rule.name);
        return detect ? m : numbering.placeholder(rule.name, m);
      });
    }
    return out;
  }

  function replaceBuiltIns(text: string, triggers: number, numbering: Numbering): string {
    let out = text;
    let rewritten = false;
    for (const d of BUILTIN_DETECTORS) {
      // The triggers describe the original text: once a placeholder is in, only the detector's own test on the text as it is now.
      if (!rewritten && (triggers & d.trigger) === 0) continue;
      if (!d.mayContain(out)) continue;
      out = out.replace(d.pattern, (m: string) => {
        if (d.accept && !d.accept(m)) return m;
        options.onFound(d.kind);
        if (detect) return m;
        rewritten = true;
        return numbering.placeholder(d.kind, d.canonical ? d.canonical(m) : m);
      });
    }
    return out;
  }

  function whole(value: unknown, rule: string, numbering: Numbering): unknown {
    options.onFound(rule);
    if (detect) return value;
    return numbering.placeholder(rule, typeof value === 'string' ? value : JSON.stringify(value) ?? String(value));
  }

  function value(v: unknown, scope: Scope, numbering: Numbering): unknown {
    if (typeof v === 'string') return replaceText(v, numbering, scope.patterns);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) v[i] = value(v[i], scope, numbering);
      return v;
    }
    if (v !== null && typeof v === 'object') {
      attributes(v as Record<string, unknown>, scope);
      return v;
    }
    return v;
  }

  function attributes(attrs: Record<string, unknown>, scope: Scope): void {
    const byName = scope.attributes.size > 0;
    for (const key of Object.keys(attrs)) {
      const v = attrs[key];
      const rule = byName ? scope.attributes.get(key) : undefined;
      if (rule !== undefined) {
        attrs[key] = whole(v, rule, IDENTIFIER_KEYS.has(key) ? pseudonyms : scope.numbering);
      } else if (typeof v === 'string') {
        // Most values hold nothing to redact: that is known before the key is looked up.
        if (v.length < MIN_LENGTH) continue;
        const triggers = triggersOf(v);
        if (triggers === 0 && scope.patterns.length === 0) continue;
        attrs[key] = rewrite(v, triggers, IDENTIFIER_KEYS.has(key) ? pseudonyms : scope.numbering, scope.patterns);
      } else if (v !== null && typeof v === 'object') {
        attrs[key] = value(v, scope, IDENTIFIER_KEYS.has(key) ? pseudonyms : scope.numbering);
      }
    }
  }

  const text = (t: string, scope: Scope): string => replaceText(t, scope.numbering, scope.patterns);

  return {
    span(span, project) {
      const scope = scopeOf(span.traceId, project);
      span.name = text(span.name, scope);
      span.status.message = text(span.status.message, scope);
      attributes(span.attributes, scope);
      for (const e of span.events) {
        e.name = text(e.name, scope);
        attributes(e.attributes, scope);
      }
    },
    logRecord(record, project) {
      const scope = scopeOf(record.traceId, project);
      record.eventName = text(record.eventName, scope);
      record.body = value(record.body, scope, scope.numbering);
      attributes(record.attributes, scope);
    },
    resource(resource, project) {
      attributes(resource.attributes, scopeOf(undefined, project));
    },
    scope(s, project) {
      const scope = scopeOf(undefined, project);
      s.name = text(s.name, scope);
      s.version = text(s.version, scope);
    },
    text(t) {
      return text(t, scopeOf(undefined, undefined));
    },
    document(doc, project, key) {
      const scope = scopeOf(`\u0002${key}`, project);
      return value(doc, scope, scope.numbering) as typeof doc;
    },
    identifier(id, project) {
      const rules = rulesOf(project);
      const rule = rules.attributes.get(SIMULATION_ID);
      if (rule !== undefined) return whole(id, rule, pseudonyms) as string;
      return replaceText(id, pseudonyms, rules.patterns);
    },
  };
}

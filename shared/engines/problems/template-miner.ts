import { maskTokens } from './mask.ts';
import { fnv1a } from './hash.ts';

/**
 * An online log-template miner of the Drain kind (He et al., "Drain: An Online Log Parsing Approach
 * with Fixed Depth Tree", ICWS 2017): a masked text goes down a fixed-depth tree (its token count,
 * then its first token) to a leaf of templates; it joins the most similar template when the share
 * of positions that agree reaches `similarity`, and the positions that differ become `<*>`;
 * otherwise it founds a template of its own. A template's id is the hash of the text that founded
 * it, so it stays the same as the template widens, and identical masked texts always land on the
 * same template whatever the order they come in.
 */
interface MinedTemplate {
  id: string;
  tokens: string[];
  count: number;
}

export interface TemplateMinerState {
  templates: MinedTemplate[];
}

export interface TemplateMinerOptions {
  /** Share of agreeing positions for a text to join a template (Drain's st); default 0.5. */
  similarity?: number;
  /** Templates kept at most; past it, a text that matches none is reported under the overflow id. */
  maxTemplates?: number;
}

const WILDCARD = '<*>';
const OVERFLOW_TEMPLATE_ID = 'overflow';

interface TemplateMatch {
  id: string;
  template: string;
}

export interface TemplateMiner {
  add(text: string): TemplateMatch;
  /** The template a text would join, without changing anything. */
  match(text: string): TemplateMatch | null;
  get(id: string): MinedTemplate | undefined;
  state(): TemplateMinerState;
}

const PLACEHOLDER = /^<[a-z*]+>$/;

function leafKey(tokens: readonly string[]): string {
  const first = tokens[0] ?? '';
  // A first token that is itself a value (a placeholder) does not split the tree.
  return `${tokens.length}\u0000${PLACEHOLDER.test(first) ? WILDCARD : first}`;
}

function similarityOf(template: readonly string[], tokens: readonly string[]): { share: number; wildcards: number } {
  let same = 0;
  let wildcards = 0;
  for (let i = 0; i < template.length; i++) {
    if (template[i] === WILDCARD) wildcards++;
    else if (template[i] === tokens[i]) same++;
  }
  return { share: template.length === 0 ? 1 : same / template.length, wildcards };
}

export function createTemplateMiner(options: TemplateMinerOptions = {}, initial?: TemplateMinerState): TemplateMiner {
  const threshold = options.similarity ?? 0.5;
  const maxTemplates = options.maxTemplates ?? 2_000;
  const leaves = new Map<string, MinedTemplate[]>();
  const byId = new Map<string, MinedTemplate>();

  function insert(template: MinedTemplate): void {
    const key = leafKey(template.tokens);
    const leaf = leaves.get(key) ?? [];
    leaf.push(template);
    leaves.set(key, leaf);
    byId.set(template.id, template);
  }
  for (const t of initial?.templates ?? []) insert({ id: t.id, tokens: [...t.tokens], count: t.count });

  function best(tokens: readonly string[]): MinedTemplate | null {
    let found: MinedTemplate | null = null;
    let bestShare = -1;
    let bestWildcards = 0;
    for (const candidate of leaves.get(leafKey(tokens)) ?? []) {
      const { share, wildcards } = similarityOf(candidate.tokens, tokens);
      // Ties go to the template with fewer wildcards, then the smaller id: the same answer in any order.
      const better = share > bestShare || (share === bestShare && (wildcards < bestWildcards || (wildcards === bestWildcards && found !== null && candidate.id < found.id)));
      if (better) {
        found = candidate;
        bestShare = share;
        bestWildcards = wildcards;
      }
    }
    return found && bestShare >= threshold ? found : null;
  }

  const render = (t: MinedTemplate): TemplateMatch => ({ id: t.id, template: t.tokens.join(' ') });

  return {
    add(text) {
      const tokens = maskTokens(text);
      const joined = best(tokens);
      if (joined) {
        joined.tokens = joined.tokens.map((t, i) => (t === tokens[i] ? t : WILDCARD));
        joined.count++;
        return render(joined);
      }
      const id = fnv1a(tokens.join(' '));
      const existing = byId.get(id);
      if (existing) {
        existing.count++;
        return render(existing);
      }
      if (byId.size >= maxTemplates) return { id: OVERFLOW_TEMPLATE_ID, template: tokens.join(' ') };
      const created: MinedTemplate = { id, tokens: [...tokens], count: 1 };
      insert(created);
      return render(created);
    },
    match(text) {
      const found = best(maskTokens(text));
      return found ? render(found) : null;
    },
    get: (id) => byId.get(id),
    state: () => ({ templates: [...byId.values()].map((t) => ({ id: t.id, tokens: [...t.tokens], count: t.count })).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)) }),
  };
}

export type PositionVerdict = 'A' | 'B' | 'tie';

const VERDICT = /\[\[\s*(a|b|c|tie)\s*\]\]/gi;

/**
 * The judge's `[[A]]`, `[[B]]` or `[[tie]]` (any case, inner spaces allowed), ignoring anything in
 * the `((explanation))`. `[[C]]`, the pairwise reference's third answer, is its None: a tie in the
 * shares, never dropped. No verdict, or two different ones, is null: an error, never a guess.
 */
export function parsePairwiseVerdict(text: string): PositionVerdict | null {
  const withoutExplanation = text.replace(/\(\([\s\S]*?\)\)/g, ' ');
  const found = new Set<PositionVerdict>();
  for (const m of withoutExplanation.matchAll(VERDICT)) {
    const v = m[1].toLowerCase();
    found.add(v === 'a' ? 'A' : v === 'b' ? 'B' : 'tie');
  }
  return found.size === 1 ? [...found][0] : null;
}

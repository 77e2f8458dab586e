import type { ComparisonResult } from './comparison.ts';

function formatPercent(x: number): string {
  return Number.isNaN(x) ? 'n/a' : `${(x * 100).toFixed(2)}%`;
}

/** Small p-values as `3.8e-6 (0.00038%)`, larger ones to four decimals. */
export function formatPValue(p: number): string {
  if (p >= 0.001) return p.toFixed(4);
  return `${p.toExponential(1).replace(/e-0*/, 'e-')} (${Number((p * 100).toPrecision(2)).toString()}%)`;
}

export function renderComparisonText(r: ComparisonResult): string {
  const s = r.stats;
  const lines = [
    `pairwise preference: a = ${r.labelA}, b = ${r.labelB}`,
    `  ${r.items.length} inputs, ${s.total} verdicts, ${r.errors} unusable judge answers${r.seed === null ? '' : `, positions seeded with ${r.seed}`}${r.judgeModel ? `, judge ${r.judgeModel}` : ''}`,
    `  a preferred  ${String(s.a).padStart(5)}  ${formatPercent(s.shareA).padStart(7)}   95% Wilson interval (ties excluded): ${formatPercent(s.intervalA.lower)} – ${formatPercent(s.intervalA.upper)}`,
    `  b preferred  ${String(s.b).padStart(5)}  ${formatPercent(s.shareB).padStart(7)}   95% Wilson interval (ties excluded): ${formatPercent(s.intervalB.lower)} – ${formatPercent(s.intervalB.upper)}`,
    `  tie (None)   ${String(s.ties).padStart(5)}  ${formatPercent(s.shareTie).padStart(7)}`,
    `  exact two-sided binomial test, ties excluded: p = ${formatPValue(s.pValue)}`,
  ];
  if (r.positionBias) {
    const b = r.positionBias;
    lines.push(
      `  position bias: the first position won ${b.firstWon} of ${b.decided} decided (${formatPercent(b.interval.proportion)}, 95% interval ${formatPercent(b.interval.lower)} – ${formatPercent(b.interval.upper)}, p = ${formatPValue(b.pValue)})`,
    );
  }
  const verdict =
    s.pValue < 0.05 ? `${s.a > s.b ? 'a' : 'b'} is preferred (p < 0.05)` : 'no significant preference at the 5% level';
  lines.push(`  => ${verdict}`);
  return `${lines.join('\n')}\n`;
}

export function renderComparisonMarkdown(r: ComparisonResult): string {
  const s = r.stats;
  const esc = (t: string): string => t.replace(/[|\\`*_[\]<>]/g, (c) => `\\${c}`);
  return [
    `# Pairwise preference: a = ${esc(r.labelA)}, b = ${esc(r.labelB)}`,
    '',
    `${r.items.length} inputs, ${r.errors} unusable judge answers${r.seed === null ? '' : `, seed ${r.seed}`}.`,
    '',
    '| variant | count | share | 95% Wilson interval (ties excluded) |',
    '| --- | --- | --- | --- |',
    `| a | ${s.a} | ${formatPercent(s.shareA)} | ${formatPercent(s.intervalA.lower)} – ${formatPercent(s.intervalA.upper)} |`,
    `| b | ${s.b} | ${formatPercent(s.shareB)} | ${formatPercent(s.intervalB.lower)} – ${formatPercent(s.intervalB.upper)} |`,
    `| tie (None) | ${s.ties} | ${formatPercent(s.shareTie)} | |`,
    '',
    `Exact two-sided binomial test, ties excluded: p = ${formatPValue(s.pValue)}.`,
    ...(r.positionBias ? ['', `Position bias: the first position won ${r.positionBias.firstWon} of ${r.positionBias.decided} decided verdicts (${formatPercent(r.positionBias.interval.proportion)}).`] : []),
    '',
  ].join('\n');
}

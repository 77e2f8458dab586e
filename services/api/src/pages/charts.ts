import { h, type Html } from './html.ts';

// Hand-written SVG charts: a few hundred points at most (the store buckets them), axes with units,
// bands for 95% intervals, a <title> on every point for the exact figures. Colours are the
// Okabe–Ito palette, readable by colour-blind people.

export const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#999999'] as const;

const f1 = (v: number): string => (Math.round(v * 10) / 10).toString();

export interface ChartPoint {
  /** Bucket start, epoch ms. */
  t: number;
  y: number | null;
  lo?: number | null;
  hi?: number | null;
  /** The exact figures, shown on hover. */
  title?: string;
}

export interface ChartSeries {
  label: string;
  color: string;
  points: readonly ChartPoint[];
}

export interface TimeChartOptions {
  series: readonly ChartSeries[];
  from: number;
  to: number;
  bucketMs: number;
  /** The y axis: domain, tick format and what it measures. */
  yMin: number;
  yMax: number;
  yFormat: (v: number) => string;
  yLabel: string;
  width?: number;
  height?: number;
}

/** Nice round tick steps for a time axis, in ms. */
const TIME_STEPS = [60_000, 300_000, 900_000, 1_800_000, 3_600_000, 3 * 3_600_000, 6 * 3_600_000, 12 * 3_600_000, 86_400_000, 7 * 86_400_000, 30 * 86_400_000];

export function timeTicks(from: number, to: number, maxTicks = 7): number[] {
  const step = TIME_STEPS.find((s) => (to - from) / s <= maxTicks) ?? TIME_STEPS[TIME_STEPS.length - 1];
  const ticks: number[] = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) ticks.push(t);
  return ticks;
}

function timeLabel(t: number, spanMs: number): string {
  const iso = new Date(t).toISOString();
  if (spanMs > 2 * 86_400_000) return iso.slice(5, 10);
  return iso.slice(11, 16);
}

/** Runs of consecutive points that have a value: lines and bands break at empty buckets. */
function runs(points: readonly ChartPoint[]): ChartPoint[][] {
  const out: ChartPoint[][] = [];
  let cur: ChartPoint[] = [];
  for (const p of points) {
    if (p.y === null) {
      if (cur.length > 0) out.push(cur);
      cur = [];
    } else cur.push(p);
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

/** A time series chart: one line per series, its 95% band shaded, axes in UTC and the y unit. */
export function timeChart(o: TimeChartOptions): Html {
  const W = o.width ?? 880;
  const H = o.height ?? 260;
  const m = { left: 56, right: 16, top: 12, bottom: 40 };
  const iw = W - m.left - m.right;
  const ih = H - m.top - m.bottom;
  const x = (t: number): number => m.left + ((t - o.from) / (o.to - o.from)) * iw;
  const y = (v: number): number => m.top + ih - ((Math.min(Math.max(v, o.yMin), o.yMax) - o.yMin) / (o.yMax - o.yMin || 1)) * ih;
  const mid = (p: ChartPoint): number => x(p.t + o.bucketMs / 2);
  const yTicks = Array.from({ length: 5 }, (_, i) => o.yMin + ((o.yMax - o.yMin) * i) / 4);
  const xTicks = timeTicks(o.from, o.to);
  const span = o.to - o.from;

  const grid = yTicks.map(
    (v) => h`<line class="grid" x1="${m.left}" x2="${W - m.right}" y1="${f1(y(v))}" y2="${f1(y(v))}"/><text class="tick" x="${m.left - 6}" y="${f1(y(v) + 4)}" text-anchor="end">${o.yFormat(v)}</text>`,
  );
  const xAxis = xTicks.map(
    (t) => h`<line class="axis" x1="${f1(x(t))}" x2="${f1(x(t))}" y1="${m.top + ih}" y2="${m.top + ih + 4}"/><text class="tick" x="${f1(x(t))}" y="${m.top + ih + 16}" text-anchor="middle">${timeLabel(t, span)}</text>`,
  );
  const drawn = o.series.map((s) => {
    const parts = runs(s.points).map((run) => {
      const banded = run.filter((p) => p.lo !== undefined && p.lo !== null && p.hi !== undefined && p.hi !== null);
      const band =
        banded.length > 0
          ? h`<polygon class="band" fill="${s.color}" points="${[...banded.map((p) => `${f1(mid(p))},${f1(y(p.hi!))}`), ...[...banded].reverse().map((p) => `${f1(mid(p))},${f1(y(p.lo!))}`)].join(' ')}"/>`
          : null;
      const line = run.length > 1 ? h`<polyline class="line" stroke="${s.color}" points="${run.map((p) => `${f1(mid(p))},${f1(y(p.y!))}`).join(' ')}"/>` : null;
      return h`${band}${line}`;
    });
    const dots = s.points.filter((p) => p.y !== null).map((p) => h`<circle class="dot" cx="${f1(mid(p))}" cy="${f1(y(p.y!))}" r="2.5" fill="${s.color}"><title>${s.label}: ${p.title ?? o.yFormat(p.y!)}</title></circle>`);
    return h`<g>${parts}${dots}</g>`;
  });
  const empty = o.series.every((s) => s.points.every((p) => p.y === null)) ? h`<text class="empty" x="${m.left + iw / 2}" y="${m.top + ih / 2}" text-anchor="middle">no scores in this window</text>` : null;
  return h`<figure class="chart">
<svg viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="${o.yLabel} over time">
${grid}
<line class="axis" x1="${m.left}" x2="${W - m.right}" y1="${m.top + ih}" y2="${m.top + ih}"/>
<line class="axis" x1="${m.left}" x2="${m.left}" y1="${m.top}" y2="${m.top + ih}"/>
${xAxis}
<text class="label" x="${m.left + iw / 2}" y="${H - 4}" text-anchor="middle">time (UTC), bucket start</text>
<text class="label" transform="translate(12 ${m.top + ih / 2}) rotate(-90)" text-anchor="middle">${o.yLabel}</text>
${drawn}${empty}
</svg>
<figcaption class="legend">${o.series.map((s) => h`<span><svg width="14" height="10" aria-hidden="true"><rect width="14" height="10" fill="${s.color}"/></svg>${s.label}</span>`)}<span class="muted">shaded: 95% interval</span></figcaption>
</figure>`;
}

/** A small line of the last hours, 0–1 unless a domain is given; empty buckets leave gaps. */
export function sparkline(points: readonly ChartPoint[], o: { yMin?: number; yMax?: number; label: string; width?: number; height?: number }): Html {
  const W = o.width ?? 140;
  const H = o.height ?? 30;
  const n = points.length;
  const lo = o.yMin ?? 0;
  const hi = o.yMax ?? 1;
  const x = (i: number): number => 2 + ((W - 4) * (i + 0.5)) / Math.max(n, 1);
  const y = (v: number): number => 2 + (H - 4) * (1 - (Math.min(Math.max(v, lo), hi) - lo) / (hi - lo || 1));
  const indexed = points.map((p, i) => ({ ...p, i }));
  const lines = runs(indexed).map((run) =>
    run.length > 1
      ? h`<polyline class="spark" points="${(run as Array<ChartPoint & { i: number }>).map((p) => `${f1(x(p.i))},${f1(y(p.y!))}`).join(' ')}"/>`
      : h`<circle class="spark-dot" cx="${f1(x((run[0] as ChartPoint & { i: number }).i))}" cy="${f1(y(run[0].y!))}" r="1.5"/>`,
  );
  const last = [...indexed].reverse().find((p) => p.y !== null);
  return h`<svg class="sparkline" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${o.label}"><title>${o.label}</title><line class="spark-base" x1="0" x2="${W}" y1="${H - 1}" y2="${H - 1}"/>${lines}${last ? h`<circle class="spark-last" cx="${f1(x(last.i))}" cy="${f1(y(last.y!))}" r="2.5"/>` : null}</svg>`;
}

export interface IntervalRow {
  label: string;
  value: number | null;
  ci: readonly [number | null, number | null] | null;
  color: string;
}

/** Rates with their intervals on one shared 0–100% axis (one row per rate). */
export function intervalChart(rows: readonly IntervalRow[], o: { width?: number; min?: number; max?: number; format: (v: number) => string }): Html {
  const W = o.width ?? 220;
  const rowH = 14;
  const H = rows.length * rowH + 14;
  const lo = o.min ?? 0;
  const hi = o.max ?? 1;
  const left = 16;
  const iw = W - left - 16;
  const x = (v: number): number => left + (iw * (Math.min(Math.max(v, lo), hi) - lo)) / (hi - lo || 1);
  const body = rows.map((r, i) => {
    const cy = 7 + i * rowH;
    const [a, b] = r.ci ?? [null, null];
    const whisker = a !== null && b !== null ? h`<line class="ci" stroke="${r.color}" x1="${f1(x(a))}" x2="${f1(x(b))}" y1="${cy}" y2="${cy}"/><line stroke="${r.color}" x1="${f1(x(a))}" x2="${f1(x(a))}" y1="${cy - 4}" y2="${cy + 4}"/><line stroke="${r.color}" x1="${f1(x(b))}" x2="${f1(x(b))}" y1="${cy - 4}" y2="${cy + 4}"/>` : null;
    const dot = r.value !== null ? h`<circle cx="${f1(x(r.value))}" cy="${cy}" r="3.5" fill="${r.color}"/>` : null;
    const tip = r.value === null ? 'no data' : `${o.format(r.value)}${a !== null && b !== null ? ` [${o.format(a)}–${o.format(b)}]` : ''}`;
    return h`<g><title>${r.label}: ${tip}</title><text class="tick" x="2" y="${cy + 4}">${r.label}</text>${whisker}${dot}</g>`;
  });
  const ticks = [lo, (lo + hi) / 2, hi].map((v) => h`<text class="tick small" x="${f1(x(v))}" y="${H - 1}" text-anchor="middle">${o.format(v)}</text>`);
  return h`<svg class="interval" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="rates with 95% intervals"><line class="grid" x1="${left}" x2="${left + iw}" y1="${H - 12}" y2="${H - 12}"/>${body}${ticks}</svg>`;
}

export interface Bar {
  label: string;
  count: number;
  color?: string;
}

/** A bar chart of counts (the distribution of a check's values), with a count axis. */
export function barChart(bars: readonly Bar[], o: { xLabel: string; yLabel: string; width?: number; height?: number }): Html {
  const W = o.width ?? 560;
  const H = o.height ?? 220;
  const m = { left: 56, right: 12, top: 12, bottom: 44 };
  const iw = W - m.left - m.right;
  const ih = H - m.top - m.bottom;
  const max = Math.max(1, ...bars.map((b) => b.count));
  const step = niceStep(max / 4);
  const top = Math.ceil(max / step) * step;
  const y = (v: number): number => m.top + ih - (v / top) * ih;
  const bw = iw / Math.max(bars.length, 1);
  const ticks: number[] = [];
  for (let v = 0; v <= top; v += step) ticks.push(v);
  const labelEvery = Math.ceil(bars.length / 12);
  return h`<figure class="chart">
<svg viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="${o.yLabel} by ${o.xLabel}">
${ticks.map((v) => h`<line class="grid" x1="${m.left}" x2="${W - m.right}" y1="${f1(y(v))}" y2="${f1(y(v))}"/><text class="tick" x="${m.left - 6}" y="${f1(y(v) + 4)}" text-anchor="end">${v.toLocaleString('en-US')}</text>`)}
${bars.map(
  (b, i) =>
    h`<g><title>${b.label}: ${b.count.toLocaleString('en-US')}</title><rect class="bar" fill="${b.color ?? PALETTE[0]}" x="${f1(m.left + i * bw + 2)}" y="${f1(y(b.count))}" width="${f1(Math.max(bw - 4, 1))}" height="${f1(m.top + ih - y(b.count))}"/>${i % labelEvery === 0 ? h`<text class="tick" x="${f1(m.left + (i + 0.5) * bw)}" y="${m.top + ih + 16}" text-anchor="middle">${b.label}</text>` : null}</g>`,
)}
<line class="axis" x1="${m.left}" x2="${W - m.right}" y1="${m.top + ih}" y2="${m.top + ih}"/>
<text class="label" x="${m.left + iw / 2}" y="${H - 4}" text-anchor="middle">${o.xLabel}</text>
<text class="label" transform="translate(12 ${m.top + ih / 2}) rotate(-90)" text-anchor="middle">${o.yLabel}</text>
</svg></figure>`;
}

/** 1, 2 or 5 times a power of ten, at least `raw`. */
export function niceStep(raw: number): number {
  if (!(raw > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(raw));
  const f = raw / p;
  const nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
  return Math.max(1, nice * p);
}

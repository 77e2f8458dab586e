// The planted-mode fleet of `bench:problems`: a retail support agent (`shop-assistant`, versions v1
// and v2, with a `billing-agent` it hands refunds to) whose runs are ordinary, or fail in one of five
// planted ways at fixed rates, or fail in background noise (sporadic errors of other tools). Every
// planted text is drawn from several wordings with ids, numbers and names varied, so no two failures
// of one mode need read the same. Deterministic for a seed.

import { createPrng } from '../../shared/runtime/flow/index.ts';

export type Mode = 'outage' | 'loop' | 'wrong_param' | 'refusal' | 'handoff';
export const MODES: readonly Mode[] = ['outage', 'loop', 'wrong_param', 'refusal', 'handoff'];

/** Share of runs with each mode; `wrong_param` only in v2 (v2's new `create_return` schema). */
const RATES: Readonly<Record<Mode, number>> = { outage: 0.04, loop: 0.025, wrong_param: 0.05, refusal: 0.02, handoff: 0.015 };
/** Runs failing with sporadic errors of other tools, spread over several tools and classes. */
const NOISE_RATE = 0.01;
/** v2 takes this share of the runs once it starts (a canary beside v1). */
const V2_SHARE = 0.5;

interface ToolStep {
  tool: string;
  args: Record<string, unknown>;
  /** Thrown as the tool's error when set. */
  error?: string;
  result?: unknown;
}

export interface PlannedRun {
  index: number;
  version: 'v1' | 'v2';
  /** The planted mode, `noise` for a background failure, null for an ordinary run. */
  mode: Mode | 'noise' | null;
  question: string;
  tools: ToolStep[];
  /** Hand the refund to billing-agent; `returns: false` is the planted hand-off that never comes back. */
  handoff: { returns: boolean } | null;
  answer: string;
  /** Set on the agent run's span as its error (the orchestrator gave up waiting). */
  runError?: string;
}

const NAMES = ['Yusuf Rossi', 'Mei Lin', 'Olga Novak', 'Raj Patel', 'Ana Souza', 'Tom Becker', 'Aiko Sato', 'Liam Walsh'];
const PRODUCTS = ['mechanical keyboard', 'smart thermostat', 'hiking boots', 'desk lamp', 'water bottle', 'wireless earbuds', 'office chair'];

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)];
}

function order(r: () => number): string {
  return `#W${1_000_000 + Math.floor(r() * 8_999_999)}`;
}

const OUTAGE: ReadonlyArray<(r: () => number) => string> = [
  (r) => `503 Service Unavailable: inventory-${Math.floor(r() * 9)} is not accepting requests (request id ${Math.floor(r() * 1e9).toString(16)})`,
  (r) => `connect ECONNREFUSED 10.0.${Math.floor(r() * 250)}.${Math.floor(r() * 250)}:${5000 + Math.floor(r() * 999)}`,
  (r) => `upstream inventory service unavailable after ${1 + Math.floor(r() * 4)} attempts`,
  (r) => `Bad Gateway (502) from inventory backend for sku ${Math.floor(r() * 1e6)}`,
  () => 'inventory service is down for maintenance, try again later',
];

const WRONG_PARAM: ReadonlyArray<(r: () => number, o: string) => string> = [
  (_r, o) => `invalid value for 'order_id': expected a string like '#W0000000', got ${o.slice(2)}`,
  (r) => `validation error: field 'item_ids[${Math.floor(r() * 4)}]' must be a 10-digit string`,
  () => `400 Bad Request: missing required parameter 'payment_method_id'`,
  (r) => `ValidationError: 'reason' must be one of [damaged, wrong_item, no_longer_needed], got 'refund ${Math.floor(r() * 90)}'`,
];

const REFUSALS: ReadonlyArray<(r: () => number, o: string) => string> = [
  (_r, o) => `I'm sorry, but I can't help with changing the shipping address on order ${o} after it has shipped.`,
  (r) => `I cannot assist with a refund of $${(10 + r() * 400).toFixed(2)} to a gift card that is not on your account.`,
  (_r, o) => `I must decline to cancel order ${o}: it is outside our policy.`,
  (r) => `As an AI, I cannot share the personal details of ${pick(r, NAMES)}.`,
  () => `I'm not able to help with that request, as it goes against our return policy.`,
];

const HANDOFF_ERRORS: ReadonlyArray<(r: () => number) => string> = [
  (r) => `billing-agent did not hand back within ${20 + Math.floor(r() * 40)}s`,
  (r) => `gave up waiting for billing-agent after ${3 + Math.floor(r() * 5)} polls`,
  (r) => `no reply from billing-agent for refund ${Math.floor(r() * 1e7)}`,
];

const NOISE: ReadonlyArray<(r: () => number) => ToolStep> = [
  (r) => ({ tool: 'get_order_details', args: { order_id: order(r) }, error: `order ${order(r)} not found` }),
  (r) => ({ tool: 'get_user_details', args: { user_id: `user_${Math.floor(r() * 1e4)}` }, error: `request timed out after ${1000 + Math.floor(r() * 9000)}ms` }),
  (r) => ({ tool: 'send_email', args: { to: 'customer@example.com' }, error: `429 Too Many Requests: retry after ${Math.floor(r() * 60)}s` }),
  (r) => ({ tool: 'list_products', args: { page: Math.floor(r() * 9) }, error: 'permission denied for catalog scope' }),
  (r) => ({ tool: 'calculate', args: { expression: `${Math.floor(r() * 99)} / 0` }, error: `ZeroDivisionError: division by zero in expression ${Math.floor(r() * 99)}/0` }),
];

function ordinaryTools(r: () => number, o: string): ToolStep[] {
  const user = `user_${Math.floor(r() * 1e4)}`;
  const steps: ToolStep[] = [{ tool: 'find_user_id', args: { name: pick(r, NAMES) }, result: user }];
  if (r() < 0.7) steps.push({ tool: 'get_order_details', args: { order_id: o }, result: { order_id: o, status: 'delivered' } });
  if (r() < 0.5) steps.push({ tool: 'inventory_lookup', args: { product: pick(r, PRODUCTS) }, result: { in_stock: Math.floor(r() * 40) } });
  return steps;
}

/** Which mode run `i` has: one draw against the cumulative rates (wrong_param's rate applies to v2 only). */
function modeOf(r: () => number, version: 'v1' | 'v2'): Mode | 'noise' | null {
  let x = r();
  for (const m of MODES) {
    if (m === 'wrong_param' && version !== 'v2') continue;
    if (x < RATES[m]) return m;
    x -= RATES[m];
  }
  return x < NOISE_RATE ? 'noise' : null;
}

/** Run `index` of a fleet where v2 starts at run `v2From`. */
export function planRun(seed: number, index: number, v2From: number): PlannedRun {
  const r = createPrng(seed * 1_000_003 + index);
  const version = index >= v2From && r() < V2_SHARE ? 'v2' : 'v1';
  const mode = modeOf(r, version);
  const o = order(r);
  const product = pick(r, PRODUCTS);
  const question = `Hi, I'm ${pick(r, NAMES)}. Can you help with the ${product} from order ${o}?`;
  const tools = ordinaryTools(r, o);
  const run: PlannedRun = { index, version, mode, question, tools, handoff: r() < 0.2 ? { returns: true } : null, answer: `Done: your ${product} request on order ${o} is in progress.` };
  switch (mode) {
    case 'outage': {
      // The outage hits inventory_lookup wherever the run calls it; some runs retry once, still down.
      const at = Math.min(tools.length, 1 + Math.floor(r() * 2));
      tools.splice(at, tools.length - at, { tool: 'inventory_lookup', args: { product }, error: pick(r, OUTAGE)(r) });
      if (r() < 0.3) tools.push({ tool: 'inventory_lookup', args: { product, retry: true }, error: pick(r, OUTAGE)(r) });
      run.answer = `I could not check the stock of the ${product} right now.`;
      run.handoff = null;
      break;
    }
    case 'loop': {
      // The same search again and again (3–7 times), after a varying lead-in.
      const args = { query: `${product} ${pick(r, ['blue', 'black', 'large', 'wireless', 'refurbished'])}`, limit: 5 + Math.floor(r() * 20) };
      const result = { items: [], next_page: null };
      const repeats = 3 + Math.floor(r() * 5);
      tools.splice(1 + Math.floor(r() * (tools.length - 1 + 1)));
      for (let k = 0; k < repeats; k++) tools.push({ tool: 'search_products', args, result });
      run.answer = `I searched for ${product} but found nothing yet.`;
      break;
    }
    case 'wrong_param':
      tools.push({ tool: 'create_return', args: { order_id: o.slice(2), item_ids: [Math.floor(r() * 1e6)] }, error: pick(r, WRONG_PARAM)(r, o) });
      run.answer = `The return for order ${o} could not be created.`;
      run.handoff = null;
      break;
    case 'refusal':
      run.answer = pick(r, REFUSALS)(r, o);
      run.handoff = null;
      break;
    case 'handoff':
      run.handoff = { returns: false };
      run.runError = pick(r, HANDOFF_ERRORS)(r);
      break;
    case 'noise':
      tools.splice(Math.floor(r() * tools.length), 0, pick(r, NOISE)(r));
      break;
    case null:
      break;
  }
  return run;
}

/** Spans a run exports: the agent run, one model call per tool call plus the answer, the tool calls, and the hand-off's run and model call. */
export function spansOfRun(run: PlannedRun): number {
  return 1 + 2 * run.tools.length + 1 + (run.handoff ? 2 + (run.handoff.returns ? 1 : 0) : 0);
}

import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../shared/schemas/index.ts';
import { fixtureUnits as unitsOf } from '../helpers/fixture-units.ts';
import { listFixtures } from '../integration/collector/fixture-expectations.ts';

// Every capture of a real Python library (test/fixtures/otlp/python/, scripts/fixtures/python/),
// through normalization and assembly, must be the dialog the driver had with the fake model,
// exactly: roles, texts, tool names, arguments, each result linked to its call by the call's
// `call_…` id (never a Responses item id `fc_…`), nothing twice, each tool call once in
// `unit.tool_calls` with its result, a failing tool's error flagged where a tool span says so.
// A conversation over two user turns is two traces; the second unit holds both turns.

const SYSTEM = 'You are a helpful assistant. Use the tools.';
const ANSWER = { Paris: 'The weather in Paris is sunny, 22 °C.', Berlin: 'The weather in Berlin is cloudy, 15 °C.' };
const SORRY = 'Sorry, I could not get the weather for Atlantis.';
const LOOP_END = 'Order 42 is still processing after three checks; I will stop checking now.';

interface Profile {
  /** Tool results as the framework sent them to the model. */
  results: { Paris: string; Berlin: string; order: string };
  /** The failing tool's result as sent to the model, and the error its tool span flags (null: no tool span). */
  failure: string;
  toolError: string | RegExp | null;
}

const JSON_RESULTS = { Paris: '{"city":"Paris","forecast":"sunny","temperature_c":22}', Berlin: '{"city":"Berlin","forecast":"cloudy","temperature_c":15}', order: '{"order_id":"42","status":"processing"}' };
// The OpenAI Agents SDK sends a tool's dict result as its Python repr.
const REPR_RESULTS = { Paris: "{'city': 'Paris', 'forecast': 'sunny', 'temperature_c': 22}", Berlin: "{'city': 'Berlin', 'forecast': 'cloudy', 'temperature_c': 15}", order: "{'order_id': '42', 'status': 'processing'}" };
const CLIENT: Profile = { results: JSON_RESULTS, failure: 'Error: unknown city: Atlantis', toolError: null };
const AGENTS: Profile = { results: REPR_RESULTS, failure: 'An error occurred while running the tool. Please try again.', toolError: /^(Error running tool \(non-fatal\)|\{'message': 'Error running tool \(non-fatal\)')/ };
const PYDANTIC: Profile = { results: JSON_RESULTS, failure: 'unknown city: Atlantis', toolError: 'unknown city: Atlantis' };
const STRANDS: Profile = { results: JSON_RESULTS, failure: 'Error: unknown city: Atlantis', toolError: 'unknown city: Atlantis' };

const PROFILES: Record<string, Profile> = {
  'python/openai-v2': CLIENT,
  'python/openai-v2-latest-span': CLIENT,
  'python/openai-v2-latest-event': CLIENT,
  'python/openai-v2-latest-span-and-event': CLIENT,
  'python/openinference-openai': CLIENT,
  'python/traceloop-openai': CLIENT,
  'python/openai-agents-openinference': AGENTS,
  'python/openai-agents-traceloop': AGENTS,
  'python/pydantic-ai': PYDANTIC,
  'python/pydantic-ai-v2': PYDANTIC,
  'python/pydantic-ai-latest': PYDANTIC,
  'python/strands': STRANDS,
  'python/strands-latest': STRANDS,
};

type Step = { call: string; args: string; result: string } | { user: string } | { answer: string };

function weatherTurn(p: Profile, city: 'Paris' | 'Berlin', question: string): Step[] {
  return [{ user: question }, { call: 'get_weather', args: `{"city":"${city}"}`, result: p.results[city] }, { answer: ANSWER[city] }];
}

/** The steps of each unit (one per trace) of a scenario. */
function scenario(name: string, p: Profile): Step[][] {
  const paris = weatherTurn(p, 'Paris', 'What is the weather in Paris?');
  switch (name.replace(/^responses-/, '')) {
    case 'two-turns':
      return [paris, [...paris, ...weatherTurn(p, 'Berlin', 'And in Berlin?')]];
    case 'stream':
      return [paris];
    case 'failing-tool':
      return [[{ user: 'What is the weather in Atlantis?' }, { call: 'get_weather', args: '{"city":"Atlantis"}', result: p.failure }, { answer: SORRY }]];
    case 'tool-loop': {
      const check = { call: 'check_order', args: '{"order_id":"42"}', result: p.results.order };
      return [[{ user: 'Has order 42 shipped yet?' }, check, check, check, { answer: LOOP_END }]];
    }
    default:
      throw new Error(`no expectation for scenario ${name}`);
  }
}

function expectedMessages(steps: Step[], ids: string[]): ChatMessage[] {
  const out: ChatMessage[] = [{ role: 'system', content: SYSTEM }];
  let k = 0;
  for (const s of steps) {
    if ('user' in s) out.push({ role: 'user', content: s.user });
    else if ('answer' in s) out.push({ role: 'assistant', content: s.answer });
    else {
      const id = ids[k++] ?? '<missing call>';
      out.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: s.call, arguments: s.args } }] });
      out.push({ role: 'tool', content: s.result, tool_call_id: id });
    }
  }
  return out;
}

const cases = [...new Set(listFixtures().filter((f) => PROFILES[f.family]).map((f) => `${f.family}|${f.scenario.replace(/\.logs$/, '')}`))].map((k) => k.split('|') as [string, string]);

describe('Python library captures assemble exactly', () => {
  it('covers every exact family and scenario', () => {
    expect(new Set(cases.map(([family]) => family))).toEqual(new Set(Object.keys(PROFILES)));
    expect(cases).toHaveLength(57);
  });

  for (const encoding of ['json', 'protobuf'] as const) {
    it.each(cases)(`%s %s (${encoding}): the exact dialog and tool calls`, (family, name) => {
      const profile = PROFILES[family];
      const units = unitsOf(family, name, encoding);
      const expected = scenario(name, profile);
      expect(units).toHaveLength(expected.length);
      units.forEach((unit, u) => {
        const ids = unit.message_history.flatMap((m) => m.tool_calls?.map((c) => c.id) ?? []);
        for (const id of ids) expect(id).toMatch(/^call_[0-9a-f]{24}$/);
        expect(new Set(ids).size).toBe(ids.length);
        expect(unit.message_history).toEqual(expectedMessages(expected[u], ids));
        expect(unit.model_output).toBe(unit.message_history.at(-1)?.content);
        const calls = expected[u].filter((s): s is Extract<Step, { call: string }> => 'call' in s);
        expect(unit.tool_calls.map((c) => ({ ...c, error: c.error === null ? null : 'flagged' }))).toEqual(
          calls.map((c, k) => ({ id: ids[k], name: c.call, arguments: c.args, result: c.result, error: c.args.includes('Atlantis') && profile.toolError ? 'flagged' : null })),
        );
        const failing = unit.tool_calls.find((c) => c.error !== null);
        if (failing && profile.toolError) expect(failing.error).toMatch(profile.toolError);
      });
    });
  }
});

import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../shared/contracts/schemas/index.ts';
import { assembleSession } from '../../services/assembler/src/assemble-session.ts';
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
const TRIAGE = 'You route each question to the agent that can answer it.';
const HANDOFF_RESULT = '{"assistant":"weather-agent"}';

interface Profile {
  /** Tool results as the framework sent them to the model (or, where only a tool span has them, as the span has them). */
  results: { Paris: string; Berlin: string; order: string };
  /** The failing tool's result as sent to the model, and the error its tool span flags (null: no tool span). */
  failure: string;
  toolError: string | RegExp | null;
  /** False where the library never exports the system prompt; a text where the framework adds to it. */
  system?: boolean | string;
  /** True where results come from tool spans alone: the tool message then names its tool. */
  resultNamed?: boolean;
  /** The user's message as the framework words it to the model (CrewAI wraps it in its task prompt). */
  userText?: (question: string) => string;
  /** True where each user turn is a run of its own with no conversation kept (CrewAI kickoffs). */
  standalone?: boolean;
  /** The name the framework gives the user's messages (AutoGen: the message source). */
  userName?: string;
  /** The name a later trace's re-sent history gives the earlier assistant turns (LangGraph names its agent's messages). */
  resentBy?: string;
  /** What the library's export does not hold (see docs/sending-traces.md, "Python libraries: compatibility"): the steps it loses. */
  loses?: (scenario: string, unit: number, steps: Step[]) => Step[];
}

const JSON_RESULTS = { Paris: '{"city":"Paris","forecast":"sunny","temperature_c":22}', Berlin: '{"city":"Berlin","forecast":"cloudy","temperature_c":15}', order: '{"order_id":"42","status":"processing"}' };
// The OpenAI Agents SDK sends a tool's dict result as its Python repr.
const REPR_RESULTS = { Paris: "{'city': 'Paris', 'forecast': 'sunny', 'temperature_c': 22}", Berlin: "{'city': 'Berlin', 'forecast': 'cloudy', 'temperature_c': 15}", order: "{'order_id': '42', 'status': 'processing'}" };
const CLIENT: Profile = { results: JSON_RESULTS, failure: 'Error: unknown city: Atlantis', toolError: null };
const AGENTS: Profile = { results: REPR_RESULTS, failure: 'An error occurred while running the tool. Please try again.', toolError: /^(Error running tool \(non-fatal\)|\{'message': 'Error running tool \(non-fatal\)')/ };
const PYDANTIC: Profile = { results: JSON_RESULTS, failure: 'unknown city: Atlantis', toolError: 'unknown city: Atlantis' };
const STRANDS: Profile = { results: JSON_RESULTS, failure: 'Error: unknown city: Atlantis', toolError: 'unknown city: Atlantis' };
// OpenLIT 1.45 drops an assistant turn without text from the history it records (the call turn of
// an earlier trace is then known only by its result's id) and, on the Responses API, every input
// item that is not a user message with text (calls, results, the assistant's earlier answers).
const OPENLIT: Profile = {
  ...CLIENT,
  loses: (name, unit, steps) => {
    if (name.startsWith('responses-')) {
      const kept = steps.map((s): Step => ('call' in s ? { ...s, lose: 'result' } : s));
      // The second trace re-sends only the user messages of the first turn.
      return name === 'responses-two-turns' && unit === 1 ? [kept[0], ...kept.slice(3)] : kept;
    }
    return name === 'two-turns' && unit === 1 ? steps.map((s, i): Step => (i === 1 && 'call' in s ? { ...s, lose: 'call' } : s)) : steps;
  },
};
// opentelemetry-instrumentation-openai-agents-v2 0.1.0: no system prompt (the agent's instructions
// are not recorded), Responses input items without a role dropped (so an earlier trace's calls and
// results), results from the tool spans as JSON (the model saw the SDK's repr).
const AGENTS_OTEL_V2: Profile = {
  results: JSON_RESULTS,
  failure: AGENTS.failure,
  toolError: AGENTS.toolError,
  system: false,
  resultNamed: true,
  // The handoff's result is in no span either.
  loses: (name, unit, steps) => {
    const kept = name === 'handoff' ? steps.map((s): Step => ('call' in s && s.call.startsWith('transfer_to_') ? { ...s, lose: 'result' } : s)) : steps;
    // The second trace re-sends the first turn without its calls and results.
    if (unit === 1 && name === 'two-turns') return kept.filter((_, i) => i !== 1);
    if (unit === 1 && name === 'handoff') return kept.filter((_, i) => i !== 1 && i !== 2);
    return kept;
  },
};

// LangGraph's ToolNode answers a failing tool with the error and a plea; its messages carry names.
const LANGGRAPH: Profile = {
  results: { Paris: JSON_RESULTS.Paris, Berlin: JSON_RESULTS.Berlin, order: JSON_RESULTS.order },
  failure: "Error: ValueError('unknown city: Atlantis')\n Please fix your mistakes.",
  toolError: /^ValueError\('unknown city: Atlantis'\)Traceback/,
  resultNamed: true,
  resentBy: 'weather-agent',
};

// Google ADK appends its own line to the instruction; a failing tool is answered by the driver's
// on_tool_error_callback, and ADK marks the tool span TOOL_ERROR.
const ADK: Profile = {
  results: JSON_RESULTS,
  failure: '{"error":"unknown city: Atlantis"}',
  toolError: 'TOOL_ERROR',
  system: `${SYSTEM}\n\nYou are an agent. Your internal name is "weather_agent".`,
};

// LlamaIndex's FunctionTool sends a dict result as its Python str; a failing tool answers with the error text.
const LLAMAINDEX: Profile = { results: REPR_RESULTS, failure: 'unknown city: Atlantis', toolError: 'ValueError: unknown city: Atlantis' };

// AutoGen's FunctionTool sends a dict result as its Python str, a failing tool's message as the result.
const AUTOGEN: Profile = { results: REPR_RESULTS, failure: 'unknown city: Atlantis', toolError: 'ValueError: unknown city: Atlantis', userName: 'user' };

// CrewAI: its own system prompt and task wording around the question; each kickoff stands alone.
const CREWAI: Profile = {
  results: REPR_RESULTS,
  failure: 'Error executing tool: unknown city: Atlantis',
  toolError: 'unknown city: Atlantis',
  system: "You are weather-agent. You are a helpful assistant. Use the tools.\nYour personal goal is: Answer the user's question.",
  userText: (q) => `\nCurrent Task: ${q}\n\nThis is the expected criteria for your final answer: The answer to the question.\nyou MUST return the actual complete content as the final answer, not a summary.`,
  standalone: true,
  resultNamed: true,
};

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
  'python/openlit': OPENLIT,
  'python/openai-agents-otel-v2': AGENTS_OTEL_V2,
  'python/langgraph-openinference': LANGGRAPH,
  'python/google-adk': ADK,
  'python/llamaindex-openinference': LLAMAINDEX,
  'python/autogen': AUTOGEN,
  'python/crewai': CREWAI,
};

/**
 * A tool call and its result (`lose`: what the library's export does not hold), a user turn, an
 * answer, or the system prompt of an agent that took over. `by`: the agent whose model call made
 * the turn, where a trace has several agents.
 */
type Step = { call: string; args: string; result: string; lose?: 'call' | 'result'; by?: string } | { user: string } | { answer: string; by?: string } | { system: string };

function weatherTurn(p: Profile, city: 'Paris' | 'Berlin', question: string): Step[] {
  return [{ user: question }, { call: 'get_weather', args: `{"city":"${city}"}`, result: p.results[city] }, { answer: ANSWER[city] }];
}

/** A triage agent hands the question to the weather agent, whose own system prompt starts its turns. */
function handoffTurn(p: Profile, city: 'Paris' | 'Berlin', question: string): Step[] {
  return [
    { user: question },
    { call: 'transfer_to_weather_agent', args: '{}', result: HANDOFF_RESULT, by: 'triage-agent' },
    { system: SYSTEM },
    { call: 'get_weather', args: `{"city":"${city}"}`, result: p.results[city], by: 'weather-agent' },
    { answer: ANSWER[city], by: 'weather-agent' },
  ];
}

/** The same turn as a later trace re-sends it: no agent names, no system prompt of the agent that took over. */
function asResent(steps: Step[]): Step[] {
  return steps.filter((s) => !('system' in s)).map((s) => ('by' in s ? { ...s, by: undefined } : s));
}

/** The steps of each unit (one per trace) of a scenario. */
function scenario(name: string, p: Profile): Step[][] {
  const paris = weatherTurn(p, 'Paris', 'What is the weather in Paris?');
  switch (name.replace(/^responses-/, '')) {
    case 'two-turns': {
      const resent = paris.map((s) => ('answer' in s || 'call' in s ? { ...s, by: p.resentBy } : s));
      const berlin = weatherTurn(p, 'Berlin', 'And in Berlin?');
      return [paris, p.standalone ? berlin : [...resent, ...berlin]];
    }
    case 'stream':
      return [paris];
    case 'failing-tool':
      return [[{ user: 'What is the weather in Atlantis?' }, { call: 'get_weather', args: '{"city":"Atlantis"}', result: p.failure }, { answer: SORRY }]];
    case 'tool-loop': {
      const check = { call: 'check_order', args: '{"order_id":"42"}', result: p.results.order };
      return [[{ user: 'Has order 42 shipped yet?' }, check, check, check, { answer: LOOP_END }]];
    }
    case 'handoff': {
      const first = handoffTurn(p, 'Paris', 'What is the weather in Paris?');
      return [first, [...asResent(first), ...handoffTurn(p, 'Berlin', 'And in Berlin?')]];
    }
    default:
      throw new Error(`no expectation for scenario ${name}`);
  }
}

function expectedMessages(name: string, steps: Step[], ids: string[], orphanIds: string[], p: Profile): ChatMessage[] {
  const first = typeof p.system === 'string' ? p.system : name === 'handoff' ? TRIAGE : SYSTEM;
  const out: ChatMessage[] = p.system === false ? [] : [{ role: 'system', content: first }];
  const by = (s: { by?: string }) => (s.by ? { name: s.by } : {});
  let k = 0;
  let o = 0;
  for (const s of steps) {
    if ('user' in s) out.push({ role: 'user', content: p.userText ? p.userText(s.user) : s.user, ...(p.userName ? { name: p.userName } : {}) });
    else if ('system' in s) {
      if (p.system !== false) out.push({ role: 'system', content: s.system });
    } else if ('answer' in s) out.push({ role: 'assistant', content: s.answer, ...by(s) });
    else {
      const id = (s.lose === 'call' ? orphanIds[o++] : ids[k++]) ?? '<missing call>';
      if (s.lose !== 'call') out.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: s.call, arguments: s.args } }], ...by(s) });
      if (s.lose !== 'result') out.push({ role: 'tool', content: s.result, tool_call_id: id, ...(p.resultNamed ? { name: s.call } : {}) });
    }
  }
  return out;
}

const cases = [...new Set(listFixtures().filter((f) => PROFILES[f.family]).map((f) => `${f.family}|${f.scenario.replace(/\.logs$/, '')}`))].map((k) => k.split('|') as [string, string]);

describe('Python library captures assemble exactly', () => {
  it('covers every exact family and scenario', () => {
    expect(new Set(cases.map(([family]) => family))).toEqual(new Set(Object.keys(PROFILES)));
    expect(cases).toHaveLength(90);
  });

  // Libraries that name the conversation (gen_ai.conversation.id: Google ADK, pydantic-ai) make one session
  // of the two traces: the whole dialog once, each call once.
  const conversations = cases.filter(([family, name]) => name === 'two-turns' && unitsOf(family, name, 'json')[0].conversation_id !== null);
  it('has conversations named by the library', () => {
    expect(conversations.map(([family]) => family)).toEqual(['python/google-adk', 'python/pydantic-ai', 'python/pydantic-ai-latest', 'python/pydantic-ai-v2']);
  });
  it.each(conversations)('%s %s: the session unit holds the dialog once', (family, name) => {
    const units = unitsOf(family, name, 'json');
    const session = assembleSession(null, units, units[0].conversation_id!, 0);
    expect(session.message_history).toEqual(units[1].message_history);
    expect(session.tool_calls).toEqual(units[1].tool_calls);
  });

  for (const encoding of ['json', 'protobuf'] as const) {
    it.each(cases)(`%s %s (${encoding}): the exact dialog and tool calls`, (family, name) => {
      const profile = PROFILES[family];
      const units = unitsOf(family, name, encoding);
      const expected = scenario(name, profile).map((steps, u) => profile.loses?.(name, u, steps) ?? steps);
      expect(units).toHaveLength(expected.length);
      units.forEach((unit, u) => {
        const ids = unit.message_history.flatMap((m) => m.tool_calls?.map((c) => c.id) ?? []);
        for (const id of ids) expect(id).toMatch(/^call_[0-9a-f]{24}$/);
        expect(new Set(ids).size).toBe(ids.length);
        const orphanIds = unit.message_history.flatMap((m) => (m.role === 'tool' && !ids.includes(m.tool_call_id ?? '') ? [m.tool_call_id ?? ''] : []));
        expect(unit.message_history).toEqual(expectedMessages(name, expected[u], ids, orphanIds, profile));
        expect(unit.model_output).toBe(unit.message_history.at(-1)?.content);
        const calls = expected[u].filter((s): s is Extract<Step, { call: string }> => 'call' in s && s.lose !== 'call');
        expect(unit.tool_calls.map((c) => ({ ...c, error: c.error === null ? null : 'flagged' }))).toEqual(
          calls.map((c, k) => ({
            id: ids[k],
            name: c.call,
            arguments: c.args,
            result: c.lose === 'result' ? null : c.result,
            error: c.args.includes('Atlantis') && profile.toolError ? 'flagged' : null,
          })),
        );
        const failing = unit.tool_calls.find((c) => c.error !== null);
        if (failing && profile.toolError) expect(failing.error).toMatch(profile.toolError);
      });
    });
  }
});

import { sessionFigures } from './session-figures.ts';
import type { TokenUsage, ToolDefinition, Unit, UnitToolCall } from '../../../shared/contracts/schemas/index.ts';
import { canonicalJsonText } from '../../../shared/contracts/schemas/index.ts';
import { createDialog } from './merge-history.ts';
import { mergeReceived } from './unit-received.ts';

/**
 * `session:<conversation id>` in the default project, `session:<project>:<id>` in another. The
 * conversation id is hostile text: a default-project id with a `:` in it is written
 * `session:default:<id>` (no other project can be named `default`), else `alpha:c` would take
 * project alpha's `c`. The project is percent-encoded (a no-op for the names keys allow), so the
 * first `:` after `session:` always ends it and two (project, id) pairs never share an id.
 */
export function sessionUnitId(project: string | undefined, conversationId: string): string {
  if (project === undefined || project === 'default') {
    return conversationId.includes(':') ? `session:default:${conversationId}` : `session:${conversationId}`;
  }
  return `session:${encodeURIComponent(project)}:${conversationId}`;
}

function lastDefined<T>(units: readonly Unit[], pick: (u: Unit) => T | null | undefined): T | null {
  for (let i = units.length - 1; i >= 0; i--) {
    const v = pick(units[i]);
    if (v !== null && v !== undefined) return v;
  }
  return null;
}

function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  const out: TokenUsage = { ...a };
  for (const k of ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens', 'reasoning_tokens'] as const) {
    if (a[k] !== undefined || b[k] !== undefined) out[k] = (a[k] ?? 0) + (b[k] ?? 0);
  }
  return out;
}

/**
 * One conversation as one unit: the session published before (if any, when a later trace re-opens
 * it) followed by the new traces in start order (then history length, then arrival). Each trace re-sends the history before it, so a
 * trace's dialog is appended after the longest overlap with the dialog so far: every turn once, in
 * order. The agent fields are the latest trace's (the version that answered last). Pure.
 */
export function assembleSession(previous: Unit | null, traces: readonly Unit[], conversationId: string, assembledAtMs: number): Unit {
  const known = new Set(previous?.trace_ids ?? []);
  // Turns of a fast chat can start within one millisecond: a trace that re-sends a longer history
  // came later; equal beyond that, the order they arrived in stands (the sort is stable).
  const added = [...traces]
    .filter((t) => !known.has(t.unit_id))
    .sort((a, b) => a.start_time_ms - b.start_time_ms || a.message_history.length - b.message_history.length || a.end_time_ms - b.end_time_ms);
  const all = previous ? [previous, ...added] : added;
  if (all.length === 0) throw new Error(`session ${conversationId} has no traces`);
  const dialog = createDialog();
  for (const u of all) dialog.append(u.message_history);
  const toolCalls = new Map<string, UnitToolCall>();
  const tools = new Map<string, ToolDefinition>();
  let usage: TokenUsage = { input_tokens: 0, output_tokens: 0 };
  let startMs = Infinity;
  let endMs = -Infinity;
  for (const u of all) {
    startMs = Math.min(startMs, u.start_time_ms);
    endMs = Math.max(endMs, u.end_time_ms);
    // A later trace re-sends the earlier turns, and lists their calls again: the same call (id,
    // name and arguments) is one call. Ids made from positions can repeat across traces for
    // different calls; those differ in name or arguments and stay apart.
    for (const c of u.tool_calls) {
      const key = `${c.id}\u0000${c.name}\u0000${canonicalJsonText(c.arguments)}`;
      const seen = toolCalls.get(key);
      if (!seen) toolCalls.set(key, c);
      else if ((seen.result === null && c.result !== null) || (seen.error === null && c.error !== null)) {
        toolCalls.set(key, { ...seen, result: seen.result ?? c.result, error: seen.error ?? c.error });
      }
    }
    for (const t of u.tools) if (!tools.has(t.function.name)) tools.set(t.function.name, t);
    usage = addUsage(usage, u.usage);
  }
  const last = all[all.length - 1];
  const project = lastDefined(all, (u) => u.project);
  const received = mergeReceived(all.map((u) => u.received));
  const contentRefs = all.flatMap((u) => u.content_refs ?? []).slice(0, 20);
  return {
    schema_version: 1,
    unit_id: sessionUnitId(project ?? undefined, conversationId),
    kind: 'session',
    trace_ids: all.flatMap((u) => (u.kind === 'session' ? u.trace_ids : [u.unit_id])),
    agent_name: lastDefined(all, (u) => u.agent_name),
    agent_version: lastDefined(all, (u) => u.agent_version),
    service: lastDefined(all, (u) => u.service),
    environment: lastDefined(all, (u) => u.environment),
    conversation_id: conversationId,
    model: lastDefined(all, (u) => u.model),
    model_input: last.model_input,
    model_output: lastDefined(all, (u) => u.model_output),
    message_history: dialog.messages(),
    tool_calls: [...toolCalls.values()],
    tools: [...tools.values()],
    scenario_input: all.find((u) => u.scenario_input !== null)?.scenario_input ?? null,
    scenario_result: lastDefined(all, (u) => u.scenario_result),
    simulation_id: all.find((u) => u.simulation_id !== null)?.simulation_id ?? null,
    simulation_message_history: null,
    usage,
    errors: all.flatMap((u) => u.errors),
    truncated: all.some((u) => u.truncated),
    span_count: all.reduce((n, u) => n + u.span_count, 0),
    start_time_ms: startMs,
    end_time_ms: endMs,
    assembled_at_ms: assembledAtMs,
    attributes: all[0].attributes ?? {},
    ...(all.some((u) => u.session_end === true) ? { session_end: true } : {}),
    ...(project !== null ? { project } : {}),
    ...(received ? { received } : {}),
    ...(contentRefs.length > 0 ? { content_refs: contentRefs } : {}),
    ...sessionFigures(all, toolCalls.size, startMs, endMs),
  };
}

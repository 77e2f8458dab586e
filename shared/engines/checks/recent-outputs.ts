import type { CheckInput } from './contract.ts';

/**
 * The live scorer's memory for checks that compare rows (uniqueness): the last outputs of each
 * agent and version, so a unit is compared with what the same agent said just before it. Bounded:
 * at most `perAgent` outputs per agent/version, `maxAgents` agent/versions (the least recently
 * scored is forgotten first) and `maxChars` characters kept of each output — about
 * perAgent × maxAgents × maxChars characters at worst (20 × 200 × 2,000 = 8 M by default).
 * Nothing is kept until a row-comparing check runs, and nothing survives a restart.
 */
export interface RecentOutputs {
  /** The window of `key` without the unit `id` (a later revision of a unit is not its own peer). */
  peers(key: string, id: string): CheckInput[];
  /** Adds (or, for a unit seen before, replaces) the unit's output in the window of `key`. */
  remember(key: string, id: string, output: string | null): void;
}

interface RecentOutputsOptions {
  perAgent?: number;
  maxAgents?: number;
  maxChars?: number;
}

const RECENT_OUTPUTS_DEFAULTS = { perAgent: 20, maxAgents: 200, maxChars: 2_000 } as const;

/** The window key of a unit: its project, agent name and agent version. */
export function recentOutputsKey(unit: { project?: string | null; agent_name: string | null; agent_version: string | null }): string {
  return [unit.project ?? 'default', unit.agent_name ?? '', unit.agent_version ?? ''].join('\u0000');
}

function peerInput(id: string, output: string): CheckInput {
  return {
    id,
    model_output: output,
    scenario_input: null,
    scenario_result: null,
    model_input: [],
    message_history: [],
    tool_calls: [],
    tools: [],
    simulation_message_history: null,
    audio_messages: null,
    audio_output: null,
  };
}

export function createRecentOutputs(options: RecentOutputsOptions = {}): RecentOutputs {
  const { perAgent, maxAgents, maxChars } = { ...RECENT_OUTPUTS_DEFAULTS, ...options };
  // Map order is recency of use: a key is deleted and set again on every remember.
  const windows = new Map<string, Array<{ id: string; output: string }>>();
  return {
    peers(key, id) {
      return (windows.get(key) ?? []).filter((e) => e.id !== id).map((e) => peerInput(e.id, e.output));
    },
    remember(key, id, output) {
      if (output === null || output.trim() === '') return;
      const list = (windows.get(key) ?? []).filter((e) => e.id !== id);
      list.push({ id, output: output.slice(0, maxChars) });
      if (list.length > perAgent) list.splice(0, list.length - perAgent);
      windows.delete(key);
      windows.set(key, list);
      if (windows.size > maxAgents) windows.delete(windows.keys().next().value!);
    },
  };
}

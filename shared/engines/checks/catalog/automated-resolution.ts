import { builtinEntry } from '../builtin-check.ts';
import { settled } from '../lib/judge-mode.ts';
import { clip } from '../lib/tool-results.ts';
import { passFail } from '../outcome.ts';

const ESCALATION_TOOL = /(?:transfer|handoff|hand_off|escalat|connect).*(?:human|agent|operator|representative|support|supervisor)|^(?:escalate|handoff|hand_off|human_handoff|request_human)/i;
// A hand-off is announced, not offered: "I'm transferring you to a human agent", not "Would you like
// me to transfer you…?" or "I can transfer you…" (offers in questions are common and mean nothing yet).
const HANDOFF_PHRASE =
  /\b(?:i(?:'m| am) (?:now )?(?:transferring|connecting|escalating|handing)|i(?:'ll| will| have| 've) (?:now )?(?:transfer(?:red)?|connect(?:ed)?|escalat(?:e|ed)|hand(?:ed)?)|let me (?:transfer|connect|escalate)|you(?:'re| are| will be| have been) (?:being )?(?:transferred|connected|escalated))\b[^.?!]*?\b(?:human|live|real person|agent|representative|specialist|supervisor|support team)\b/i;

function announcedHandoff(text: string): RegExpExecArray | null {
  for (const sentence of text.split(/(?<=[.!?])\s+/)) {
    if (sentence.trim().endsWith('?') || /\b(?:if you|would you like|do you want|should i|i can|i could)\b/i.test(sentence)) continue;
    const m = HANDOFF_PHRASE.exec(sentence);
    if (m) return m;
  }
  return null;
}

const RUBRIC = `# Task
Decide whether the AI agent resolved the conversation itself, without handing the user off to a human.

# Criteria
- Handing off means transferring, escalating or telling the user a human will take over.
- Mentioning that human support exists, while the agent itself resolves the request, is not a hand-off.

# Steps
1. Read the dialog, especially the agent's last turns.
2. Decide whether the agent handed the user off to a human.

# Example
Dialog: the agent says "I'll transfer you to a human agent who can help with this refund." and the conversation ends.
Answer: [[False]] ((the agent handed off to a human))

# Inputs
- Dialog: {message_history}

# Output format
Reply [[True]] if the agent resolved it without a human hand-off, [[False]] if it handed off, then ((a one-sentence explanation)).`;

/** Passes when the agent resolved the run itself: no escalation tool call, no hand-off to a human. */
export const automatedResolution = builtinEntry(
  {
    kind: 'builtin',
    name: 'automated_resolution',
    description:
      'Passes when the agent resolved the run without a human: fails on an escalation tool call (transfer_to_human_agents, escalate_*, *handoff*). Hybrid (default): that call fails in code; every other dialog goes to the judge (the rubric: did the agent hand the user off to a human?). Without a judge an announced hand-off ("I\'m transferring you to a human agent"; offers and questions do not count) fails in code.',
    outputType: 'pass_fail',
    implementationVersion: '2',
  },
  ['tool_calls', 'message_history'],
  (input) => {
    const escalations = input.tool_calls.map((c, i) => ({ c, i })).filter(({ c }) => ESCALATION_TOOL.test(c.name));
    if (escalations.length > 0) {
      const { c, i } = escalations[0];
      return settled(passFail(false, 'deterministic', `escalation tool call #${i + 1} ${c.name}(${clip(c.arguments, 60)})`));
    }
    const phrase = input.message_history
      .map((m, i) => ({ i, match: m.role === 'assistant' && m.content ? announcedHandoff(m.content) : null }))
      .find((x) => x.match !== null);
    // A hand-off in words ("Our billing team will contact you by email") has no tool call: the judge reads the dialog.
    if (!phrase) return passFail(true, 'deterministic', 'no escalation tool call and no hand-off phrase');
    return passFail(false, 'deterministic', `hand-off phrase "${clip(phrase.match![0], 60)}" in message ${phrase.i} without an escalation call`);
  },
  { judge: { template: RUBRIC, passesOn: true } },
);

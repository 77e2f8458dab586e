import type { JudgeRubricOption } from '../lib/judge-mode.ts';
import { rubricTemplate } from '../model-entry.ts';

// The documented judge definitions of the checks we also decide in code, behind `mode: judge`
// (and confirming the code's passes in `hybrid`). Each rubric's True is a pass.
const rubric = (r: Omit<Parameters<typeof rubricTemplate>[0], 'name' | 'description' | 'outputType'>): JudgeRubricOption => ({
  template: rubricTemplate({ ...r, name: '', description: '', outputType: 'pass_fail' }),
  passesOn: true,
});

export const LOOP_GUARD_RUBRIC = rubric({
  task: 'Decide whether the AI agent avoided getting stuck in a loop.',
  criteria: [
    'A loop is the agent repeating the same action or message (the same tool call with the same result, a cycle of calls, the same reply, agents handing a request back and forth) with no new information or progress.',
    'Retrying after an error that then succeeds, or asking again after the user changed something, is progress, not a loop.',
  ],
  steps: ['Read the dialog and the tool calls in order.', 'Look for repetitions with nothing new between them.', 'Answer True if there is no such loop.'],
  inputs: ['Dialog: {message_history}', 'Tool calls: {tool_calls}'],
  example: { data: 'The agent calls get_order(id=7) four times in a row and gets the same "not found" each time.', answer: '[[False]] ((the same call returns the same result four times))' },
});

export const RESPONSE_LOOP_RUBRIC = rubric({
  task: 'Decide whether the conversation is free of response loops.',
  criteria: [
    'A response loop is repeated content with no new information or action: the assistant (or two agents between them) saying the same thing again, in the same or other words.',
    'Repeating a fact after the user asked for it again, or after new information arrived, is not a loop.',
  ],
  steps: ['Read the assistant turns in order.', 'Find turns that repeat earlier content with nothing new in between.', 'Answer True if there is no response loop.'],
  inputs: ['Dialog: {message_history}'],
  example: { data: 'Support: "Billing, please take the refund." Billing: "Support, refunds are yours." (three times each)', answer: '[[False]] ((the agents hand the same request back and forth))' },
});

export const SIMULATION_TRACE_CONSISTENCY_RUBRIC = rubric({
  task: 'Decide whether the recorded trace is consistent with the simulation that produced it.',
  criteria: [
    'The user and assistant turns of the trace are the turns of the simulation, in the same order.',
    'A missing, extra, reordered or altered turn is an inconsistency.',
  ],
  steps: ['Align the simulation\'s turns with the trace\'s.', 'Note any turn that is missing, extra, out of order or changed.', 'Answer True if they are consistent.'],
  inputs: ['Trace dialog: {message_history}', 'Simulation dialog: {simulation_message_history}'],
  example: { data: 'The simulation has the user ask for a refund; the trace has no such user turn.', answer: '[[False]] ((the user\'s refund request is missing from the trace))' },
});

export const FUNCTION_PARAMETER_ACCURACY_RUBRIC = rubric({
  task: 'Decide whether every tool call was made with accurate parameters.',
  criteria: [
    'Each argument value is the one the dialog or an earlier tool result established (ids, amounts, names, dates), not invented or altered.',
    'Arguments fit the tool\'s definition: required ones present, types and allowed values respected.',
  ],
  steps: ['For each tool call, find where each argument value came from.', 'Check it against the tool definition.', 'Answer True only if every call\'s parameters are accurate.'],
  inputs: ['Dialog: {message_history}', 'Tool calls: {tool_calls}', 'Tool definitions: {tools}'],
  example: { data: 'The user gives reservation ABC123; the agent calls get_reservation(reservation_id="ABC124").', answer: '[[False]] ((the reservation id was altered))' },
});

export const FUNCTION_RESULT_PRESENT_RUBRIC = rubric({
  task: 'Decide whether every tool call returned a usable result.',
  criteria: [
    'A result is present when it is not missing, null, None or empty, and not an error (an error message, an exception, an error status).',
    'An empty list or object ("nothing found") is a result.',
  ],
  steps: ['Read each tool call and its result.', 'Note any call whose result is missing, null, None, empty or an error.', 'Answer True only if every call has a usable result.'],
  inputs: ['Tool calls with their results: {tool_calls}'],
  example: { data: 'get_user(id="u1") returned "None".', answer: '[[False]] ((the result is None))' },
});

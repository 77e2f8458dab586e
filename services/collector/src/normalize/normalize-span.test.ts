import { describe, expect, it } from 'vitest';
import { normalizeOne } from './test-support.ts';

describe('normalizeSpan: precedence, common fields, limits', () => {
  it('lets OTel GenAI current messages win over AI SDK and OpenLLMetry ones on the same span', () => {
    const env = normalizeOne({
      attributes: {
        'gen_ai.input.messages': '[{"role":"user","parts":[{"type":"text","content":"from otel"}]}]',
        'ai.prompt.messages': '[{"role":"user","content":"from ai sdk"}]',
        'ai.model.id': 'gpt-4o-mini',
        'gen_ai.prompt.0.role': 'user',
        'gen_ai.prompt.0.content': 'from openllmetry',
        'ai.response.text': 'answer from ai sdk',
      },
    });
    expect(env.genai).toEqual({
      family: 'otel_genai',
      input_messages: [{ role: 'user', content: 'from otel' }],
      output_messages: [{ role: 'assistant', content: 'answer from ai sdk' }],
      request_model: 'gpt-4o-mini',
    });
  });

  it('prefers AI SDK messages over OpenInference/OpenLLMetry, and names the family that gave the content', () => {
    const env = normalizeOne({
      attributes: {
        'ai.prompt.messages': '[{"role":"user","content":"from ai sdk"}]',
        'llm.input_messages.0.message.role': 'user',
        'llm.input_messages.0.message.content': 'from openinference',
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.content': 'oi answer',
      },
    });
    expect(env.genai.family).toBe('vercel_ai');
    expect(env.genai.input_messages).toEqual([{ role: 'user', content: 'from ai sdk' }]);
    expect(env.genai.output_messages).toEqual([{ role: 'assistant', content: 'oi answer' }]);
  });

  it('fills agent, version, environment and conversation from span and resource attributes', () => {
    const env = normalizeOne(
      { attributes: { 'session.id': 'sess-9', 'deployment.environment': 'staging' } },
      { resource: { 'service.name': 'svc', 'service.version': '1.4.0', 'gen_ai.agent.name': 'Planner' } },
    );
    expect(env.genai).toEqual({ agent_name: 'Planner', agent_version: '1.4.0', conversation_id: 'sess-9' });
    expect(env.environment).toBe('staging');
    expect(env.attributes).toEqual({});
    expect(env.service_name).toBe('svc');
  });

  it('reads the tracecheck.* namespace, which wins over conventions', () => {
    const env = normalizeOne(
      {
        attributes: {
          'tracecheck.scenario.input': 'Book a flight to Rome',
          'tracecheck.scenario.result': 'booked',
          'gen_ai.agent.version': '1.0',
          'tracecheck.agent.version': '1.1-canary',
        },
      },
      { resource: { 'tracecheck.simulation.id': 'sim-7' } },
    );
    expect(env.genai).toEqual({
      family: 'otel_genai',
      scenario_input: 'Book a flight to Rome',
      scenario_result: 'booked',
      simulation_id: 'sim-7',
      agent_version: '1.1-canary',
    });
  });

  it('flags dropped attributes as truncated', () => {
    const env = normalizeOne({ attributes: { 'gen_ai.prompt.0.content': 'hi' }, droppedAttributesCount: 12 });
    expect(env.genai.truncated).toBe(true);
    expect(env.dropped_attributes_count).toBe(12);
  });

  it('cuts values over the per-attribute limit (UTF-8 safe), flags truncation, never throws', () => {
    const env = normalizeOne(
      { attributes: { 'app.blob': 'é'.repeat(100), 'app.small': 'ok', 'app.obj': { k: 'x'.repeat(100) }, 'gen_ai.input.messages': `[{"role":"user","parts":[{"type":"text","content":"${'y'.repeat(100)}"}]}]` } },
      { maxAttributeBytes: 41 },
    );
    expect(env.genai.truncated).toBe(true);
    expect(env.attributes['app.blob']).toBe('é'.repeat(20));
    expect(env.attributes['app.small']).toBe('ok');
    expect(env.attributes['app.obj']).toBe('{"k":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx');
    // A cut JSON attribute cannot be read as messages: it is kept (cut) rather than silently lost.
    expect(env.genai.input_messages).toBeUndefined();
    expect(env.attributes['gen_ai.input.messages']).toBe('[{"role":"user","parts":[{"type":"text","');
  });

  it('keeps invalid JSON in message attributes instead of throwing', () => {
    const env = normalizeOne({ attributes: { 'gen_ai.input.messages': '[{"role":', 'gen_ai.output.messages': 42, 'gen_ai.tool.definitions': '{}' } });
    expect(env.genai.input_messages).toBeUndefined();
    expect(env.attributes).toEqual({ 'gen_ai.input.messages': '[{"role":', 'gen_ai.output.messages': 42, 'gen_ai.tool.definitions': '{}' });
  });
});

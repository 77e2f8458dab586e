import type { Bus, ConsumerLag } from '../../../shared/adapters/bus/index.ts';
import type { Component } from '../../../shared/runtime/lifecycle/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import { UnitSchema, parseRecord } from '../../../shared/contracts/schemas/index.ts';
import { createRecordStage } from '../../../shared/kit/stage/index.ts';
import { createCoalescedSend } from './coalesced-send.ts';
import { sessionKey } from './session-window.ts';

export interface SessionRouterConfig {
  unitsTopic: string;
  /** Trace units with a conversation id go on here, keyed by project and conversation. */
  sessionsTopic: string;
  groupId: string;
}

export interface SessionRouterDeps {
  bus: Bus;
  log: Logger;
  onLag?: (lag: ConsumerLag) => void;
}

/**
 * What the router reads of a unit to route it. The scorer validates every unit of the units topic
 * in full, and the aggregator every one routed (the value goes on unchanged), so the router does
 * not check the dialog again (it was a tenth of the main thread's parsing): a record without these
 * fields is still refused as not a unit.
 */
const RoutedUnitSchema = UnitSchema.pick({ schema_version: true, unit_id: true, kind: true, conversation_id: true, simulation_record: true, project: true });

/**
 * The first half of sessions: every trace unit with a conversation id is re-published to the
 * sessions topic, keyed by project and conversation id, so that one aggregator sees a whole
 * conversation (createSessionAggregator). A record stage (shared/kit/stage): units of one
 * conversation go on in the order they came.
 */
export function createSessionRouter(config: SessionRouterConfig, deps: SessionRouterDeps): Component {
  const producer = deps.bus.createProducer();
  // Units of many conversations go out in one send (records of one conversation still one after another: the stage's keyed order).
  const send = createCoalescedSend((messages) => producer.send(config.sessionsTopic, messages));
  return createRecordStage(
    { name: 'session-router', in: config.unitsTopic, out: [config.sessionsTopic], groupId: config.groupId },
    {
      bus: deps.bus,
      log: deps.log,
      producer,
      parse: (value, parsed) => ({ unit: parseRecord(RoutedUnitSchema, value, 'a unit v1', parsed), value }),
      skip: ({ unit }) => unit.kind !== 'trace' || !unit.conversation_id || unit.simulation_record === true,
      keyOf: ({ unit }) => sessionKey(unit.project, unit.conversation_id!),
      run: ({ unit, value }) => send({ key: sessionKey(unit.project, unit.conversation_id!), value }),
      ...(deps.onLag ? { onLag: deps.onLag } : {}),
    },
  );
}

import type { JudgeClient } from '../../engines/checks/index.ts';
import type { Metrics } from './metrics.ts';

/** A judge that counts its calls in flight and their outcomes. */
export function withJudgeMetrics(judge: JudgeClient, metrics: Metrics): JudgeClient {
  return {
    async complete(request) {
      metrics.judgeInFlight.inc();
      try {
        const answer = await judge.complete(request);
        metrics.judgeCalls.inc({ outcome: 'ok' });
        return answer;
      } catch (err) {
        metrics.judgeCalls.inc({ outcome: 'failed' });
        throw err;
      } finally {
        metrics.judgeInFlight.dec();
      }
    },
  };
}

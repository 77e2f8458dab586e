// Readiness probe for scripts/infra.sh: one metadata round trip to the broker, bounded in time.
// Exit 0 when the broker answers with at least one broker in the cluster, 1 otherwise.
import { Kafka, logLevel } from 'kafkajs';

const brokers = (process.argv[2] ?? '127.0.0.1:19092').split(',');
const kafka = new Kafka({
  clientId: 'tracecheck-infra-ping',
  brokers,
  connectionTimeout: 1_000,
  requestTimeout: 2_000,
  retry: { retries: 0 },
  logLevel: logLevel.NOTHING,
});
const admin = kafka.admin();
let ok = false;
try {
  await admin.connect();
  const cluster = await admin.describeCluster();
  ok = cluster.brokers.length > 0 && typeof cluster.controller === 'number' && cluster.controller >= 0;
} catch {
  ok = false;
} finally {
  await admin.disconnect().catch(() => undefined);
}
process.exit(ok ? 0 : 1);

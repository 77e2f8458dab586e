import { useChdbServer } from '../../helpers/chdb-server/use-chdb-server.ts';
import { describeSchemaLease } from './schema-lease-suite.ts';

// The schema lease on the current ClickHouse engine (26.7 via chdb): its Log table, now() arithmetic
// and RENAME under the lease. The front serves one query at a time, so the races here are milder than on a server.
const chdb = useChdbServer();
describeSchemaLease('ClickHouse 26.7 (chdb)', chdb.url, chdb.admin);

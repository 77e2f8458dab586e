import { useChdbServer } from '../../helpers/chdb-server/use-chdb-server.ts';
import { describeQuotingOn } from './sql-quote-suite.ts';

// The quoting module on the current ClickHouse engine (26.7 via chdb): 18.16 has no query parameters,
// so every value reaches SQL quoted, and current servers must read those literals the same way.
const chdb = useChdbServer();
describeQuotingOn('ClickHouse 26.7 (chdb)', chdb.admin);

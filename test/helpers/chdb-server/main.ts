// The child process that owns one chdb session and serves it over HTTP (started by
// start-chdb-server.ts): `node bin/run-ts.mjs test/helpers/chdb-server/main.ts <session dir> [setting=value …]`
// (the settings play the server's default profile).
// chdb allows one session per process and its synchronous calls would block a test's event loop,
// so the engine lives here, alone. Prints one line "listening <port>" when ready.
import { Session } from 'chdb';
import { createChdbHttpFront, settingLiteral, type ChdbEngine } from './http-front.ts';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: main.ts SESSION_DIR\n');
  process.exit(2);
}
const session = new Session(dir);
const engine: ChdbEngine = {
  query: (sql, format) => session.queryAsync(sql, { format }),
  queryBind: (sql, params, format) => session.queryBindAsync(sql, params, { format }),
  insert: async (p) => {
    const r = await session.insert({ ...p });
    return { rowsWritten: r.rowsWritten, bytesWritten: r.bytesWritten };
  },
};
const version = (await session.queryAsync('SELECT version()', { format: 'TabSeparated' })).text().trim();
const profile: Record<string, string> = {};
for (const arg of process.argv.slice(3)) {
  const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(arg);
  if (!m) throw new Error(`not a setting=value: ${arg}`);
  profile[m[1]] = m[2];
  await session.queryAsync(`SET ${m[1]} = ${settingLiteral(m[2])}`, { format: 'TabSeparated' });
}
const server = createChdbHttpFront({ engine, version, profile });
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
});
// The parent's end: close the session so its parts are flushed, then leave.
const stop = (): void => {
  server.close();
  session.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.resume();

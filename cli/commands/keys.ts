import { ROLES, createKeyring, type Role } from '../../shared/kit/access/index.ts';
import type { CliCommand, CliIo } from '../command.ts';
import { parseVerbArgs, withStore } from '../store-command.ts';

const USAGE = `usage: tracecheck keys create --project P --role ingest|read|admin [--name N]
       tracecheck keys list
       tracecheck keys revoke ID

API keys per project, kept in the store (ClickHouse, or the embedded DuckDB file) as SHA-256 hashes.
"create" prints the key once. An ingest key sends spans (OTLP: Authorization: Bearer <key>, e.g.
OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer <key>"); a read key queries the API; an admin key
also manages alert rules. As soon as one key exists, requests without a valid key get 401, and a key
sees only its own project. With no key at all, everything is open as the project "default".
In embedded mode the DuckDB file is locked by a running "tracecheck up": to revoke a key while it
runs, send DELETE /api/v1/keys/ID with an admin key of the key's project (GET /api/v1/keys lists
them); the key and its dashboard sessions stop working at once.
`;

export const keysCommand: CliCommand = {
  name: 'keys',
  summary: 'API keys per project: create (printed once), list, revoke',
  usage: USAGE,
  async run(argv: string[], io: CliIo): Promise<number> {
    const parsed = parseVerbArgs('keys', argv, { project: { type: 'string' }, role: { type: 'string' }, name: { type: 'string' } }, USAGE, io);
    if (typeof parsed === 'number') return parsed;
    const [verb = '', arg = ''] = parsed.positionals;
    const { project, role, name } = parsed.values as { project?: string; role?: string; name?: string };
    if (verb === 'create' && (!project || !role || !(ROLES as readonly string[]).includes(role))) {
      io.stderr.write(`tracecheck keys create: --project and --role (${ROLES.join(', ')}) are required\n`);
      return 2;
    }
    if (verb === 'revoke' && !arg) {
      io.stderr.write('tracecheck keys revoke: give the key id (see `tracecheck keys list`)\n');
      return 2;
    }
    if (!['create', 'list', 'revoke'].includes(verb)) {
      io.stderr.write(`tracecheck keys: unknown verb "${verb}"\n${USAGE}`);
      return 2;
    }
    return withStore('keys', io, async (store, log) => {
      const keyring = createKeyring({ store, log });
      if (verb === 'create') {
        const { key, record } = await keyring.create(project!, role as Role, name ?? '');
        io.stdout.write(`${key}\n`);
        io.stderr.write(`created ${record.role} key ${record.id} for project "${record.project}"; it is shown only this once\n`);
      } else if (verb === 'list') {
        for (const k of await keyring.list()) {
          io.stdout.write(`${k.id}  ${k.role.padEnd(6)}  ${k.project}  ${new Date(k.created_at_ms).toISOString()}  ${k.name}\n`);
        }
      } else if (!(await keyring.revoke(arg))) {
        io.stderr.write(`tracecheck keys revoke: no key with id "${arg}"\n`);
        return 1;
      }
      return 0;
    });
  },
};

import { ROLES, createKeyring, type Role } from '../../shared/kit/access/index.ts';
import type { CliCommand, CliIo } from '../command.ts';
import { apiKey, parseVerbArgs, withStoreOrServer } from '../store-command.ts';
import { ServerApiError } from '../running-server.ts';

const USAGE = `usage: tracecheck keys create --project P --role ingest|read|admin [--name N] [--key KEY]
       tracecheck keys list [--key KEY]
       tracecheck keys revoke ID [--key KEY]

API keys per project, kept in the store (ClickHouse, or the embedded DuckDB file) as SHA-256 hashes.
"create" prints the key once. An ingest key sends spans (OTLP: Authorization: Bearer <key>, e.g.
OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer <key>"); a read key queries the API; an admin key
also manages alert rules. As soon as one key exists, requests without a valid key get 401, and a key
sees only its own project. With no key at all, everything is open as the project "default".
While "tracecheck up" holds the embedded DuckDB file, these go through its API (POST, GET and
DELETE /api/v1/keys): once a key exists they need an admin key of the project (--key KEY or
TRACECHECK_API_KEY), and "list" shows that project's keys only. The first key, while none exists,
may be of any project. A revoked key and its dashboard sessions stop working at once.
`;

interface KeyLine {
  id: string;
  role: string;
  project: string;
  created_at_ms: number;
  name: string;
}

const keyLine = (k: KeyLine): string => `${k.id}  ${k.role.padEnd(6)}  ${k.project}  ${new Date(k.created_at_ms).toISOString()}  ${k.name}\n`;
const created = (k: { role: string; id: string; project: string }): string => `created ${k.role} key ${k.id} for project "${k.project}"; it is shown only this once\n`;

export const keysCommand: CliCommand = {
  name: 'keys',
  summary: 'API keys per project: create (printed once), list, revoke',
  usage: USAGE,
  async run(argv: string[], io: CliIo): Promise<number> {
    const parsed = parseVerbArgs('keys', argv, { project: { type: 'string' }, role: { type: 'string' }, name: { type: 'string' }, key: { type: 'string' } }, USAGE, io);
    if (typeof parsed === 'number') return parsed;
    const [verb = '', arg = ''] = parsed.positionals;
    const { project, role, name } = parsed.values as { project?: string; role?: string; name?: string; key?: string };
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
    return withStoreOrServer(
      'keys',
      io,
      // The key's project is the one a create names, or any project's keys for list and revoke.
      { key: apiKey(parsed.values, io), project: undefined },
      async (store, log) => {
        const keyring = createKeyring({ store, log });
        if (verb === 'create') {
          const { key, record } = await keyring.create(project!, role as Role, name ?? '');
          io.stdout.write(`${key}\n`);
          io.stderr.write(created(record));
        } else if (verb === 'list') {
          for (const k of await keyring.list()) io.stdout.write(keyLine(k));
        } else if (!(await keyring.revoke(arg))) {
          io.stderr.write(`tracecheck keys revoke: no key with id "${arg}"\n`);
          return 1;
        }
        return 0;
      },
      async (api) => {
        if (verb === 'create') {
          const k = await api.call<KeyLine & { key: string }>('POST', '/api/v1/keys', { project, role, name: name ?? '' });
          io.stdout.write(`${k.key}\n`);
          io.stderr.write(created(k));
        } else if (verb === 'list') {
          for (const k of (await api.call<{ keys: KeyLine[] }>('GET', '/api/v1/keys')).keys) io.stdout.write(keyLine(k));
        } else {
          try {
            await api.call('DELETE', `/api/v1/keys/${encodeURIComponent(arg)}`);
          } catch (err) {
            if (!(err instanceof ServerApiError) || (err.status !== 404 && err.status !== 400)) throw err;
            io.stderr.write(`tracecheck keys revoke: no key with id "${arg}"\n`);
            return 1;
          }
        }
        return 0;
      },
    );
  },
};

import type { Hono } from 'hono';
import { z } from 'zod';
import { CheckDefinitionError, checkSlug, codeCheckFromSdk, definitionVersion, outputTypeOfCheckType, outputTypeOfDataType, templateWarnings, UNBOUNDED, type CheckDefinition, type CheckRegistry } from '../../../shared/engines/checks/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import { DOC_KINDS, UserCheckDocSchema, listUserChecks, type UserCheckDoc } from '../../../shared/engines/monitors/index.ts';
import { MAX_DOC_BYTES, type QueryStore } from '../../../shared/adapters/store/index.ts';
import { ErrorSchema, type RouteSpec } from './api-spec.ts';
import { addRoute, type ApiEnv } from './route.ts';

// The SDK spells them CheckOutputType.SCORE / PASS_FAIL; our CLI score / pass_fail: any case is one type.
const CheckTypeSchema = z.string().refine((t) => outputTypeOfCheckType(t) !== null, { message: 'check_type must be SCORE or PASS_FAIL (any case)' });
// The SDK sends the project's id with each call; the caller's key decides the project (docs/clients.md).
const ProjectIdSchema = z.string().max(200).optional();
const DataTypeSchema = z.string().refine((t) => outputTypeOfDataType(t) !== null, { message: 'output_data_type must be bool, int or float' });

/** The documented create_or_update_check fields of a model check. */
const ModelCheckFieldsSchema = z
  .object({
    name: z.string(),
    description: z.string().default(''),
    prompt_template: z.string().min(1),
    check_type: CheckTypeSchema,
    range: z.tuple([z.number(), z.number()]).optional(),
    threshold: z.number().optional(),
    model: z.string().optional(),
    project_id: ProjectIdSchema,
  })
  .strict();

/**
 * upload_check's fields (and create_or_update_check with a CodeBasedCheck): the check's source
 * (`code`, or generate_check's `generated_code` spread into the call), its output_data_type (bool → pass/fail, int or float → a score, unbounded unless a range is given)
 * and whether it needs the scenario's input or result. `update: false` refuses to change an existing check.
 */
const SdkCodeCheckSchema = z
  .object({
    name: z.string(),
    description: z.string().default(''),
    code: z.string().min(1).optional(),
    generated_code: z.string().min(1).optional(),
    output_data_type: DataTypeSchema,
    language: z.enum(['python', 'typescript', 'javascript']).default('python'),
    requires_scenario_input: z.boolean().default(false),
    requires_scenario_result: z.boolean().default(false),
    update: z.boolean().default(true),
    range: z.tuple([z.number(), z.number()]).optional(),
    threshold: z.number().optional(),
    project_id: ProjectIdSchema,
  })
  .strict()
  .refine((c) => (c.code ?? c.generated_code) !== undefined, { message: 'give the source as code (or generated_code, as generate_check answers it)', path: ['code'] });

/** A definition as `tracecheck checks upload` writes it (a code check, or a model check in that form). */
const DefinitionBodySchema = z.looseObject({ kind: z.enum(['model', 'code']), name: z.string() });

export const CheckBodySchema = z.union([ModelCheckFieldsSchema, SdkCodeCheckSchema, DefinitionBodySchema]);

const VersionSchema = z.object({ version: z.string(), created_at_ms: z.number() });
const CheckInfoSchema = z.object({
  id: z.string(),
  name: z.string(),
  display_name: z.string().optional(),
  source: z.enum(['catalog', 'user']),
  kind: z.enum(['model', 'code', 'builtin']),
  output_type: z.enum(['pass_fail', 'score']),
  description: z.string(),
  version: z.string(),
  versions: z.array(VersionSchema),
});
const SavedCheckSchema = z.object({
  id: z.string(),
  name: z.string(),
  display_name: z.string().optional(),
  version: z.string(),
  changed: z.boolean(),
  versions: z.array(VersionSchema),
  /** `{name}`s in a model check's template that are no template variable: left as-is in the prompt. */
  warnings: z.array(z.string()).optional(),
});

export function toDefinition(body: z.output<typeof CheckBodySchema>): CheckDefinition {
  const fields = ModelCheckFieldsSchema.safeParse(body);
  if (fields.success) {
    const m = fields.data;
    return {
      kind: 'model',
      name: checkSlug(m.name),
      description: m.description,
      outputType: outputTypeOfCheckType(m.check_type)!,
      promptTemplate: m.prompt_template,
      // A judge's score answers any number unless a range is given (the word-count check answers 12).
      ...(m.range ? { range: m.range } : outputTypeOfCheckType(m.check_type) === 'score' ? { range: UNBOUNDED } : {}),
      ...(m.threshold !== undefined ? { threshold: m.threshold } : {}),
      ...(m.model ? { model: m.model } : {}),
    };
  }
  const code = SdkCodeCheckSchema.safeParse(body);
  if (code.success) {
    const c = code.data;
    return codeCheckFromSdk({
      name: checkSlug(c.name),
      description: c.description,
      source: (c.code ?? c.generated_code)!,
      language: c.language,
      outputType: outputTypeOfDataType(c.output_data_type)!,
      requiresScenarioInput: c.requires_scenario_input,
      requiresScenarioResult: c.requires_scenario_result,
      ...(c.range ? { range: c.range } : {}),
      ...(c.threshold !== undefined ? { threshold: c.threshold } : {}),
    });
  }
  return body as unknown as CheckDefinition;
}

/** upload_check with `update: false`: an existing check keeps its definition. */
function refusesUpdate(body: unknown): boolean {
  const code = SdkCodeCheckSchema.safeParse(body);
  return code.success && !code.data.update;
}

/**
 * Users' checks: `POST /api/v1/checks` is create_or_update_check (a changed definition is a new
 * version; the same one changes nothing), `GET /api/v1/checks` is get_all_checks (the catalog and
 * the project's checks with their versions). Stored as docs, so running scorers pick them up.
 */
export function checkRoutes(app: Hono<ApiEnv>, routes: RouteSpec[], deps: { store: QueryStore; log: Logger; now: () => number; createRegistry: () => CheckRegistry }): void {
  const log = deps.log.child({ component: 'api.checks' });
  const tag = 'checks';
  const invalid = (doc: { id: string }, problems: string): void => log.warn({ id: doc.id, problems }, 'stored user check does not parse; skipped');

  addRoute(
    app,
    routes,
    {
      method: 'post',
      path: '/api/v1/checks',
      tag,
      role: 'admin',
      summary: 'create_or_update_check: {name, description, prompt_template, check_type} for a model check; upload_check: {name, description, code, output_data_type, requires_scenario_input, requires_scenario_result, update} for a code check; or a definition as `checks upload` writes it. A changed definition is a new version of the same check.',
      body: CheckBodySchema,
      responses: { 201: { description: 'a new version', schema: SavedCheckSchema }, 200: { description: 'unchanged', schema: SavedCheckSchema }, 409: { description: 'upload_check with update false, and the name exists with another definition', schema: ErrorSchema }, 413: { description: 'the check with all its versions exceeds what the store keeps (1 MB)', schema: ErrorSchema } },
    },
    async (c, { body }) => {
      const project = c.get('project');
      const definition = toDefinition(body);
      const registry = deps.createRegistry();
      if (registry.catalogEntry(definition.name)) return { status: 400, body: { error: `invalid request: "${definition.name}" is a catalog check; choose another name` } };
      try {
        registry.createOrUpdateCheck(definition);
      } catch (err) {
        if (err instanceof CheckDefinitionError) return { status: 400, body: { error: `invalid request: ${err.problems.join('; ')}`, issues: err.problems } };
        throw err;
      }
      const version = definitionVersion(definition);
      const warnings = definition.kind === 'model' ? templateWarnings(definition.promptTemplate) : [];
      const warned = warnings.length > 0 ? { warnings } : {};
      const given = (body as { name: string }).name;
      const named = given === definition.name ? {} : { display_name: given };
      const stored = await deps.store.getDoc(DOC_KINDS.check, project, definition.name);
      const parsed = stored ? UserCheckDocSchema.safeParse(stored.body) : null;
      const doc: UserCheckDoc = parsed?.success ? parsed.data : { name: definition.name, versions: [] };
      const versionsOut = (d: UserCheckDoc) => d.versions.map((v) => ({ version: v.version, created_at_ms: v.created_at_ms }));
      const ids = { id: doc.name, name: doc.name, ...named };
      if (doc.versions.at(-1)?.version === version) return { status: 200, body: { ...ids, version, changed: false, versions: versionsOut(doc), ...warned } };
      if (doc.versions.length > 0 && refusesUpdate(body)) return { status: 409, body: { error: `check "${given}" exists with another definition; upload it with update=True to add a new version` } };
      const t = Math.max(deps.now(), (stored?.updated_at_ms ?? 0) + 1);
      const next: UserCheckDoc = { name: definition.name, ...named, versions: [...doc.versions, { version, created_at_ms: t, definition: definition as unknown as Record<string, unknown> }] };
      // Every version is kept in one document: past the store's limit, the check needs a new name.
      if (JSON.stringify(next).length > MAX_DOC_BYTES) return { status: 413, body: { error: `check "${definition.name}" with its ${next.versions.length} versions would exceed the ${MAX_DOC_BYTES} bytes the store keeps per check; save it under a new name` } };
      await deps.store.putDoc({ kind: DOC_KINDS.check, project, id: definition.name, body: next, updated_at_ms: t });
      log.info({ check: definition.name, version, project }, 'user check saved');
      return { status: 201, body: { ...ids, version, changed: true, versions: versionsOut(next), ...warned } };
    },
  );

  addRoute(
    app,
    routes,
    { method: 'get', path: '/api/v1/checks', tag, role: 'read', summary: "get_all_checks: the catalog and the project's checks, each with its versions.", responses: { 200: { description: 'the checks', schema: z.object({ checks: z.array(CheckInfoSchema) }) } } },
    async (c) => {
      const registry = deps.createRegistry();
      const catalog = registry.list().map((check) => ({
        id: check.name,
        name: check.name,
        source: 'catalog' as const,
        kind: check.kind,
        output_type: check.outputType,
        description: check.description,
        version: check.version,
        versions: registry.history(check.name).map((r) => ({ version: r.check.version, created_at_ms: 0 })),
      }));
      const users = (await listUserChecks(deps.store, invalid, c.get('project'))).map(({ check }) => {
        const current = check.versions.at(-1)!;
        const def = current.definition as { kind?: string; outputType?: string; description?: string };
        return {
          id: check.name,
          name: check.name,
          ...(check.display_name !== undefined ? { display_name: check.display_name } : {}),
          source: 'user' as const,
          kind: def.kind === 'code' ? ('code' as const) : ('model' as const),
          output_type: def.outputType === 'score' ? ('score' as const) : ('pass_fail' as const),
          description: def.description ?? '',
          version: current.version,
          versions: check.versions.map((v) => ({ version: v.version, created_at_ms: v.created_at_ms })),
        };
      });
      return { status: 200, body: { checks: [...catalog, ...users].sort((a, b) => a.name.localeCompare(b.name)) } };
    },
  );
}

import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { ChatMessageSchema } from '../../../shared/contracts/schemas/index.ts';
import type { Generation, GenerationRequest, Generator } from './generation.ts';

// The host beside this file: module-host.ts in the sources, module-host.js in the build (dist/).
const HOST = fileURLToPath(new URL(`./module-host${extname(fileURLToPath(import.meta.url))}`, import.meta.url));

/**
 * tsx in the child when it is installed (always in a checkout): the sources' host is TypeScript, and
 * so may be the user's module. A production install runs the compiled host with plain Node, and
 * then takes JavaScript modules only (the host says so for a .ts one).
 */
function loaderArgs(): string[] {
  try {
    return ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href];
  } catch {
    return [];
  }
}

const ModuleResultSchema = z.object({ output: z.string(), messages: z.array(ChatMessageSchema).optional() });
type HostReply = { ok: true; result: unknown } | { ok: false; error: string };

export interface ModuleGeneratorOptions {
  baseUrl: string | undefined;
  apiKey: string | undefined;
}

/**
 * Runs a prompt's `module` in its own process (one per call, killed on timeout). The module's
 * default export (or `run`) receives `{input, variables, messages, model, params, try, base_url,
 * api_key}` and returns `{output, messages?}`.
 */
export function createModuleGenerator(options: ModuleGeneratorOptions): Generator {
  const running = new Set<ReturnType<typeof fork>>();
  return {
    generate(req: GenerationRequest): Promise<Generation> {
      const args = {
        input: req.variables,
        variables: req.variables,
        messages: req.messages,
        model: req.params.model ?? null,
        params: req.params,
        try: req.tryIndex,
        base_url: req.baseUrl ?? options.baseUrl ?? null,
        api_key: req.apiKey ?? options.apiKey ?? null,
      };
      return new Promise<Generation>((resolvePromise, reject) => {
        const child = fork(HOST, [], { execArgv: loaderArgs(), stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
        running.add(child);
        let stderr = '';
        child.stderr?.on('data', (d: Buffer) => {
          if (stderr.length < 4000) stderr += d.toString();
        });
        let settled = false;
        const finish = (fn: () => void): void => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          running.delete(child);
          child.kill('SIGKILL');
          fn();
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`module timed out after ${req.timeoutMs} ms`))), req.timeoutMs);
        child.on('message', (msg: HostReply) => {
          finish(() => {
            if (!msg.ok) return reject(new Error(`module failed: ${msg.error}`));
            const parsed = ModuleResultSchema.safeParse(msg.result);
            if (!parsed.success) return reject(new Error(`module must return {output: string, messages?: [...]}: ${parsed.error.issues[0]?.message ?? 'invalid'}`));
            const messages = parsed.data.messages ?? [...(req.messages ?? []), { role: 'assistant' as const, content: parsed.data.output }];
            resolvePromise({ output: parsed.data.output, messages, cached: false });
          });
        });
        child.on('exit', (code) => finish(() => reject(new Error(`module process exited (code ${code ?? 'null'}) without an answer${stderr ? `: ${stderr.trim().slice(0, 500)}` : ''}`))));
        child.on('error', (err) => finish(() => reject(err)));
        child.send({ modulePath: req.modulePath, args });
      });
    },
    close() {
      for (const c of running) c.kill('SIGKILL');
      running.clear();
      return Promise.resolve();
    },
  };
}

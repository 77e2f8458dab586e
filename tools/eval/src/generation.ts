import type { ChatMessage } from '../../../shared/contracts/schemas/index.ts';

/** One call of a prompt for one reference and try. */
export interface GenerationRequest {
  /** `python`: llmeval's custom message code, run in the Python sandbox. */
  kind: 'chat' | 'module' | 'python';
  /** Model plus pass-through hyperparameters. */
  params: Record<string, unknown>;
  /** Rendered messages (for a module: what the prompt file rendered, if anything). */
  messages: ChatMessage[] | null;
  /** Reference input merged over the prompt's default variables. */
  variables: Record<string, unknown>;
  tryIndex: number;
  baseUrl: string | null;
  apiKey: string | null;
  timeoutMs: number;
  /** For modules: absolute path and a hash of the module's source (cache key). */
  modulePath?: string;
  moduleHash?: string;
  /** For python: the code, which sets `output` or the `messages` to send. */
  code?: string;
}

export interface Generation {
  output: string;
  /** The conversation as sent and answered, for reports and checks. */
  messages: ChatMessage[];
  cached: boolean;
}

export interface Generator {
  generate(request: GenerationRequest): Promise<Generation>;
  close(): Promise<void>;
}

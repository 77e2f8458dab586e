export { createModelServer, MOCK_MODELS } from './model-server.ts';
export type { ModelServer, ModelServerOptions } from './model-server.ts';

export { createModelServer,  } from './model-server.ts';
export type { ModelServer,  } from './model-server.ts';

import { describe, expect, it } from 'vitest';
import { createCommandLogger } from './command-logger.ts';

describe('createCommandLogger', () => {
  it('logs at TRACECHECK_LOG_LEVEL when it is set, at the command\'s default when not', () => {
    expect(createCommandLogger({ logLevel: 'debug' }, 'warn').level).toBe('debug');
    expect(createCommandLogger({ logLevel: 'info' }, 'warn').level).toBe('info');
    expect(createCommandLogger({ logLevel: null }, 'warn').level).toBe('warn');
    expect(createCommandLogger({ logLevel: null }, 'info').level).toBe('info');
  });
});

export { createKeyring, OPEN_PROJECT } from './keyring.ts';
export type { AuthResult, Keyring, KeyringOptions } from './keyring.ts';
export { ROLES, assertProjectName, bearerToken, generateKey, hashKey } from './keys.ts';
export type { KeyRecord, Role } from './keys.ts';
export { SESSION_DOC_KIND, SESSION_TTL_MS, createSessions } from './sessions.ts';
export type { Sessions } from './sessions.ts';
export { DEFAULT_ADDRESS_THROTTLE, DEFAULT_PREFIX_THROTTLE, KEY_PREFIX_CHARS, createThrottle } from './throttle.ts';
export type { Throttle, ThrottleOptions } from './throttle.ts';

export { createKeyring, OPEN_PROJECT } from './keyring.ts';
export type { AuthResult, Keyring, KeyringOptions } from './keyring.ts';
export { ROLES, assertProjectName, bearerToken, generateKey, hashKey } from './keys.ts';
export type { KeyRecord, Role } from './keys.ts';

import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../shared/contracts/schemas/index.ts';

export function hashHex(value: unknown, length = 24): string {
  return createHash('sha256').update(typeof value === 'string' ? value : canonicalJson(value)).digest('hex').slice(0, length);
}

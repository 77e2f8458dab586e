import { PermanentError } from '../../runtime/errors/index.ts';

/** Ids per query, at most: a DuckDB statement's parameters, a ClickHouse query's text (max_query_size, 256 KiB). */
export const MAX_IDS_PER_QUERY = 500;
const MAX_CHARS = 64 * 1024;

/**
 * Distinct ids in groups that each fit one query (by count and by length: ids are hostile and
 * may be long). Throws a PermanentError for an id that is not a string.
 */
export function idChunks(unitIds: readonly string[]): string[][] {
  const chunks: string[][] = [];
  let chunk: string[] = [];
  let chars = 0;
  for (const id of new Set(unitIds)) {
    if (typeof id !== 'string') throw new PermanentError('unit ids must be strings');
    // Quoted, a character may take a few (an escape, a UTF-8 sequence in ClickHouse's text).
    const cost = 4 * id.length + 4;
    if (chunk.length > 0 && (chunk.length >= MAX_IDS_PER_QUERY || chars + cost > MAX_CHARS)) {
      chunks.push(chunk);
      chunk = [];
      chars = 0;
    }
    chunk.push(id);
    chars += cost;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

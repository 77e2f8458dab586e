/**
 * The data a judge prompt fences off from its instructions: tracecheck's own nonce fences
 * (`<<<DATA-<nonce> name>>>` … `<<<END-DATA-<nonce>>>`), ``` blocks and <tag>…</tag> blocks.
 * When the prompt fences nothing, the whole text is the data.
 */
export function fencedBlocks(text: string): string[] {
  const blocks: string[] = [];
  for (const m of text.matchAll(/<<<DATA-([\w-]+)[^\n]*?>>>\n?([\s\S]*?)\n?<<<END-DATA-\1>>>/g)) blocks.push(m[2]);
  if (blocks.length > 0) return blocks;
  for (const m of text.matchAll(/```[^\n`]*\n?([\s\S]*?)```/g)) blocks.push(m[1]);
  for (const m of text.matchAll(/<([A-Za-z][\w.-]*)(?:\s[^>]*)?>([\s\S]*?)<\/\1>/g)) blocks.push(m[2]);
  return blocks.length > 0 ? blocks : [text];
}

export function isWholeJson(block: string): boolean {
  return tryParse(block.trim()) !== undefined;
}

/** A block that is one JSON string, decoded; any other text as it is. */
export function jsonStringOrText(block: string): string {
  const v = tryParse(block.trim());
  return typeof v === 'string' ? v : block;
}

/** Every JSON value that a block holds: the whole block, or JSON objects/arrays on its own lines. */
export function jsonValues(block: string): unknown[] {
  const whole = tryParse(block.trim());
  if (whole !== undefined) return [whole];
  const values: unknown[] = [];
  for (const line of block.split('\n')) {
    const t = line.trim().replace(/^[\w ]{1,40}:\s*(?=[[{])/, '');
    if (!t.startsWith('[') && !t.startsWith('{')) continue;
    const v = tryParse(t);
    if (v !== undefined) values.push(v);
  }
  return values;
}

// A JSON string block (tracecheck encodes every text that way) is one value: its content is never
// read as transcript lines, so a text that writes a fake turn stays a text.
function tryParse(text: string): unknown {
  if (!text.startsWith('[') && !text.startsWith('{') && !text.startsWith('"')) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PermanentError } from '../../runtime/errors/index.ts';
import { readJsonFile, writeJsonFile } from './json-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'tc-json-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const Schema = z.record(z.string(), z.number().int().positive());

describe("the bus's state files", () => {
  it('reads none as null, and what was written atomically as written (no file left aside)', async () => {
    const path = join(dir, 'a.json');
    expect(readJsonFile(path, Schema, 'test', 'move it away')).toBeNull();
    await writeJsonFile(path, { g: 3 }, true);
    expect(readJsonFile(path, Schema, 'test', 'move it away')).toEqual({ g: 3 });
    expect(readdirSync(dir)).toEqual(['a.json']);
  });

  it('refuses a file that is not JSON, or not of the schema, with a permanent error that names it and says what to do', () => {
    const torn = join(dir, 'torn.json');
    writeFileSync(torn, '{"g": 3');
    expect(() => readJsonFile(torn, Schema, 'test', 'move it away')).toThrow(new PermanentError(`bus test file ${torn} is not JSON; move it away`));
    const wrong = join(dir, 'wrong.json');
    writeFileSync(wrong, '{"g": -1}');
    expect(() => readJsonFile(wrong, Schema, 'test', 'move it away')).toThrow(/^bus test file .*wrong\.json is malformed: /);
  });
});

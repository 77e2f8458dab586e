import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgress } from './progress.ts';

function stream(isTTY: boolean): { s: Writable & { isTTY?: boolean }; text: () => string } {
  let out = '';
  const s = new Writable({
    write(chunk: Buffer, _e, cb) {
      out += chunk.toString();
      cb();
    },
  }) as Writable & { isTTY?: boolean };
  s.isTTY = isTTY;
  return { s, text: () => out };
}

describe('createProgress', () => {
  it('redraws a bar in place on a terminal', () => {
    const { s, text } = stream(true);
    const p = createProgress(s, 'eval');
    p.start(2, 0);
    p.tick();
    p.tick();
    p.finish();
    expect(text()).toBe(`\reval [${'.'.repeat(30)}] 0/2\reval [${'#'.repeat(15)}${'.'.repeat(15)}] 1/2\reval [${'#'.repeat(30)}] 2/2\n`);
  });

  it('writes plain lines at each tenth otherwise', () => {
    const { s, text } = stream(false);
    const p = createProgress(s, 'eval');
    p.start(20, 0);
    for (let i = 0; i < 20; i++) p.tick();
    p.finish();
    const lines = text().trim().split('\n');
    expect(lines).toHaveLength(11);
    expect(lines[0]).toBe('eval: 0/20 tries done');
    expect(lines.at(-1)).toBe('eval: 20/20 tries done');
    expect(text()).not.toContain('\r');
  });
});

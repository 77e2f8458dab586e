import { describe, expect, it } from 'vitest';
import { subjectName } from './email-message.ts';

// A rule's name is any project admin's text, sent through the operator's SMTP server: it reaches
// the subject quoted, short and in printable ASCII, never as a message of its own.

describe('subjectName', () => {
  it('quotes the name and escapes what is not printable ASCII', () => {
    expect(subjectName('task_completed on v2')).toBe('"task_completed on v2"');
    expect(subjectName('Reset your "password" now\r\nBcc: x@evil.io')).toBe('"Reset your \\"password\\" now\\r\\nBcc: x@evil.io"');
    expect(subjectName('pay\u202egnp.exe \u0430pple')).toBe('"pay\\u202egnp.exe \\u0430pple"');
  });

  it('keeps at most 60 characters of it', () => {
    expect(subjectName('x'.repeat(61))).toBe(`"${'x'.repeat(59)}..."`);
    expect(subjectName('x'.repeat(60))).toBe(`"${'x'.repeat(60)}"`);
  });
});

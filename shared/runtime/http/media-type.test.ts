import { describe, expect, it } from 'vitest';
import { acceptedMediaType } from './media-type.ts';

const allowed = ['application/json', 'application/x-protobuf'] as const;

describe('acceptedMediaType', () => {
  it.each([
    ['application/json', 'application/json'],
    ['application/x-protobuf', 'application/x-protobuf'],
    ['application/json; charset=utf-8', 'application/json'],
    ['  Application/JSON ;  Charset="UTF-8" ', 'application/json'],
    ['application/json;charset=utf8', 'application/json'],
    ['APPLICATION/X-PROTOBUF; foo=bar', 'application/x-protobuf'],
  ])('accepts %j as %s', (header, expected) => {
    expect(acceptedMediaType(header, allowed)).toBe(expected);
  });

  it.each([
    undefined,
    '',
    'text/plain',
    'text/plain; x=application/json',
    'multipart/form-data; boundary=application/x-protobuf',
    'application/x-www-form-urlencoded',
    'application/jsonx',
    'application/json-seq',
    'application/protobuf',
    'application/json; charset=utf-16',
    'application/json; charset',
    'application/json, text/plain',
  ])('refuses %j', (header) => {
    expect(acceptedMediaType(header, allowed)).toBeUndefined();
  });
});

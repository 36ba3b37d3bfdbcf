import { describe, expect, it } from 'vitest';
import { bridgeError, errorText } from './index';

describe('bridgeError', () => {
  it.each([
    ['the object Wails passes from Go', { code: 'page-invalid', params: { limit: 0, max: 1000 }, detail: '' }, { code: 'page-invalid', params: { limit: 0, max: 1000 }, detail: '' }],
    ['the same as JSON text', '{"code":"search-empty"}', { code: 'search-empty', params: {}, detail: '' }],
    ['JSON inside an Error', new Error('{"code":"not-found","detail":"sessions: not found: tool result 9"}'), { code: 'not-found', params: {}, detail: 'sessions: not found: tool result 9' }],
    ['plain text', 'Call to Sessions.List timed out', { code: 'failed', params: {}, detail: 'Call to Sessions.List timed out' }],
    ['text that only starts like JSON', '{oops', { code: 'failed', params: {}, detail: '{oops' }],
    ['something else', 42, { code: 'failed', params: {}, detail: '42' }],
  ])('reads %s', (_name, e, want) => {
    expect(bridgeError(e)).toEqual(want);
  });
  it('gives the log the detail, or the code when there is none', () => {
    expect(errorText({ code: 'search-empty' })).toBe('search-empty');
    expect(errorText({ code: 'failed', detail: 'disk full' })).toBe('disk full');
  });
});

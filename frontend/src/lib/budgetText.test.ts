import { describe, expect, it } from 'vitest';
import { en } from '../i18n/en';
import { zh } from '../i18n/zh';
import { budgetsErrorText } from './budgetText';
import { parseBudgets } from './format';

describe('budgetsErrorText', () => {
  it('names each bad entry and why, in English', () => {
    const msg = budgetsErrorText(en, parseBudgets('12k, -5, abc'));
    expect(msg).toContain('“12k” (write it in full (12k → 12000))');
    expect(msg).toContain('“-5” (negative)');
    expect(msg).toContain('“abc” (not a number)');
    expect(msg).toMatch(/^Not a budget:/);
  });
  it('translates into Chinese', () => {
    const msg = budgetsErrorText(zh, parseBudgets('12k, -5, abc'));
    expect(msg).toMatch(/^不是有效预算/);
    expect(msg).toContain('“-5”（是负数）'.replace('（', ' (').replace('）', ')'));
    expect(msg).toContain('不是数字');
  });
  it('is empty for a good list and explains an empty one', () => {
    expect(budgetsErrorText(en, parseBudgets('2000'))).toBe('');
    expect(budgetsErrorText(en, parseBudgets(''))).toBe(en.sweep.errEmpty);
    expect(budgetsErrorText(zh, parseBudgets(Array(50).fill(0).map((_, i) => i).join(',')))).toContain('40');
  });
});

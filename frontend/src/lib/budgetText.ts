import { fill, type Messages } from '../i18n';
import type { BudgetIssue, BudgetsParse } from './format';
import { MAX_SWEEP_BUDGETS } from './format';

/** budgetIssueText says, in the current language, why one budget entry was refused: “12k” (write it in full…). */
export function budgetIssueText(m: Messages, issue: BudgetIssue): string {
  return `“${issue.token}” (${m.sweep.problem[issue.problem]})`;
}

/** budgetsErrorText is the translated message for a budgets list that did not parse, or '' when it did. */
export function budgetsErrorText(m: Messages, p: BudgetsParse): string {
  if (p.ok) return '';
  if (p.reason === 'empty') return m.sweep.errEmpty;
  if (p.reason === 'tooMany') return fill(m.sweep.errTooMany, { n: MAX_SWEEP_BUDGETS });
  return fill(m.sweep.errInvalid, { list: p.issues.map((i) => budgetIssueText(m, i)).join(', ') });
}

/** moveRowFocus moves focus between the row buttons of a table with the arrow keys (and Home/End). It returns whether it handled the key. */
export function moveRowFocus(e: KeyboardEvent, selector = '.row-open'): boolean {
  if (!['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(e.key)) return false;
  const table = (e.currentTarget as HTMLElement | null) ?? null;
  if (!table) return false;
  const items = Array.from(table.querySelectorAll<HTMLElement>(selector));
  if (items.length === 0) return false;
  const at = items.indexOf(document.activeElement as HTMLElement);
  let next = at;
  if (e.key === 'ArrowDown') next = at < 0 ? 0 : Math.min(items.length - 1, at + 1);
  else if (e.key === 'ArrowUp') next = at < 0 ? 0 : Math.max(0, at - 1);
  else if (e.key === 'Home') next = 0;
  else next = items.length - 1;
  e.preventDefault();
  items[next].focus();
  items[next].scrollIntoView({ block: 'nearest' });
  return true;
}

/** isTyping: the key went to a field, so screen shortcuts stay out of the way. */
export function isTyping(e: KeyboardEvent): boolean {
  const el = e.target as HTMLElement | null;
  if (!el) return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
}

/** safeAttachmentUrl accepts only the attachment store's own URLs from Go; nothing is ever built from result text. */
export function safeAttachmentUrl(url: string | null | undefined): string {
  return url && /^\/attachments\/[0-9a-f]{64}\.[a-z]{3,4}$/.test(url) ? url : '';
}

/** rowKeys is an action: arrow keys move between the row buttons inside node. */
export function rowKeys(node: HTMLElement) {
  const onKey = (e: KeyboardEvent) => moveRowFocus(e);
  node.addEventListener('keydown', onKey);
  return { destroy: () => node.removeEventListener('keydown', onKey) };
}

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

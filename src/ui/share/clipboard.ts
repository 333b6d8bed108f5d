/**
 * Copies text. The async clipboard API needs a secure context and focus; where it is missing or
 * refused, the old selection-based copy still works from a user gesture.
 */
export async function copyText(
  text: string,
  fallbackField?: HTMLInputElement | HTMLTextAreaElement | null,
): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Refused (permissions, focus): fall through to the selection-based copy.
  }
  if (!fallbackField) return false;
  fallbackField.focus();
  fallbackField.select();
  try {
    return document.execCommand('copy');
  } catch {
    return false;
  }
}

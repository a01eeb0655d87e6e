// Owns what counts as an e-mail address we send to or from: a plain `local@domain`, stricter than
// RFC 5322 on purpose. Logins and names come from the upstream, and an address is the one thing of
// theirs that reaches a mail header as it is; so no display name, no quoted local part, no comment,
// no space or control character (a CR/LF would end the header and start another), and a domain of
// dot-separated labels with at least one dot. An address outside this rule is not sent to.

const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** The longest address SMTP carries (RFC 5321: a path of 256 octets less the angle brackets). */
export const MAX_ADDRESS_LENGTH = 254;

/** Whether `text` is a plain e-mail address we send to, exactly as written (no trimming). */
export function isPlainAddress(text: string): boolean {
  if (text.length > MAX_ADDRESS_LENGTH) return false;
  const at = text.lastIndexOf('@');
  if (at <= 0 || at !== text.indexOf('@')) return false;
  const local = text.slice(0, at);
  const labels = text.slice(at + 1).split('.');
  return (
    local.length <= 64 &&
    LOCAL.test(local) &&
    labels.length >= 2 &&
    labels.every((label) => LABEL.test(label)) &&
    /[A-Za-z]/.test(labels[labels.length - 1] ?? '')
  );
}

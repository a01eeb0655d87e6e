// Owns which division managers a `to: division-managers` delivery writes to: one who is active,
// has accepted the invitation and whose login is a plain e-mail address (mail-address.ts). The
// mail (notify/mail-recipients.ts), `exports check`'s count of readers and the export's choice of
// the languages a division's workbook is written in all read this one rule.

import type { DivisionManager } from 'wfm-contract/division';
import { isPlainAddress } from './mail-address.js';

export type ManagerMailProblem = 'inactive' | 'invite_not_accepted' | 'login_not_an_address';

/** Why a manager gets no mail; undefined when they get it. */
export function managerMailProblem(
  manager: Pick<DivisionManager, 'active' | 'inviteAccepted' | 'login'>,
): ManagerMailProblem | undefined {
  if (!manager.active) return 'inactive';
  if (!manager.inviteAccepted) return 'invite_not_accepted';
  if (!isPlainAddress(manager.login)) return 'login_not_an_address';
  return undefined;
}

import { useEffect, useState } from 'react';
import { api } from '../api/client.js';
import type { Member } from '../api/types.js';
import { useSession } from '../session.js';

export { clientLabel } from './client-label.js';

/** Turns user ids into names (the organization's members; "you" for the signed-in user). */
export function usePeople(): (userId: string | null | undefined) => string {
  const { me } = useSession();
  const members = useMembers();
  return (userId) => {
    if (!userId) return 'unknown';
    if (userId === me.user.id) return 'you';
    const m = members.find((x) => x.userId === userId);
    return m ? m.name || m.email : userId;
  };
}

/** The members of the signed-in user's organization (empty until loaded, or without one). */
export function useMembers(): Member[] {
  const { me } = useSession();
  const [members, setMembers] = useState<Member[]>([]);
  const orgId = me.organizations[0]?.id;
  useEffect(() => {
    if (!orgId) return;
    api<{ members: Member[] }>('GET', `/api/v1/organizations/${orgId}/members`).then(
      (r) => setMembers(r.members),
      () => undefined,
    );
  }, [orgId]);
  return members;
}

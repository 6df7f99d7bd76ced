/**
 * A session's "allow for this session" grants for the info dialog: fetched once, then kept
 * current by the engine's `grants` events (a grant made or revoked in any window).
 */
import { useCallback, useEffect, useState } from 'react';
import type { SessionGrant } from '../../shared/approvals';
import { useBridge } from '../bridge/context';
import { errorMessage } from '../lib/errors';

export function useSessionGrants(sessionId: string): { grants: SessionGrant[] | null; error: string | null; revoke: (grantId: string) => void } {
  const bridge = useBridge();
  const [grants, setGrants] = useState<SessionGrant[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    // An event is newer than the answer to a request sent before it.
    let heard = false;
    const off = bridge.onEvent((event) => {
      if (event.type !== 'grants' || event.sessionId !== sessionId) return;
      heard = true;
      setGrants(event.grants);
    });
    bridge.invoke('chat.grants', { sessionId }).then(
      (current) => live && !heard && setGrants(current),
      (err: unknown) => live && setError(errorMessage(err)),
    );
    return () => {
      live = false;
      off();
    };
  }, [bridge, sessionId]);
  const revoke = useCallback(
    (grantId: string) => {
      bridge.invoke('chat.revokeGrant', { sessionId, grantId }).then(setGrants, (err: unknown) => setError(errorMessage(err)));
    },
    [bridge, sessionId],
  );
  return { grants, error, revoke };
}

/**
 * The info dialog's "Allowed for this session" list: each grant made with "Allow for this
 * session", revocable here. Revoking moves focus to the list's heading, since the button
 * that had it is gone.
 */
import { useId, useRef } from 'react';
import { describeGrant } from '../../shared/approvals';
import { useSessionGrants } from '../state/session-grants';

export function SessionGrants({ sessionId }: { sessionId: string }) {
  const { grants, error, revoke } = useSessionGrants(sessionId);
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  return (
    <section className="grants" aria-labelledby={headingId}>
      <h3 id={headingId} ref={heading} tabIndex={-1}>
        Allowed for this session
      </h3>
      {error && <p role="alert">{error}</p>}
      {grants?.length === 0 && <p className="grants-none">Nothing beyond the permission mode. “Allow for this session” on an approval adds to this list.</p>}
      {grants && grants.length > 0 && (
        <ul>
          {grants.map((grant) => (
            <li key={grant.id}>
              <span className={grant.kind === 'prefix' ? 'mono' : undefined}>{describeGrant(grant)}</span>
              <button
                type="button"
                aria-label={`Revoke: ${describeGrant(grant)}`}
                onClick={() => {
                  revoke(grant.id);
                  heading.current?.focus();
                }}
              >
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

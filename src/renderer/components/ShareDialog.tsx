/**
 * Shares a session with a team on the sync hub: the team's members see it in their list
 * and in team search after their next sync. The dialog stays open to say what happened.
 */
import { useState } from 'react';
import type { SessionMeta } from '../../shared/types';
import { useBridge } from '../bridge/context';
import { sessionLabel } from '../lib/format';
import { Dialog } from './Dialog';
import { errorMessage } from '../lib/errors';

export function ShareDialog({ meta, onClose }: { meta: SessionMeta; onClose: () => void }) {
  const bridge = useBridge();
  const [team, setTeam] = useState('');
  const [result, setResult] = useState<{ ok: boolean; line: string } | null>(null);
  const [sharing, setSharing] = useState(false);

  const share = async () => {
    setSharing(true);
    try {
      const { line } = await bridge.invoke('sessions.share', { id: meta.id, team: team.trim() });
      setResult({ ok: true, line });
    } catch (err) {
      setResult({ ok: false, line: errorMessage(err) });
    } finally {
      setSharing(false);
    }
  };

  return (
    <Dialog title="Share with a team" onClose={onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void share();
        }}
      >
        <p className="hint">“{sessionLabel(meta)}” becomes readable by the team’s members on the sync hub.</p>
        <label className="field">
          <span>Team</span>
          <input value={team} onChange={(e) => setTeam(e.target.value)} maxLength={64} autoFocus required spellCheck={false} autoComplete="off" />
        </label>
        <p className={`share-result${result && !result.ok ? ' failed' : ''}`} role="status">
          {result?.line ?? ''}
        </p>
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>
            Close
          </button>
          <button type="submit" className="primary" disabled={!team.trim() || sharing}>
            {sharing ? 'Sharing…' : 'Share'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

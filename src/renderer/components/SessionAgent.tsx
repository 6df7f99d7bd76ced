/**
 * The session's agent in the chat header (docs/DESIGN.md#the-sessions-agent), beside its
 * model: a button naming it that opens the picker, each agent with its description. The
 * change takes effect from the next turn and is recorded (the info dialog lists it); a
 * refusal is said in the dialog, and nothing changes. Agent files that could not be used
 * are listed there, one line each.
 */
import { useEffect, useState } from 'react';
import type { AgentList } from '../../shared/contract';
import type { SessionMeta } from '../../shared/types';
import { useBridge } from '../bridge/context';
import { errorMessage } from '../lib/errors';
import { Dialog } from './Dialog';

/** The agent a session has when none was chosen (core/agents/built-in.ts). */
const DEFAULT_AGENT = 'build';

export function SessionAgentButton({ meta }: { meta: SessionMeta }) {
  const [open, setOpen] = useState(false);
  const agent = meta.agent ?? DEFAULT_AGENT;
  return (
    <>
      <button
        type="button"
        className="session-agent"
        aria-haspopup="dialog"
        aria-label={`Agent: ${agent}`}
        title="The agent this session works as; choose another"
        onClick={() => setOpen(true)}
      >
        <span className="head-prefix">Agent: </span>
        {agent}
      </button>
      {open && <SessionAgentDialog meta={meta} onClose={() => setOpen(false)} />}
    </>
  );
}

function SessionAgentDialog({ meta, onClose }: { meta: SessionMeta; onClose: () => void }) {
  const bridge = useBridge();
  const [list, setList] = useState<AgentList | null>(null);
  const [chosen, setChosen] = useState(meta.agent ?? DEFAULT_AGENT);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    bridge.invoke('agents.list', { id: meta.id }).then(setList, (err: unknown) => setError(errorMessage(err)));
  }, [bridge, meta.id]);

  const save = async () => {
    setSaving(true);
    try {
      await bridge.invoke('sessions.setAgent', { id: meta.id, agent: chosen });
      onClose();
    } catch (err) {
      setError(errorMessage(err));
      setSaving(false);
    }
  };

  return (
    <Dialog title="Agent for this session" onClose={onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        {!list && !error && <p>Loading…</p>}
        {list && (
          <fieldset className="agent-choices">
            <legend>Agent</legend>
            {list.agents.map((agent) => (
              <label key={agent.name} className="check agent-choice">
                <input type="radio" name="agent" value={agent.name} checked={chosen === agent.name} onChange={() => setChosen(agent.name)} />
                <span>
                  <strong>{agent.name}</strong>
                  {agent.scope !== 'built-in' && <span className="agent-source"> ({agent.file ?? agent.scope})</span>}
                  <span className="agent-description">{agent.description}</span>
                </span>
              </label>
            ))}
          </fieldset>
        )}
        {list && list.problems.length > 0 && (
          <div className="agent-problems">
            <p className="hint">Agent files not used as written:</p>
            <ul>
              {list.problems.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          </div>
        )}
        <p className="hint">
          Used from the next message on; the change is recorded in the session's info. An agent only narrows what the permission mode allows.
        </p>
        {error && <p role="alert">{error}</p>}
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={saving || !list}>
            Use this agent
          </button>
        </div>
      </form>
    </Dialog>
  );
}

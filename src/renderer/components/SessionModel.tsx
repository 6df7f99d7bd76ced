/**
 * The session's model in the chat header (docs/DESIGN.md#session-model): a button naming
 * it that opens the picker for this session. The change takes effect at the next turn and
 * is recorded (the info dialog lists it); a refusal (the session is in use elsewhere) is
 * said in the dialog, and nothing changes. The model's window can be stated here too
 * (docs/DESIGN.md#the-models-window).
 */
import { useState } from 'react';
import type { SessionMeta } from '../../shared/types';
import { useBridge } from '../bridge/context';
import { useModelList } from '../state/model-list';
import { Dialog } from './Dialog';
import { ModelPicker } from './ModelPicker';
import { errorMessage } from '../lib/errors';

/**
 * `asking`: why a turn was refused until the model is chosen (another agent's model, from an
 * import): the dialog opens by itself and says so; `onAskSettled` when it closes.
 */
export function SessionModelButton({ meta, asking, onAskSettled }: { meta: SessionMeta; asking: string | null; onAskSettled: () => void }) {
  const [open, setOpen] = useState(false);
  const model = meta.model ?? 'default';
  const close = () => {
    setOpen(false);
    if (asking !== null) onAskSettled();
  };
  return (
    <>
      <button
        type="button"
        className="session-model"
        aria-haspopup="dialog"
        aria-label={`Model: ${model}`}
        title="The model this session uses; choose another"
        onClick={() => setOpen(true)}
      >
        <span className="head-prefix">Model: </span>
        {model}
      </button>
      {(open || asking !== null) && <SessionModelDialog meta={meta} reason={asking} onClose={close} />}
    </>
  );
}

function SessionModelDialog({ meta, reason, onClose }: { meta: SessionMeta; reason: string | null; onClose: () => void }) {
  const bridge = useBridge();
  const { list } = useModelList();
  // Asked to choose: the recorded name is another agent's, so nothing is chosen for the user.
  const [model, setModel] = useState(reason ? '' : (meta.model ?? ''));
  // Sent only once edited: left alone, what Loom knows of the window stays; emptied, it is learnt again.
  const [windowTokens, setWindowTokens] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const save = async () => {
    setSaving(true);
    try {
      const edited = windowTokens === null ? {} : { window: windowTokens.trim() ? Number(windowTokens) : null };
      await bridge.invoke('sessions.setModel', { id: meta.id, model: model.trim(), ...edited });
      onClose();
    } catch (err) {
      setError(errorMessage(err));
      setSaving(false);
    }
  };

  return (
    <Dialog title="Model for this session" onClose={onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        {reason && <p className="hint">{reason} Then send your message again.</p>}
        <ModelPicker label="Model" value={model} onChange={setModel} list={list} />
        <label className="field">
          <span>Context window of this model (tokens)</span>
          <input
            type="number"
            min={1000}
            step={1}
            placeholder="learnt from the server"
            value={windowTokens ?? ''}
            onChange={(e) => setWindowTokens(e.target.value)}
          />
        </label>
        <p className="hint">Used from the next message on; the change is recorded in the session's info. New sessions keep the default from Settings.</p>
        {error && <p role="alert">{error}</p>}
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={saving || !model.trim()}>
            Use this model
          </button>
        </div>
      </form>
    </Dialog>
  );
}

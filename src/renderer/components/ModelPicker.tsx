/**
 * A model name, picked from the server's list (state/model-list.ts) when it could be
 * fetched, typed otherwise: the list failing never stops anyone from naming a model. A
 * name the server does not list stays choosable, marked so.
 */
import { useId, useState } from 'react';
import type { ModelListState } from '../state/model-list';

/** The select's value for "type another name". */
const TYPE_A_NAME = '\u0000type';

/** `quietFailure`: another line on the page already says why the server cannot be reached (a failed connection test), so this one does not repeat it. */
export function ModelPicker({
  label,
  value,
  onChange,
  list,
  quietFailure = false,
}: {
  label: string;
  value: string;
  onChange: (model: string) => void;
  list: ModelListState;
  quietFailure?: boolean;
}) {
  const id = useId();
  const [typing, setTyping] = useState(false);
  const models = list.status === 'ready' ? list.models : [];
  const choosing = models.length > 0 && !typing;
  const known = models.includes(value);

  return (
    <div className="field model-picker">
      <label htmlFor={id}>{label}</label>
      {choosing ? (
        <select
          id={id}
          value={value}
          onChange={(event) => {
            if (event.target.value === TYPE_A_NAME) setTyping(true);
            else onChange(event.target.value);
          }}
        >
          {!value && (
            <option value="" disabled>
              Choose a model
            </option>
          )}
          {!known && value && <option value={value}>{value} (not on this server)</option>}
          {models.map((model) => (
            <option key={model} value={model}>
              {model}
            </option>
          ))}
          <option value={TYPE_A_NAME}>Type another name…</option>
        </select>
      ) : (
        <input id={id} value={value} onChange={(event) => onChange(event.target.value)} required spellCheck={false} autoComplete="off" autoFocus={typing} />
      )}
      <ListNote list={list} typing={typing} quietFailure={quietFailure} onChoose={() => setTyping(false)} />
    </div>
  );
}

function ListNote({ list, typing, quietFailure, onChoose }: { list: ModelListState; typing: boolean; quietFailure: boolean; onChoose: () => void }) {
  if (list.status === 'loading') return <span className="hint">Asking the server for its models…</span>;
  if (list.status === 'failed' && quietFailure) return <span className="hint">Type the model's name.</span>;
  if (list.status === 'failed') return <span className="hint">Could not list the server's models: {list.error} Type the model's name.</span>;
  if (list.models.length === 0) return <span className="hint">The server lists no models; type the model's name.</span>;
  if (!typing) return null;
  return (
    <button type="button" className="small" onClick={onChoose}>
      Choose from the server's {list.models.length} models
    </button>
  );
}

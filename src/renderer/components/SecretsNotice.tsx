/**
 * Shown once when the window starts: the names (never the values) of secret-looking
 * environment variables, which Loom keeps from its tools. Non-blocking and dismissible.
 */
import { useState } from 'react';

export function SecretsNotice({ names }: { names: string[] }) {
  const [dismissed, setDismissed] = useState(false);
  if (dismissed || names.length === 0) return null;
  return (
    <div className="banners">
      <div className="banner banner-warning" role="status" aria-label="Secret environment variables">
        <span className="banner-text">
          Secret-looking environment variables are set: <span className="mono">{names.join(', ')}</span>. Loom does not pass them to tools.
        </span>
        <button type="button" className="icon" aria-label="Dismiss the notice about secret variables" onClick={() => setDismissed(true)}>
          ×
        </button>
      </div>
    </div>
  );
}

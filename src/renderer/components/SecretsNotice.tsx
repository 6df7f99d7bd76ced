/**
 * Shown once when the window starts: the names (never the values) of secret-looking
 * environment variables that tools do not get (tools get an allowlist plus what the user
 * passes in Settings), so a tool that needs one is not a mystery. Non-blocking and dismissible.
 */
import { useState } from 'react';
import { BASE_TOOL_ENV } from '../../shared/settings';

export function SecretsNotice({ names }: { names: string[] }) {
  const [dismissed, setDismissed] = useState(false);
  if (dismissed || names.length === 0) return null;
  return (
    <div className="banners">
      <div className="banner banner-warning" role="status" aria-label="Secret environment variables">
        <span className="banner-text">
          Tools do not get these secret-looking environment variables: <span className="mono">{names.join(', ')}</span>. They get {BASE_TOOL_ENV.join(', ')} and
          the variables you name in Settings.
        </span>
        <button type="button" className="icon" aria-label="Dismiss the notice about secret variables" onClick={() => setDismissed(true)}>
          ×
        </button>
      </div>
    </div>
  );
}

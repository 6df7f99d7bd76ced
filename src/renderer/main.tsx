/** Entry point: connect the bridge, read the settings, render the window. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { connectBridge } from './bridge';
import { BridgeProvider } from './bridge/context';
import { SessionMetaContext } from './state/session-meta';
import { SessionMetaCache } from './state/session-meta-cache';
import './styles.css';
import { errorMessage } from './lib/errors';

async function start(root: HTMLElement): Promise<void> {
  const view = createRoot(root);
  const bridge = connectBridge();
  if (!bridge) {
    view.render(<Problem text="This page needs the address Loom printed when it started: it carries the access token. Open that URL." />);
    return;
  }
  try {
    const [settings, appInfo] = await Promise.all([bridge.invoke('settings.get', {}), bridge.invoke('app.info', {})]);
    // One cache for the page's lifetime, listening before anything asks it.
    const sessions = new SessionMetaCache(bridge);
    sessions.connect();
    view.render(
      <StrictMode>
        <BridgeProvider bridge={bridge}>
          <SessionMetaContext.Provider value={sessions}>
            <App initialSettings={settings} appInfo={appInfo} />
          </SessionMetaContext.Provider>
        </BridgeProvider>
      </StrictMode>,
    );
  } catch (err) {
    view.render(<Problem text={errorMessage(err)} />);
  }
}

function Problem({ text }: { text: string }) {
  return (
    <main className="problem">
      <h1>Loom</h1>
      <p role="alert">{text}</p>
    </main>
  );
}

void start(document.getElementById('root')!);

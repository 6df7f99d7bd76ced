/** Entry point: connect the bridge, read the settings, render the window. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { connectBridge } from './bridge';
import { prefetchSessionList } from './state/session-list';
import './styles.css';

async function start(root: HTMLElement): Promise<void> {
  const view = createRoot(root);
  const bridge = connectBridge();
  if (!bridge) {
    view.render(<Problem text="This page needs the address Loom printed when it started: it carries the access token. Open that URL." />);
    return;
  }
  prefetchSessionList(bridge);
  try {
    const [settings, appInfo] = await Promise.all([bridge.invoke('settings.get', {}), bridge.invoke('app.info', {})]);
    view.render(
      <StrictMode>
        <App bridge={bridge} initialSettings={settings} appInfo={appInfo} />
      </StrictMode>,
    );
  } catch (err) {
    view.render(<Problem text={(err as Error).message} />);
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

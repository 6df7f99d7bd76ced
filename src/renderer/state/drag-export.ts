/**
 * Dragging a session row out of the window yields its JSON export as a file. The desktop
 * app starts a native drag of a real file (main/adapters/drag-export.ts). The browser mode
 * hands Chromium a DownloadURL, set synchronously in dragstart, so its link is minted when
 * the pointer goes down on the row: a single-use ticket, never the access token
 * (docs/SECURITY.md#download-tickets).
 */
import { useCallback, useRef, type DragEvent } from 'react';
import type { DownloadTicket } from '../../shared/contract';
import { isDesktop } from '../bridge';
import { useBridge } from '../bridge/context';
import { errorMessage } from '../lib/errors';

export function useDragExport(onError: (message: string) => void) {
  const bridge = useBridge();
  const ready = useRef<{ id: string; ticket: DownloadTicket } | null>(null);

  /** On pointer down: the ticket is there by the time the pointer has moved far enough to drag. */
  const prepare = useCallback(
    (id: string) => {
      if (isDesktop()) return;
      ready.current = null;
      bridge.invoke('sessions.downloadTicket', { id }).then(
        (ticket) => {
          ready.current = { id, ticket };
        },
        (err: unknown) => onError(errorMessage(err)),
      );
    },
    [bridge, onError],
  );

  const start = useCallback(
    (event: DragEvent, id: string) => {
      if (isDesktop()) {
        event.preventDefault();
        bridge.invoke('sessions.startDrag', { id }).catch((err: unknown) => onError(errorMessage(err)));
        return;
      }
      // A ticket serves one drag: the next one mints its own.
      const prepared = ready.current;
      ready.current = null;
      if (prepared?.id !== id) {
        event.preventDefault();
        onError('The export was not ready to drag yet; drag the session again.');
        return;
      }
      const { ticket } = prepared;
      event.dataTransfer.effectAllowed = 'copy';
      event.dataTransfer.setData('DownloadURL', `${ticket.mimeType}:${ticket.filename}:${window.location.origin}${ticket.path}`);
      event.dataTransfer.setData('text/plain', ticket.filename);
    },
    [bridge, onError],
  );

  return { prepare, start };
}

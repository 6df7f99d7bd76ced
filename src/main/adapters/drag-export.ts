/**
 * Drag-export in the desktop app: the JSON export is written to a private temporary
 * folder as `<title or id>.json` and handed to the operating system's drag, which drops
 * it as a real file wherever the user lets go. The previous drag's file is removed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ExportFile } from '../../shared/contract';

/** A 32×32 document icon shown under the pointer while dragging. */
export const DRAG_ICON_DATA_URL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAYAAABzenr0AAAATklEQVR42u3XsQ0AMAgDQfbKKBk9M6TJArCDsRSKt/T9FTREsKlb+6SaDXBfyn0HtBEOQAvhAsgIJ0A6TAAAAAAAAAAAAAAjAM549cauAHwdLrynXILEAAAAAElFTkSuQmCC';

export class DragFiles {
  private folder: string | null = null;

  /** Writes the export to a fresh private folder and returns the file's path. */
  write(file: ExportFile): string {
    this.cleanUp();
    this.folder = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-drag-'));
    const target = path.join(this.folder, path.basename(file.filename));
    fs.writeFileSync(target, file.text, { mode: 0o600 });
    return target;
  }

  cleanUp(): void {
    if (this.folder) fs.rmSync(this.folder, { recursive: true, force: true });
    this.folder = null;
  }
}

/**
 * Dropping session exports anywhere on the window imports them. While files are dragged
 * over the window a drop target shows; the message box takes files dropped on it as
 * attachments (it calls preventDefault first, and the window then leaves them alone).
 */
import { useState, type DragEvent } from 'react';

const hasFiles = (event: DragEvent) => event.dataTransfer.types.includes('Files');

export function useImportDrop(importFiles: (files: File[]) => void) {
  const [dragging, setDragging] = useState(false);
  const handlers = {
    onDragOver(event: DragEvent) {
      if (!hasFiles(event)) return;
      if (event.defaultPrevented) return setDragging(false);
      event.preventDefault();
      event.dataTransfer.dropEffect = 'copy';
      setDragging(true);
    },
    onDragLeave(event: DragEvent) {
      // Moving between the window's own elements is no leaving.
      if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
    },
    onDrop(event: DragEvent) {
      setDragging(false);
      if (!hasFiles(event) || event.defaultPrevented) return;
      event.preventDefault();
      importFiles([...event.dataTransfer.files]);
    },
  };
  return { dragging, handlers };
}

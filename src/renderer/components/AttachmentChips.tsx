/**
 * The files attached to a message: a chip per file with its name (a thumbnail for an
 * image), and, in the composer, a button to remove it before sending.
 */
import type { Attachment } from '../../shared/attachments';

export function AttachmentChips({ files, onRemove }: { files: Attachment[]; onRemove: (index: number) => void }) {
  return (
    <ul className="attachments" aria-label="Attached files">
      {files.map((file, index) => (
        <li key={`${index}:${file.name}`} className="chip">
          {file.kind === 'image' ? <img className="chip-thumb" src={file.dataUrl} alt="" /> : <span aria-hidden="true">📄</span>}
          <span className="chip-name" title={file.name}>
            {file.name}
          </span>
          <button type="button" className="icon chip-remove" aria-label={`Remove ${file.name}`} onClick={() => onRemove(index)}>
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}

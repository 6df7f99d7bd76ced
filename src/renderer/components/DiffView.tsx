/**
 * A file change as the engine computed it (src/core/security/change-preview.ts): numbered
 * lines, added and removed marked by sign and colour, unchanged lines around them. Text
 * nodes only; long lines wrap and a long diff scrolls (the region takes focus, so the
 * keyboard scrolls it too).
 */
import type { ApprovalPreview, DiffLine } from '../../shared/approvals';

type FilePreview = Extract<ApprovalPreview, { kind: 'file' }>;

const MARK: Record<DiffLine['kind'], string> = { added: '+', removed: '−', context: '' };
const SPOKEN: Record<DiffLine['kind'], string> = { added: 'added', removed: 'removed', context: 'unchanged' };

export function DiffView({ preview }: { preview: FilePreview }) {
  const empty = preview.hunks.every((hunk) => hunk.lines.length === 0);
  return (
    <>
      {preview.note && <p className="diff-note">{preview.note}</p>}
      <div className="diff-view" role="region" aria-label={`Changes to ${preview.path}`} tabIndex={0}>
        {empty ? (
          <p className="diff-empty">{preview.newFile ? 'An empty new file.' : 'No lines change.'}</p>
        ) : (
          <table className="diff">
            <thead className="visually-hidden">
              <tr>
                <th scope="col">Line before</th>
                <th scope="col">Line after</th>
                <th scope="col">Change</th>
                <th scope="col">Text</th>
              </tr>
            </thead>
            {preview.hunks.map((hunk, h) => (
              <tbody key={`${hunk.oldStart}-${hunk.newStart}-${h}`}>
                {!preview.newFile && (
                  <tr className="diff-hunk">
                    <td colSpan={4}>
                      From line {hunk.oldStart} (now line {hunk.newStart})
                    </td>
                  </tr>
                )}
                {hunk.lines.map((line, i) => (
                  <tr key={i} className={`diff-${line.kind}`}>
                    <td className="diff-num">{line.oldLine ?? ''}</td>
                    <td className="diff-num">{line.newLine ?? ''}</td>
                    <td className="diff-mark">
                      <span aria-hidden="true">{MARK[line.kind]}</span>
                      <span className="visually-hidden">{SPOKEN[line.kind]}</span>
                    </td>
                    <td className="diff-text">{line.text}</td>
                  </tr>
                ))}
              </tbody>
            ))}
          </table>
        )}
      </div>
    </>
  );
}

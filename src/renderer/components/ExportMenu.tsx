/** The chat header's Export button: a menu of the three export formats. */
import { EXPORT_FORMATS, type ExportFormat } from '../../shared/contract';
import { MenuButton } from './MenuButton';

export const EXPORT_LABELS: Record<ExportFormat, string> = { json: 'JSON (can be imported)', markdown: 'Markdown', html: 'HTML' };

export function ExportMenu({ disabled, onExport }: { disabled: boolean; onExport: (format: ExportFormat) => void }) {
  return (
    <MenuButton
      menuLabel="Export as"
      disabled={disabled}
      items={EXPORT_FORMATS.map((format) => ({ key: format, label: EXPORT_LABELS[format], onSelect: () => onExport(format) }))}
    >
      Export
    </MenuButton>
  );
}

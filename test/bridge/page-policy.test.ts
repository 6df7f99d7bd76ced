/** The page's own CSP meta tag matches the policy the servers send, and export file names are safe. */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exportFileName } from '../../src/shared/export-name';
import { CONTENT_SECURITY_POLICY } from '../../src/shared/security-policy';

describe('page policy', () => {
  it('index.html carries the same CSP as the response headers', () => {
    const html = fs.readFileSync('src/renderer/index.html', 'utf8');
    const meta = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/.exec(html);
    expect(meta?.[1]).toBe(CONTENT_SECURITY_POLICY);
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
  });
});

describe('export file names', () => {
  const titled = (title: string | null, summary: string | null = null) => ({ id: '0123456789abcdef', title, summary });

  it('use the title, else the listing summary, else the id prefix, with unsafe characters replaced', () => {
    expect(exportFileName(titled('Heron notes'))).toBe('Heron notes.loom');
    expect(exportFileName(titled(null, 'Naming a heron'), 'html')).toBe('Naming a heron.html');
    expect(exportFileName(titled(null))).toBe('Session 01234567.loom');
    expect(exportFileName(titled('a/b\\c:d*e?f"g<h>i|j'))).toBe('a_b_c_d_e_f_g_h_i_j.loom');
    expect(exportFileName(titled('..'))).toBe('session.loom');
    expect(exportFileName(titled(' .hidden. '), 'markdown')).toBe('hidden.md');
    expect(exportFileName(titled('x'.repeat(300))).length).toBe(125);
  });
});

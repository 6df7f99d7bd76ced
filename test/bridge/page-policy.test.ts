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
  it('use the title, else the id, with unsafe characters replaced', () => {
    expect(exportFileName('Heron notes')).toBe('Heron notes.json');
    expect(exportFileName('a/b\\c:d*e?f"g<h>i|j')).toBe('a_b_c_d_e_f_g_h_i_j.json');
    expect(exportFileName('..')).toBe('session.json');
    expect(exportFileName(' .hidden. ', 'markdown')).toBe('hidden.md');
    expect(exportFileName('x'.repeat(300)).length).toBe(125);
  });
});

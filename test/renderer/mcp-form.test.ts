/** The MCP server dialog's text fields to an mcp.json entry and back (src/renderer/lib/mcp-form.ts). */
import { describe, expect, it } from 'vitest';
import { EMPTY_MCP_FORM, editOf, formOf } from '../../src/renderer/lib/mcp-form';

describe('the MCP server form', () => {
  it('shows saved env values as *** and keeps them as saved unless retyped', () => {
    const form = formOf('files', {
      transport: 'stdio',
      command: 'srv',
      args: ['-y', 'pkg'],
      envNames: ['TOKEN', 'ROOT'],
      sandbox: false,
      readOnly: false,
      readOnlyTools: ['list', 'read'],
      disabled: false,
    });
    expect(form).toMatchObject({ args: '-y\npkg', env: 'TOKEN=***\nROOT=***', readOnlyTools: 'list, read', sandbox: false });
    expect(editOf({ ...form, env: 'TOKEN=***\nROOT=/srv\n\n' })).toEqual({
      edit: {
        transport: 'stdio',
        command: 'srv',
        args: ['-y', 'pkg'],
        env: { TOKEN: null, ROOT: '/srv' },
        sandbox: false,
        readOnly: false,
        readOnlyTools: ['list', 'read'],
        disabled: false,
      },
    });
  });

  it('reads headers as Name: value, a value with colons whole', () => {
    const edited = editOf({ ...EMPTY_MCP_FORM, transport: 'http', url: ' https://x.example/mcp ', headers: 'Authorization: Bearer a:b\nX-Key: ***' });
    expect(edited).toMatchObject({ edit: { transport: 'http', url: 'https://x.example/mcp', headers: { Authorization: 'Bearer a:b', 'X-Key': null } } });
  });

  it('names the line it cannot read', () => {
    expect(editOf({ ...EMPTY_MCP_FORM, command: 'x', env: 'A=1\n=2' })).toEqual({ error: 'Line 2 of the environment list needs NAME=value.' });
    expect(editOf({ ...EMPTY_MCP_FORM, transport: 'http', headers: 'Bad Name: 1' })).toEqual({
      error: 'Line 1 of the header list: Bad Name is not a name Loom can pass on (a header name is one word of letters, digits and -).',
    });
  });
});

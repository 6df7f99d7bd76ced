/**
 * Every method of the bridge contract refuses malformed input before any handler runs,
 * with a one-line message naming the method — over the real HTTP transport and through
 * the dispatcher the Electron IPC handler uses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { METHOD_NAMES, contract, type MethodName } from '../../src/shared/contract';
import { dispatch } from '../../src/backend/dispatch';
import { startBridgeServer, type BridgeServer } from '../../src/server/http-server';
import { recordingHandlers, request } from './helpers';

/** Inputs no method accepts: not an object, an unknown field, and each field with a value of the wrong type. */
function malformedInputs(method: MethodName): { label: string; input: unknown }[] {
  const schema = contract[method].input as unknown as z.ZodObject;
  const wrongFields = Object.keys(schema.shape).map((key) => ({ label: `${key} as an object`, input: { [key]: { wrong: 1 } } }));
  return [
    { label: 'a string', input: 'not an object' },
    { label: 'an array', input: [1, 2] },
    { label: 'null', input: null },
    { label: 'an unknown field', input: { unexpected_field: true } },
    ...wrongFields,
  ];
}

describe('contract input validation', () => {
  const { handlers, calls } = recordingHandlers();
  let server: BridgeServer;
  beforeAll(async () => {
    server = await startBridgeServer({ handlers, subscribe: () => () => {}, staticDir: null, token: 't0ken' });
  });
  afterAll(() => server.close());

  it('covers every method of the issue', () => {
    expect(METHOD_NAMES).toEqual(
      expect.arrayContaining([
        'app.info',
        'sessions.list',
        'sessions.search',
        'sessions.info',
        'sessions.transcript',
        'sessions.rename',
        'sessions.fork',
        'sessions.archive',
        'sessions.unarchive',
        'sessions.export',
        'sessions.import',
        'sessions.delete',
        'chat.create',
        'chat.send',
        'chat.stop',
        'chat.compact',
        'chat.approve',
        'chat.answer',
        'settings.get',
        'settings.set',
        'sessions.branches',
        'sessions.family',
        'chat.edit',
        'chat.regenerate',
        'chat.reply',
        'sessions.setModel',
        'models.list',
        'models.test',
      ]),
    );
  });

  for (const method of METHOD_NAMES) {
    it(`${method} rejects malformed input over HTTP and IPC dispatch`, async () => {
      for (const { label, input } of malformedInputs(method)) {
        const res = await request(server.port, {
          method: 'POST',
          path: `/api/${method}`,
          headers: { host: `127.0.0.1:${server.port}`, 'x-loom-token': 't0ken', 'content-type': 'application/json' },
          body: JSON.stringify(input),
        });
        expect(res.status, `${method} with ${label}`).toBe(400);
        const body = JSON.parse(res.body);
        expect(body.ok).toBe(false);
        expect(body.error.code).toBe('bad_input');
        expect(body.error.message).toMatch(new RegExp(`^Invalid input for ${method.replace('.', '\\.')}: `));
        expect(body.error.message).not.toContain('\n');

        const viaIpc = await dispatch(handlers, method, input);
        expect(viaIpc.ok, `${method} with ${label} via dispatch`).toBe(false);
      }
      expect(calls).toEqual([]);
    });
  }

  it('names the field and the rule in the message', async () => {
    const result = await dispatch(handlers, 'sessions.rename', { id: 'abc', title: '   ' });
    expect(result).toEqual({
      ok: false,
      error: { code: 'bad_input', message: 'Invalid input for sessions.rename: title: A title cannot be empty.' },
    });
  });

  it('refuses a method that is not in the contract', async () => {
    expect(await dispatch(handlers, 'fs.readFile', {})).toMatchObject({ ok: false, error: { code: 'unknown_method' } });
    expect(await dispatch(handlers, '__proto__', {})).toMatchObject({ ok: false, error: { code: 'unknown_method' } });
    expect(await dispatch(handlers, 'toString', {})).toMatchObject({ ok: false, error: { code: 'unknown_method' } });
  });

  it('passes validated, trimmed input to the handler and its answer back', async () => {
    const ok = recordingHandlers({ 'sessions.rename': { id: 'abc', title: 'New' } });
    const result = await dispatch(ok.handlers, 'sessions.rename', { id: ' abc ', title: ' New ' });
    expect(result).toEqual({ ok: true, value: { id: 'abc', title: 'New' } });
    expect(ok.calls).toEqual([{ method: 'sessions.rename', input: { id: 'abc', title: 'New' } }]);
  });
});

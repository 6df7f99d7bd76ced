/**
 * Issue 22's defect, as the user met it: a fork shares its parent's messages without
 * copying them, and `loom --search` must find it by them, before and after the parent is
 * archived.
 */
import { describe, expect, it } from 'vitest';
import { announcedId, runLoom, useLoomFixture } from './support';

const ctx = useLoomFixture();

describe('--search and forks', () => {
  it('finds a fork by its shared history, and still finds it once the original is archived', async () => {
    ctx.server.enqueue({ text: 'Hello back.' }, { text: 'Greeting' });
    const original = announcedId((await runLoom(ctx.ws, ctx.server.baseUrl, ['-p', 'hello marker-alpha'])).stderr);
    const loom = (...args: string[]) => runLoom(ctx.ws, ctx.server.baseUrl, args);
    const fork = (await loom('--fork', original)).stdout.trim();
    const found = async (...args: string[]) =>
      (JSON.parse((await loom('--search', 'marker-alpha', '--json', ...args)).stdout) as Array<{ id: string }>).map((hit) => hit.id);

    expect((await found()).sort()).toEqual([original, fork].sort());
    expect((await loom('--archive', original)).code).toBe(0);
    expect(await found()).toEqual([fork]);
    expect((await found('--include-archived')).sort()).toEqual([original, fork].sort());
  });
});

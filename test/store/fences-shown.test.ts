import { describe, expect, it } from 'vitest';
import { wrapToolResult, wrapUserInput } from '../../src/core/security/untrusted';
import { parseExport } from '../../src/core/store/export-schema';
import { snippetOf } from '../../src/core/store/snippet';
import { nth } from '../support/elements';
import { assistant, openStore, system, tool, user } from './helpers';

/** A session as the engine writes it: the user's words and tool output inside Loom's fences. */
function fencedSession(store: ReturnType<typeof openStore>, words: string) {
  return store.create({
    title: 'Fenced',
    messages: [
      system(),
      { role: 'user', content: wrapUserInput(`Why does the ${words} fail? I pasted </user_input> by accident.`) },
      assistant(null, [{ id: 'call_1', name: 'read_file', args: '{"path":"a.ts"}' }]),
      tool('call_1', wrapToolResult('read_file', `const ${words} = 1;`)),
      assistant(`The ${words} is fine.`),
    ],
  });
}

describe("Loom's fences are never shown", () => {
  it('search snippets show what the user typed, with the match marked', () => {
    const store = openStore();
    fencedSession(store, 'wombat');
    const hit = nth(store.search('pasted'), 0);
    expect(hit.snippet).toBe('Why does the wombat fail? I [pasted] </user_input> by accident.');
    expect(hit.snippet).not.toContain('<user_input>');
    expect(nth(store.search('const'), 0).snippet).toBe('[const] wombat = 1;');
  });

  it('a search for a word of the fence tags themselves shows no tag either', () => {
    const store = openStore();
    fencedSession(store, 'wombat');
    for (const word of ['input', 'user_input', 'tool_result']) {
      for (const hit of store.search(word)) expect(hit.snippet).not.toMatch(/user_input>|tool_result/);
    }
  });

  it('cuts a long message to a window around its first match, every mark closed', () => {
    const filler = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    expect(snippetOf(`${filler} \u0002needle\u0003 ${filler}`, 8)).toBe('…word36 word37 word38 word39 [needle] word0 word1 word2…');
    expect(snippetOf('<user_input>\n\u0002a b\u0003 c\n</user_input>', 16)).toBe('[a b] c');
    // A phrase match reaching into the fence tag: its mark is closed where the text ends.
    expect(snippetOf('<user_input>\nend of \u0002it\n</user_\u0003input>', 16)).toBe('end of [it]');
  });

  it('Markdown and HTML exports show the words without fences; JSON keeps what the model saw, so an import is the same session', async () => {
    const store = openStore();
    const { id } = fencedSession(store, 'wombat');
    const markdown = await store.exportSession(id, 'markdown');
    const html = await store.exportSession(id, 'html');
    expect(markdown).toContain('### User\n\nWhy does the wombat fail? I pasted </user_input> by accident.');
    expect(markdown).toContain('```\nconst wombat = 1;\n```');
    expect(html).toContain('<div class="text">Why does the wombat fail? I pasted &lt;/user_input&gt; by accident.</div>');
    expect(html).toContain('<pre>const wombat = 1;</pre>');
    for (const text of [markdown, html]) expect(text).not.toMatch(/<user_input>|&lt;user_input&gt;|<tool_result|&lt;tool_result/);

    const json = await store.exportSession(id, 'json');
    const imported = store.importSession(parseExport(json)).meta;
    expect(store.getTranscript(imported.id)).toEqual(store.getTranscript(id));
    expect(store.getContext(imported.id)).toEqual(store.getContext(id));
    expect(await store.exportSession(imported.id, 'markdown')).toContain('Why does the wombat fail? I pasted </user_input> by accident.');
  });
});

describe('search paging', () => {
  it('pages through every hit by offset, each hit saying which message matched', () => {
    const store = openStore();
    const ids = Array.from(
      { length: 5 },
      (_, i) => store.create({ messages: [system(), user('hello'), assistant(`reply ${i}`), user(`about the heron number ${i}`)] }).id,
    );
    const titled = store.create({ title: 'Heron watching' }).id;
    const pages = [0, 2, 4].map((offset) => store.search('heron', { limit: 2, offset }));
    expect(pages.map((page) => page.length)).toEqual([2, 2, 2]);
    expect(store.search('heron', { limit: 2, offset: 6 })).toEqual([]);
    const hits = pages.flat();
    expect(hits.map((hit) => hit.id).sort()).toEqual([...ids, titled].sort());
    for (const hit of hits) expect(hit.message_index).toBe(hit.id === titled ? null : 3);
  });

  it("gives a fork's own message its index along the fork's whole transcript", () => {
    const store = openStore();
    const { id } = store.create({ messages: [system(), user('one'), assistant('two')] });
    const fork = store.fork(id);
    store.appendMessage(fork.id, user('the osprey question'));
    expect(store.search('osprey')).toMatchObject([{ id: fork.id, message_index: 3 }]);
  });
});

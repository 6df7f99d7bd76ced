/**
 * A user message with images (docs/DESIGN.md#attachments) is stored once, with its text in
 * `content` (searchable) and its images beside it; forks share it, exports keep it, and an
 * import of the JSON gives the same message back.
 */
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/shared/types';
import { nth } from '../support/elements';
import { GIF_URL, PNG_URL } from '../support/images';
import { assistant, openStore, system } from './helpers';
import { parseExport } from '../../src/core/store/export-schema';

const withImages: ChatMessage = {
  role: 'user',
  content: [
    { type: 'text', text: '<user_input>\nWhat is in these pictures?\n</user_input>' },
    { type: 'image_url', image_url: { url: PNG_URL } },
    { type: 'image_url', image_url: { url: GIF_URL } },
  ],
};
const conversation = (): ChatMessage[] => [system(), withImages, assistant('A red dot and a white dot.')];

const rowCount = (store: ReturnType<typeof openStore>) => (store.db.prepare('SELECT count(*) AS n FROM messages').get() as { n: number }).n;

describe('image parts in the store', () => {
  it('reads a message with images back as it was written, in the transcript and the context', () => {
    const store = openStore();
    const { id } = store.create({ messages: conversation() });
    expect(store.getTranscript(id)[1]).toEqual(withImages);
    expect(store.getContext(id)[1]).toEqual(withImages);
    // The text column holds only the words: the full-text index never reads image bytes.
    const row = store.db.prepare("SELECT content, images FROM messages WHERE role = 'user'").get() as { content: string; images: string };
    expect(row.content).toBe('<user_input>\nWhat is in these pictures?\n</user_input>');
    expect(JSON.parse(row.images)).toEqual([PNG_URL, GIF_URL]);
    expect(store.search('pictures').map((hit) => hit.id)).toEqual([id]);
    expect(store.search(PNG_URL.slice(30, 50))).toEqual([]);
  });

  it('leaves a message without images a plain string', () => {
    const store = openStore();
    const plain: ChatMessage = { role: 'user', content: 'Just words' };
    const { id } = store.create({ messages: [system(), plain] });
    expect(store.getTranscript(id)[1]).toEqual(plain);
    expect((store.db.prepare("SELECT images FROM messages WHERE role = 'user'").get() as { images: null }).images).toBeNull();
  });

  it('shares the message with a fork: no second copy of its images', () => {
    const store = openStore();
    const { id } = store.create({ messages: conversation() });
    const rows = rowCount(store);
    const fork = store.fork(id, 2);
    expect(rowCount(store)).toBe(rows);
    expect(store.getTranscript(fork.id)).toEqual(conversation().slice(0, 2));
    expect(store.getContext(fork.id).at(-1)).toEqual(withImages);
  });

  it('keeps the images in the JSON export, and an import gives the same message back', async () => {
    const store = openStore();
    const { id } = store.create({ title: 'Two dots', messages: conversation() });
    const text = await store.exportSession(id);
    const doc = JSON.parse(text);
    expect(doc.version).toBe(3);
    expect(doc.session.transcript[1]).toEqual(withImages);

    const other = openStore();
    const { meta } = other.importSession(parseExport(text));
    expect(other.getTranscript(meta.id)).toEqual(conversation());
    expect(other.getContext(meta.id)[1]).toEqual(withImages);
  });

  it('shows the images in the HTML export and embeds them in the Markdown export', async () => {
    const store = openStore();
    const { id } = store.create({ messages: conversation() });
    const html = await store.exportSession(id, 'html');
    expect(html).toContain(`<img src="${PNG_URL}" alt="Image 1"><img src="${GIF_URL}" alt="Image 2">`);
    expect(html).toContain('img-src data:');
    const markdown = await store.exportSession(id, 'markdown');
    expect(markdown).toContain(`What is in these pictures?`);
    expect(markdown).toContain(`![Image 1](${PNG_URL})\n\n![Image 2](${GIF_URL})`);
  });

  it('shows attached text files without their fences in search snippets and in the Markdown and HTML exports', async () => {
    const store = openStore();
    const withFile: ChatMessage = {
      role: 'user',
      content: [
        { type: 'text', text: '<user_input>\nRead this\n</user_input>\n\n<attached_file name="herons.txt">\nHerons wade in shallow water.\n</attached_file>' },
        { type: 'image_url', image_url: { url: PNG_URL } },
      ],
    };
    const { id } = store.create({ title: 'Birds', messages: [system(), withFile, assistant('Noted.')] });
    const hit = nth(store.search('wade'), 0);
    expect(hit.snippet).toContain('[wade]');
    expect(hit.snippet).not.toMatch(/attached_file|user_input/);
    const markdown = await store.exportSession(id, 'markdown');
    expect(markdown).toContain('### User\n\nRead this\n\n**Attached file** `herons.txt`\n\n```\nHerons wade in shallow water.\n```');
    expect(markdown).not.toMatch(/attached_file|user_input/);
    const html = await store.exportSession(id, 'html');
    expect(html).toContain('<div class="text">Read this</div><p>Attached file <code>herons.txt</code></p><pre>Herons wade in shallow water.</pre><img');
    expect(html).not.toMatch(/attached_file|user_input/);
  });

  it('refuses an import whose image is not an image, naming where, and stores nothing', async () => {
    const store = openStore();
    const { id } = store.create({ messages: conversation() });
    const doc = JSON.parse(await store.exportSession(id));
    doc.session.transcript[1].content[1].image_url.url = `data:image/png;base64,${Buffer.from('MZ not a picture').toString('base64')}`;
    const before = store.list().length;
    expect(() => store.importSession(parseExport(JSON.stringify(doc)))).toThrow(
      'Not a valid Loom session export: session.transcript.1.content.1.image_url.url: not an image Loom accepts: its bytes are not a PNG image.',
    );
    expect(store.list().length).toBe(before);
  });

  it('refuses image parts in a version 2 document, which had none', async () => {
    const store = openStore();
    const { id } = store.create({ messages: conversation() });
    const doc = { ...JSON.parse(await store.exportSession(id)), version: 2 };
    expect(() => store.importSession(parseExport(JSON.stringify(doc)))).toThrow(/^Not a valid Loom session export: session\.messages\.1\.content/);
  });
});

/**
 * Stored text the model wrote or read earlier (memories, old transcripts) comes back as
 * data, not instructions: it is fenced in a tag that says so, and any copy of the closing
 * tag inside the text is defused so the text cannot end the fence early.
 */
export function dataBlock(tag: string, note: string, body: string): string {
  const fence = new RegExp(`<(/?)(${tag})`, 'gi');
  const safe = body.replace(fence, (_m, slash: string, name: string) => `&lt;${slash}${name}`);
  return `<${tag} note="${note}">\n${safe}\n</${tag}>`;
}

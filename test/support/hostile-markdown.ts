/**
 * A reply a hostile model could write, for the HTML export's tests: each attack (a script,
 * an image's onerror, javascript: and data: links, raw HTML, a fenced block that tries to
 * close its own <code> and <pre>) sits among the Markdown the export must still render.
 * Every attack that ran would set window.pwned.
 */
export const HOSTILE_REPLY = [
  '# Heron report',
  '',
  'Herons <script>window.pwned = 1</script> wade <img src=x onerror="window.pwned = 2"> slowly.',
  '',
  '- [a link](javascript:window.pwned=3)',
  '- [another](data:text/html,<script>window.pwned=4</script>)',
  '- [the source](https://example.com/herons "Herons")',
  '',
  '> Stand still, then strike.',
  '',
  '```js',
  'const strike = "</code></pre><script>window.pwned = 5</script>";',
  '```',
  '',
  '<iframe src="javascript:window.pwned=6"></iframe>',
  '',
  '<a href="javascript:window.pwned=7" onclick="window.pwned=8">raw link</a>',
].join('\n');

/**
 * Secret detection: redaction of secret-looking values in audit logs, exports and model
 * errors, and the names of secret-looking environment variables (for the notice; tools get
 * an allowlisted environment whatever the names, see tool-env.ts).
 *
 * The formats are secretlint's recommended preset, generated at build time into
 * secret-rules.generated.ts (scripts/generate-secret-rules.mjs), plus Loom's own below:
 * formats the preset lacks, and looser forms of some it has.
 */
import { keywordScanner, type KeywordScanner } from './keyword-scanner';
import type { SecretPattern } from './secret-pattern';
import { SECRETLINT_PATTERNS } from './secret-rules.generated';

export const REDACTED = '[REDACTED]';

/** Any private key block, however short, or cut off before its END line; first, so no other pattern splits it. */
const PRIVATE_KEY_BLOCKS: SecretPattern[] = [
  { rule: 'loom/private-key', pattern: /-----BEGIN[A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END[A-Z ]*PRIVATE KEY-----|$)/, keywords: ['private key'] },
];

const LOOM_FORMATS: SecretPattern[] = [
  // The preset's OpenAI, Anthropic and GitHub rules want whole keys (checksums, exact
  // lengths); a key cut short in a tool's output still gives most of it away.
  { rule: 'loom/sk-key', pattern: /\bsk-[A-Za-z0-9_-]{20,}/, keywords: ['sk-'] },
  { rule: 'loom/stripe', pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}|\bwhsec_[A-Za-z0-9]{20,}/, keywords: ['k_live_', 'k_test_', 'whsec_'] },
  {
    rule: 'loom/github-token',
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})/,
    keywords: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'],
  },
  { rule: 'loom/google-api-key', pattern: /\bAIza[0-9A-Za-z_-]{35}/, keywords: ['aiza'] },
  { rule: 'loom/google-oauth-secret', pattern: /\bGOCSPX-[A-Za-z0-9_-]{28}/, keywords: ['gocspx-'] },
  { rule: 'loom/jwt', pattern: /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/, keywords: ['eyj'] },
  {
    rule: 'loom/azure-key',
    pattern: /\b(?:AccountKey|SharedAccessKey)=(?<secret>[A-Za-z0-9+/=]{20,})/i,
    keywords: ['accountkey=', 'sharedaccesskey='],
    secretGroup: 'secret',
  },
  { rule: 'loom/sas-signature', pattern: /[?&]sig=(?<secret>[A-Za-z0-9%+/=]{20,})/i, keywords: ['sig='], secretGroup: 'secret' },
  { rule: 'loom/twilio-key', pattern: /\bSK[0-9a-fA-F]{32}\b/, keywords: ['sk'] },
  { rule: 'loom/pypi', pattern: /\bpypi-[A-Za-z0-9_-]{50,}/, keywords: ['pypi-'] },
  { rule: 'loom/discord-webhook', pattern: /discord(?:app)?\.com\/api\/webhooks\/\d+\/(?<secret>[\w-]{20,})/i, keywords: ['discord'], secretGroup: 'secret' },
  { rule: 'loom/bearer', pattern: /\bBearer\s+(?<secret>[A-Za-z0-9._~+/-]{20,}=*)/, keywords: ['bearer'], secretGroup: 'secret' },
  { rule: 'loom/basic-auth-header', pattern: /\bAuthorization:\s*Basic\s+(?<secret>[A-Za-z0-9+/]{8,}=*)/i, keywords: ['authorization'], secretGroup: 'secret' },
  /** A DSN's key in the user part: `https://<32 hex>@o1.ingest.sentry.io/2`. */
  { rule: 'loom/url-key', pattern: /:\/\/(?<secret>[0-9a-f]{32,})(?::[0-9a-f]*)?@/i, keywords: ['://'], secretGroup: 'secret' },
  /** `redis://:password@host`, `https://user:password@host`: keep the user and host. */
  { rule: 'loom/url-credentials', pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:(?<secret>[^\s@/]+)@/i, keywords: ['://'], secretGroup: 'secret' },
];

/** The names an assignment's value is a secret under (`MYSQL_PWD`, not the shell's `PWD`). */
const SECRET_WORDS = ['api_key', 'api-key', 'apikey', 'secret', 'token', 'password', 'passwd', '_pwd', 'cookie', 'credential'];

/**
 * `api_key=...`, `"password": "..."` and the like: keep the name, hide the value. Last, so a
 * known format under a secret name is hidden whole. Quotes may come escaped (`\"`, `\\\"`…):
 * JSON inside JSON, like a tool call's arguments.
 */
const ASSIGNMENT: SecretPattern = {
  rule: 'loom/assignment',
  pattern: new RegExp(String.raw`(?:${SECRET_WORDS.join('|')})[A-Za-z0-9_]*\\*["']?\s*[:=]\s*\\*["']?(?<secret>[^\s"',;\\]{8,})`, 'i'),
  keywords: SECRET_WORDS,
  secretGroup: 'secret',
};

interface CompiledPattern {
  regex: RegExp;
  keywords: string[];
  secretGroup?: string;
}

interface CompiledPatterns {
  patterns: CompiledPattern[];
  /** Most text (exports redact every string of a session) holds no keyword, so no pattern runs on it. */
  keywordsIn: KeywordScanner;
}

/**
 * Compiled on the first redaction, not when the module loads: `loom --list-sessions` loads
 * the store, and with it the export's redaction, but never redacts (docs/DESIGN.md#command-line).
 */
let compiled: CompiledPatterns | undefined;

function compiledPatterns(): CompiledPatterns {
  if (compiled) return compiled;
  const patterns = [...PRIVATE_KEY_BLOCKS, ...SECRETLINT_PATTERNS, ...LOOM_FORMATS, ASSIGNMENT].map((p) => ({
    // `d` gives the secret group's position; `g` replaces every match.
    regex: new RegExp(p.pattern.source, [...new Set(`${p.pattern.flags}dg`)].join('')),
    keywords: p.keywords,
    secretGroup: p.secretGroup,
  }));
  return (compiled = { patterns, keywordsIn: keywordScanner(patterns.flatMap((p) => p.keywords)) });
}

export function redactSecrets(text: string): string {
  const { patterns, keywordsIn } = compiledPatterns();
  const found = keywordsIn(text);
  if (found.length === 0) return text;
  let out = text;
  for (const pattern of patterns) {
    // A keyword found inside a longer one (`sk-` in `sk-ant-api0`) counts too.
    if (pattern.keywords.some((keyword) => found.some((f) => f.includes(keyword)))) out = redactMatches(out, pattern);
  }
  return out;
}

/** Replaces each match (or its secret group) with REDACTED. */
function redactMatches(text: string, { regex, secretGroup }: CompiledPattern): string {
  let out = '';
  let kept = 0;
  for (const match of unescapedView(text).matchAll(regex)) {
    const span = secretGroup ? match.indices?.groups?.[secretGroup] : match.indices?.[0];
    if (!span) continue;
    out += text.slice(kept, span[0]) + REDACTED;
    kept = span[1];
  }
  return kept === 0 ? text : out + text.slice(kept);
}

/**
 * The text with `\n`, `\r` and `\t` escapes (JSON inside JSON: a tool call's arguments)
 * as two spaces: same length, so positions carry over, but a secret at the start of an
 * escaped line now starts a word, as the patterns' `\b` and lookbehinds expect.
 */
function unescapedView(text: string): string {
  return text.includes('\\') ? text.replace(/\\[nrt]/g, '  ') : text;
}

/** `*_TOKEN`, `AWS_SECRET_ACCESS_KEY`, `GPG_KEY`, `SSH_AUTH_SOCK`, `MYSQL_PWD`; not `KEYBOARD_LAYOUT` or `PWD`. */
const SECRET_NAME = /TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|APIKEY|COOKIE|WEBHOOK|_PWD$|(^|_)(KEYS?|AUTH|PASS|PAT|PRIVATE|DSN|SK)(_|$)/i;

/**
 * Names (never values) of environment variables that look like secrets: by name, or by a
 * value that carries one (`DATABASE_URL=postgres://app:pw@db/x`, a bare `sk-…` key).
 */
export function secretEnvNames(env: NodeJS.ProcessEnv = process.env): string[] {
  return Object.keys(env)
    .filter((name) => {
      const value = env[name] ?? '';
      return value !== '' && (SECRET_NAME.test(name) || redactSecrets(value) !== value);
    })
    .sort();
}

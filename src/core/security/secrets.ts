/**
 * Secret detection: names of secret-looking environment variables (warned about by name,
 * never handed to tools) and redaction of secret-looking values in audit logs and exports.
 */
/** `*_TOKEN`, `AWS_SECRET_ACCESS_KEY`, `GPG_KEY`, `SSH_AUTH_SOCK`; not `KEYBOARD_LAYOUT`. */
const SECRET_NAME = /TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|APIKEY|(^|_)(KEYS?|AUTH|PASS|PAT|PRIVATE)(_|$)/i;

const SECRET_VALUE_PATTERNS: RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{40,}\b/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b/g,
  /\b(Bearer)\s+[A-Za-z0-9._~+/-]{20,}=*/g,
];
/** `https://user:password@host`: keep the user and host, hide the password. */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)([^\s@/]+)(@)/gi;
/**
 * `api_key=...`, `"password": "..."` and the like: keep the name, hide the value. Quotes may
 * come escaped (`\"`, `\\\"`…): JSON inside JSON, like a tool call's arguments.
 */
const ASSIGNMENT = /\b([A-Za-z0-9_]*(?:api[_-]?key|secret|token|password|passwd)[A-Za-z0-9_]*)(\\*["']?\s*[:=]\s*\\*["']?)([^\s"',;\\]{8,})/gi;

/*
 * Cheap pre-checks, one scan each: a pattern can only match text containing its literal
 * part, and most text (exports redact every string of a session) contains none, so the
 * costlier patterns (URL_CREDENTIALS and ASSIGNMENT backtrack at every word) are skipped.
 */
/** The literal start of each SECRET_VALUE_PATTERNS entry. */
const VALUE_PREFIXES = /-----BEGIN |sk-|gh[pousr]_|github_pat_|xox[abposr]-|AKIA|AIza|eyJ|Bearer/;
/** The keyword every ASSIGNMENT name contains. */
const ASSIGNMENT_KEYWORDS = /api[_-]?key|secret|token|password|passwd/i;
/** Any of the above, or URL_CREDENTIALS' `://`, ignoring case (a superset is still sound). */
const MAY_HOLD_SECRET = new RegExp(`${VALUE_PREFIXES.source}|://|${ASSIGNMENT_KEYWORDS.source}`, 'i');

export const REDACTED = '[REDACTED]';

export function redactSecrets(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  let out = text;
  if (VALUE_PREFIXES.test(out)) {
    for (const pattern of SECRET_VALUE_PATTERNS) {
      out = out.replace(pattern, (match, bearer?: string) =>
        typeof bearer === 'string' && match.startsWith(bearer) ? `${bearer} ${REDACTED}` : REDACTED,
      );
    }
  }
  if (out.includes('://')) {
    out = out.replace(URL_CREDENTIALS, (_m, head: string, _password: string, at: string) => `${head}${REDACTED}${at}`);
  }
  if (!ASSIGNMENT_KEYWORDS.test(out)) return out;
  return out.replace(ASSIGNMENT, (_m, name: string, sep: string) => `${name}${sep}${REDACTED}`);
}

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

/** A copy of the environment without secret-looking variables, for tools. */
export function scrubbedEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const hidden = new Set(secretEnvNames(env));
  return Object.fromEntries(Object.entries(env).filter(([name]) => !hidden.has(name)));
}

/**
 * Guarantee 4: secrets never reach tools, logs or exports. Attacked with real environment
 * variables read back by `env` inside run_bash (with and without the bubblewrap sandbox),
 * the real `loom` command driven by the scripted model, its audit log on disk, its three
 * export formats, and the settings a window saves through the bridge.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runShell, sandboxAvailable } from '../../src/core/security/sandbox';
import type { AppInfo, Settings } from '../../src/shared/contract';
import type { SessionMeta } from '../../src/shared/types';
import { dispatch } from '../../src/backend/dispatch';
import { useModelBackend } from '../bridge/model-backend';
import { announcedId, runLoom, useLoomFixture } from '../cli-agent/support';
import { expectOneErrorLine, runLoom as runLoomCommand } from '../cli/run-loom';
import { nth } from '../support/elements';
import { fakeSecrets, secretPieces, type FakeSecret } from '../support/fake-secrets';

const fakes = fakeSecrets();
const fake = (kind: string): string => {
  const found = fakes.find((f) => f.kind === kind);
  if (!found) throw new Error(`no fake ${kind}`);
  return found.secret;
};

/** The variables that reached run_bash before the allowlist, and a few more. */
const SECRET_ENV: Record<string, string> = {
  COOKIE: `sessionid=${fake('Cookie header')}`,
  MYSQL_PWD: fake('MYSQL_PWD'),
  REDIS_URL: `redis://:${fake('Redis URL password')}@cache.internal:6379/0`,
  SENTRY_DSN: `https://${fake('Sentry DSN key')}@o123456.ingest.sentry.io/7654321`,
  SLACK_WEBHOOK_URL: fake('Slack webhook URL'),
  STRIPE_SK: fake('Stripe secret key'),
  AWS_SECRET_ACCESS_KEY: fake('AWS secret access key'),
  /** Not secret-looking at all: an allowlist keeps it out too. */
  FOO: 'bar-value-4471',
  /** Starts like a locale variable, but is none. */
  LC_DEPLOY_TOKEN: 'lc-smuggled-9f8e7d',
};
const BASE_ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: '/home/loom-test',
  LANG: 'C.UTF-8',
  LC_TIME: 'C',
  TERM: 'dumb',
  TZ: 'UTC',
  USER: 'loom',
  SHELL: '/bin/bash',
  TMPDIR: '/tmp',
};

function expectNoSecretEnv(output: string, allowed: string[] = []): void {
  for (const [name, value] of Object.entries(SECRET_ENV)) {
    if (allowed.includes(name)) continue;
    expect(output, name).not.toContain(`${name}=`);
    expect(output, name).not.toContain(value);
  }
}

/** Every form a secret could take in an export or log: as is, JSON-escaped, HTML-escaped. */
function leaks(text: string, secrets: FakeSecret[]): string[] {
  const forms = (piece: string) => [piece, JSON.stringify(piece).slice(1, -1), piece.replace(/&/g, '&amp;').replace(/\+/g, '&#43;')];
  return secrets.filter((s) => secretPieces(s.secret).some((piece) => forms(piece).some((form) => text.includes(form)))).map((s) => s.kind);
}

describe('guarantee 4: secrets never reach tools, logs or exports', () => {
  describe.each([
    ['sandboxed', true],
    ['unsandboxed', false],
  ])('run_bash (%s) gets an allowlisted environment', (_name, sandbox) => {
    const skip = sandbox && !sandboxAvailable();
    const cwd = fs.realpathSync(fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'loom-secrets-env-')));
    afterEach(() => fs.rmSync(cwd, { recursive: true, force: true }));

    it.skipIf(skip)('the variables that used to leak, a plain FOO and a fake LC_ name are all absent; the base ones are there', async () => {
      fs.mkdirSync(cwd, { recursive: true });
      const result = await runShell('env', { cwd, timeoutMs: 20_000, sandbox, env: { ...BASE_ENV, ...SECRET_ENV } });
      expect(result.exitCode).toBe(0);
      expect(result.sandboxed).toBe(sandbox);
      expectNoSecretEnv(result.stdout);
      for (const [name, value] of Object.entries(BASE_ENV)) expect(result.stdout).toContain(`${name}=${value}\n`);
    });

    it.skipIf(skip)('a passed name passes exactly that variable, not one that merely starts the same', async () => {
      fs.mkdirSync(cwd, { recursive: true });
      const env = { ...BASE_ENV, ...SECRET_ENV, FOO2: 'second-value' };
      const result = await runShell('env', { cwd, timeoutMs: 20_000, sandbox, env, passEnv: ['FOO', 'NOT_SET'] });
      expect(result.stdout).toContain(`FOO=${SECRET_ENV.FOO}\n`);
      expect(result.stdout).not.toContain('FOO2');
      expect(result.stdout).not.toContain('NOT_SET');
      expectNoSecretEnv(result.stdout, ['FOO']);
    });
  });

  describe('through the loom command', () => {
    const ctx = useLoomFixture();
    const bodies = () => ctx.server.requests.map((r) => r.body as { messages: Array<{ role: string; content: string }> });
    const toolOutputs = () => bodies().flatMap((b) => b.messages.filter((m) => m.role === 'tool').map((m) => m.content));
    const ECHO = 'echo "[$FOO][$GITHUB_TOKEN][$STRIPE_SK][$COOKIE]"; env';

    it('run_bash sees none of the secrets; --pass-env FOO passes FOO, and the notice names what is withheld', async () => {
      ctx.server.enqueue({ toolCalls: [{ name: 'run_bash', arguments: { command: ECHO } }] }, { text: 'Checked.' }, { text: 'Env check' });
      const env = { ...SECRET_ENV, GITHUB_TOKEN: fake('GitHub classic token') };
      const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--mode', 'dangerouslySkipPermissions', '--pass-env', 'FOO', '-p', 'check the env'], '', env);
      expect(run.code).toBe(0);
      const output = nth(toolOutputs(), 0);
      expect(output).toContain(`[${SECRET_ENV.FOO}][][][]`);
      expectNoSecretEnv(output, ['FOO']);
      expect(output).not.toContain(env.GITHUB_TOKEN);
      expect(run.stderr).toMatch(/tools do not get the secret-looking environment variables .*GITHUB_TOKEN/);
      expect(run.stderr).not.toContain(env.GITHUB_TOKEN);
    });

    it('a secret passed on purpose reaches the tool and is no longer named as withheld', async () => {
      ctx.server.enqueue({ toolCalls: [{ name: 'run_bash', arguments: { command: 'echo "[$GITHUB_TOKEN]"' } }] }, { text: 'Done.' }, { text: 'Token' });
      const token = fake('GitHub classic token');
      const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--mode', 'dangerouslySkipPermissions', '--pass-env', 'GITHUB_TOKEN', '-p', 'use the token'], '', {
        GITHUB_TOKEN: token,
      });
      expect(run.code).toBe(0);
      // The model sees what the tool printed; the audit log and exports still redact it (below).
      expect(toolOutputs()[0]).toContain(`[${token}]`);
      expect(run.stderr).not.toMatch(/tools do not get[^\n]*GITHUB_TOKEN/);
    });

    it('a malformed --pass-env is one usage line, exit 2, and no session', async () => {
      for (const bad of ['A=B', '1ABC', '']) {
        const run = await runLoomCommand(['--data-dir', ctx.ws.dataDir, '--pass-env', bad, '-p', 'hi'], { cwd: ctx.ws.projectDir });
        expect(run.code, bad).toBe(2);
        expect(expectOneErrorLine(run), bad).toContain('--pass-env');
      }
      expect(ctx.server.requests).toHaveLength(0);
      expect(fs.existsSync(path.join(ctx.ws.dataDir, 'loom.db'))).toBe(false);
    });

    it(`the audit log and the JSON, Markdown and HTML exports hold none of ${fakes.length} token formats`, async () => {
      const secretsFile = fakes.map((f) => f.text).join('\n');
      fs.writeFileSync(path.join(ctx.ws.projectDir, 'creds.txt'), `${secretsFile}\n`);
      ctx.server.enqueue(
        { toolCalls: [{ name: 'run_bash', arguments: { command: 'cat creds.txt' } }] },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'copy.txt', content: secretsFile } }] },
        { text: `Here they are again:\n${secretsFile}` },
        { text: `Secrets ${fake('OpenAI key')}` },
      );
      const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--mode', 'dangerouslySkipPermissions', '-p', `Keep these safe:\n${secretsFile}`]);
      expect(run.code).toBe(0);
      const id = announcedId(run.stdout + run.stderr);
      // The session really held them: the model saw the tool output unredacted.
      expect(leaks(nth(toolOutputs(), 0), fakes)).toHaveLength(fakes.length);

      const auditDir = path.join(ctx.ws.dataDir, 'audit');
      const audit = fs
        .readdirSync(auditDir)
        .map((name) => fs.readFileSync(path.join(auditDir, name), 'utf8'))
        .join('\n');
      expect(audit).toContain('tool_result');
      expect(leaks(audit, fakes)).toEqual([]);

      for (const format of ['json', 'markdown', 'html']) {
        const exported = await runLoomCommand(['--data-dir', ctx.ws.dataDir, '--export', id, '--format', format], { cwd: ctx.ws.projectDir });
        expect(exported.code, format).toBe(0);
        expect(exported.stdout, format).toContain('[REDACTED]');
        expect(leaks(exported.stdout, fakes), format).toEqual([]);
      }
    });
  });

  describe('through the settings a window saves', () => {
    const ctx = useModelBackend({ mode: 'dangerouslySkipPermissions' });
    const names = Object.keys(SECRET_ENV);
    afterEach(() => {
      for (const name of names) delete process.env[name];
    });

    it('malformed names are refused with one message and nothing is saved', async () => {
      for (const passEnv of [['A=B'], ['1ABC'], [''], ['PATH', 'X Y'], Array.from({ length: 101 }, (_, i) => `V${i}`)]) {
        const result = await dispatch(ctx.backend.handlers, 'settings.set', { passEnv });
        expect(result, JSON.stringify(passEnv).slice(0, 40)).toMatchObject({ ok: false, error: { code: 'bad_input' } });
      }
      expect((await ctx.call<Settings>('settings.get', {})).passEnv).toEqual([]);
    });

    it('a saved name reaches run_bash at once; the others stay out, and the notice follows', async () => {
      Object.assign(process.env, SECRET_ENV);
      expect((await ctx.call<AppInfo>('app.info', {})).secretEnvNames).toEqual(expect.arrayContaining(['COOKIE', 'MYSQL_PWD', 'STRIPE_SK']));

      expect((await ctx.call<Settings>('settings.set', { passEnv: ['FOO', 'STRIPE_SK'] })).passEnv).toEqual(['FOO', 'STRIPE_SK']);
      expect((await ctx.call<AppInfo>('app.info', {})).secretEnvNames).not.toContain('STRIPE_SK');

      const session = await ctx.call<SessionMeta>('chat.create', {});
      ctx.model.enqueue({ toolCalls: [{ name: 'run_bash', arguments: { command: 'env' } }] }, { text: 'Done.' }, { text: 'Env' });
      expect(await ctx.call('chat.send', { sessionId: session.id, text: 'env please' })).toEqual({ error: null });
      const tool = (nth(ctx.model.requests, 1).body as { messages: Array<{ role: string; content: string }> }).messages.find((m) => m.role === 'tool');
      expect(tool?.content).toContain(`FOO=${SECRET_ENV.FOO}`);
      expect(tool?.content).toContain(`STRIPE_SK=${SECRET_ENV.STRIPE_SK}`);
      expectNoSecretEnv(tool?.content ?? '', ['FOO', 'STRIPE_SK']);
    });
  });
});

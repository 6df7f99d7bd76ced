/**
 * A hub URL read without the network (src/core/sync/hub-url.ts), and the password found
 * in ~/.pgpass as psql finds it (pgpass.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeHub, maskPassword, parseHubUrl } from '../../src/core/sync/hub-url';
import { readPgpass } from '../../src/core/sync/pgpass';

describe('parseHubUrl', () => {
  it('reads the parts and keeps the password out of the URL it shows', () => {
    const hub = parseHubUrl('postgresql://alice:p%40ss@127.0.0.1:6543/team_hub');
    expect(hub).toMatchObject({ host: '127.0.0.1', port: 6543, database: 'team_hub', user: 'alice', password: 'p@ss', sslMode: 'disable' });
    expect(hub.url).toBe('postgresql://alice@127.0.0.1:6543/team_hub');
    expect(describeHub(hub)).toBe('127.0.0.1:6543/team_hub');
    expect(describeHub(parseHubUrl('postgres://db.example.com/loom'))).toBe('db.example.com/loom');
  });

  it('takes a Unix socket folder from host=, without TLS', () => {
    const hub = parseHubUrl('postgres:///loom?host=/run/postgresql');
    expect(hub).toMatchObject({ host: '/run/postgresql', database: 'loom', sslMode: 'disable' });
    expect(hub.user).toBeUndefined();
  });

  it('on loopback, TLS only when asked; a remote host gets verify-full and nothing less', () => {
    expect(parseHubUrl('postgres://a@localhost/loom?sslmode=require').sslMode).toBe('require');
    expect(parseHubUrl('postgres://a@127.0.0.1/loom?sslmode=prefer').sslMode).toBe('disable');
    expect(parseHubUrl('postgres://a@db.example.com/loom?sslmode=verify-full').sslMode).toBe('verify-full');
    for (const mode of ['disable', 'allow', 'prefer', 'require', 'verify-ca']) {
      expect(() => parseHubUrl(`postgres://a@db.example.com/loom?sslmode=${mode}`)).toThrow(`not sslmode=${mode}`);
    }
    expect(() => parseHubUrl('postgres://a@128.0.0.1/loom?sslmode=disable')).toThrow('is not on this machine');
  });

  it('refuses what it cannot use with one line that masks the password', () => {
    expect(() => parseHubUrl('mysql://alice:hunter2@db/loom')).toThrow(
      "The hub URL must look like postgres://user@host:5432/database, got 'mysql://alice:***@db/loom'.",
    );
    expect(() => parseHubUrl('postgres://alice:hunter2@127.0.0.1')).toThrow('The hub URL postgres://alice:***@127.0.0.1 must name one database');
    expect(() => parseHubUrl('postgres://127.0.0.1/loom?application_name=x')).toThrow("a parameter Loom does not use: 'application_name'");
    expect(() => parseHubUrl('postgres://127.0.0.1/loom?sslmode=sometimes')).toThrow('sslmode=sometimes; use one of');
    expect(() => parseHubUrl('postgres://db.example.com/loom?sslrootcert=/nonexistent/ca.pem')).toThrow('cannot be read');
  });

  it('never shows any part of a password with /, #, ?, @ or : in it, in any line it refuses a URL with', () => {
    // Two halves no other part of the URLs holds: neither may appear in any message.
    const passwords = ['Zq9x/Wv7k', 'Zq9x#Wv7k', 'Zq9x?Wv7k', 'Zq9x@Wv7k', 'Zq9x:Wv7k', '1234/Wv7k', '1234?Zq9x=Wv7k', 'Zq9x@/?#Wv7k', 'Zq9x\nWv7k'];
    const shapes = (pw: string) => [
      `postgres://alice:${pw}@127.0.0.1/loom`,
      `postgres://alice:${pw}@127.0.0.1`,
      `postgres://alice:${pw}@db.example.com/loom?sslmode=disable`,
      `postgres://alice:${pw}@127.0.0.1/loom?application_name=x`,
      `postgres://alice:${pw}@127.0.0.1/loom?sslmode=sometimes`,
      `postgres://alice:${pw}@127.0.0.1/a/b`,
      `mysql://alice:${pw}@127.0.0.1/loom`,
      `postgres://alice:${pw}@`,
    ];
    let refused = 0;
    for (const pw of passwords) {
      for (const url of shapes(pw)) {
        let line = '';
        try {
          parseHubUrl(url);
        } catch (err) {
          line = (err as Error).message;
          refused++;
        }
        expect([url, line.includes('Zq9x') || line.includes('Wv7k') || line.includes('1234')]).toEqual([url, false]);
      }
    }
    expect(refused).toBeGreaterThanOrEqual(passwords.length * (shapes('x').length - 1));
    expect(() => parseHubUrl('postgres://alice:Zq9x/Wv7k@127.0.0.1/loom')).toThrow(
      'The hub URL postgres://alice:***@127.0.0.1/loom has a password with a /, ?, # or @ that is not percent-encoded',
    );
    // An @ is unambiguous (the last one ends the password) and an encoded password is fine: both read as typed.
    expect(parseHubUrl('postgres://alice:Zq9x@Wv7k@127.0.0.1/loom').password).toBe('Zq9x@Wv7k');
    expect(parseHubUrl('postgres://alice:Zq9x%2F%3F%23Wv7k@127.0.0.1/loom').password).toBe('Zq9x/?#Wv7k');
  });

  it('maskPassword hides only the password', () => {
    expect(maskPassword('postgres://alice:s3cret@host/db')).toBe('postgres://alice:***@host/db');
    expect(maskPassword('postgres://alice:s3/c#r?e@t@host/db')).toBe('postgres://alice:***@host/db');
    expect(maskPassword('postgres://alice@host/db')).toBe('postgres://alice@host/db');
    expect(maskPassword('not a url: s3cret')).toBe('not a url: s3cret');
  });
});

describe('readPgpass', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-pgpass-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  function pgpass(text: string, mode = 0o600): NodeJS.ProcessEnv {
    const file = path.join(dir, 'pgpass');
    fs.writeFileSync(file, text, { mode });
    fs.chmodSync(file, mode);
    return { PGPASSFILE: file };
  }

  it('takes the first matching line, with * wildcards and escaped colons', () => {
    const env = pgpass('# comment\nother.host:5432:loom:alice:nope\n127.0.0.1:*:loom:alice:pa\\:ss\\\\word\n*:*:*:*:fallback\n');
    expect(readPgpass(parseHubUrl('postgres://alice@127.0.0.1:6000/loom'), env)).toBe('pa:ss\\word');
    expect(readPgpass(parseHubUrl('postgres://bob@127.0.0.1/loom'), env)).toBe('fallback');
  });

  it('ignores a file others may read, as psql does', () => {
    const env = pgpass('*:*:*:*:open-secret\n', 0o644);
    expect(readPgpass(parseHubUrl('postgres://alice@127.0.0.1/loom'), env)).toBeUndefined();
  });

  it('finds nothing when there is no file', () => {
    expect(readPgpass(parseHubUrl('postgres://alice@127.0.0.1/loom'), { PGPASSFILE: path.join(dir, 'absent') })).toBeUndefined();
  });
});

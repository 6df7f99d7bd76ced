/**
 * Settings: the browser mode's private JSON file, the desktop store with the API key
 * encrypted (driven through the same `conf` file layer electron-store is built on), and
 * the precedence saved > environment > defaults with run-time overrides on top.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Conf from 'conf';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/core/config';
import { DesktopSettingsStore, type SecretCipher } from '../../src/main/adapters/settings-store';
import { SettingsService } from '../../src/backend/settings-service';
import { JsonFileSettingsStore } from '../../src/backend/settings-store';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-settings-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A reversible stand-in for the OS keychain: enough to see that nothing is stored in clear. */
const keychain = (available = true): SecretCipher => ({
  isEncryptionAvailable: () => available,
  encryptString: (plain) => Buffer.from([...Buffer.from(plain)].map((b) => b ^ 0x5a)),
  decryptString: (encrypted) => Buffer.from([...encrypted].map((b) => b ^ 0x5a)).toString(),
});

describe('browser-mode settings file', () => {
  it('is written 0600 and read back', () => {
    const store = new JsonFileSettingsStore(dir);
    expect(store.load()).toEqual({});
    store.save({ model: 'llama3', theme: 'dark', openTabs: ['a', 'b'], activeTab: 'b' });
    expect(fs.statSync(store.location).mode & 0o777).toBe(0o600);
    expect(new JsonFileSettingsStore(dir).load()).toEqual({ model: 'llama3', theme: 'dark', openTabs: ['a', 'b'], activeTab: 'b' });
  });

  it('sets a damaged file aside and starts from the defaults', () => {
    fs.writeFileSync(path.join(dir, 'settings.json'), '{"theme": "purple"');
    expect(new JsonFileSettingsStore(dir).load()).toEqual({});
    expect(fs.readdirSync(dir).some((name) => name.startsWith('settings.json.damaged-'))).toBe(true);
  });
});

describe('desktop settings store', () => {
  it('keeps the API key only encrypted on disk', () => {
    const file = new Conf<Record<string, unknown>>({ cwd: dir, configName: 'desktop-settings', projectName: 'loom-test' });
    const store = new DesktopSettingsStore(file, keychain());
    store.save({ model: 'gemma4', apiKey: 'sk-very-secret' });
    const onDisk = fs.readFileSync(file.path, 'utf8');
    expect(onDisk).not.toContain('sk-very-secret');
    expect(JSON.parse(onDisk)).toMatchObject({ model: 'gemma4', apiKeyEncrypted: expect.any(String) });
    expect(new DesktopSettingsStore(file, keychain()).load()).toEqual({ model: 'gemma4', apiKey: 'sk-very-secret' });
  });

  it('refuses to store a key in clear when no keychain is available, and saves nothing', () => {
    const file = new Conf<Record<string, unknown>>({ cwd: dir, configName: 'desktop-settings', projectName: 'loom-test' });
    const store = new DesktopSettingsStore(file, keychain(false));
    expect(() => store.save({ apiKey: 'sk-very-secret' })).toThrow('No system keychain is available to encrypt the API key');
    expect(fs.existsSync(file.path) ? fs.readFileSync(file.path, 'utf8') : '').not.toContain('sk-very-secret');
  });

  it('keeps a hub URL with a password only encrypted on disk, and one without in clear', () => {
    const file = new Conf<Record<string, unknown>>({ cwd: dir, configName: 'desktop-settings', projectName: 'loom-test' });
    const store = new DesktopSettingsStore(file, keychain());
    store.save({ hubUrl: 'postgres://alice:hub-secret-9@127.0.0.1/loom' });
    const onDisk = fs.readFileSync(file.path, 'utf8');
    expect(onDisk).not.toContain('hub-secret-9');
    expect(JSON.parse(onDisk)).toEqual({ hubUrlEncrypted: expect.any(String) });
    expect(new DesktopSettingsStore(file, keychain()).load()).toEqual({ hubUrl: 'postgres://alice:hub-secret-9@127.0.0.1/loom' });

    store.save({ hubUrl: 'postgres://alice@127.0.0.1/loom' });
    expect(JSON.parse(fs.readFileSync(file.path, 'utf8'))).toEqual({ hubUrl: 'postgres://alice@127.0.0.1/loom' });
    expect(() => new DesktopSettingsStore(file, keychain(false)).save({ hubUrl: 'postgres://alice:pw@127.0.0.1/loom' })).toThrow(
      'No system keychain is available to encrypt the hub password; set LOOM_HUB in the environment instead.',
    );
  });

  it('drops a key the keychain can no longer decrypt', () => {
    const file = new Conf<Record<string, unknown>>({ cwd: dir, configName: 'desktop-settings', projectName: 'loom-test' });
    file.store = { model: 'x', apiKeyEncrypted: 'AAAA' };
    const broken: SecretCipher = {
      ...keychain(),
      decryptString: () => {
        throw new Error('bad key');
      },
    };
    expect(new DesktopSettingsStore(file, broken).load()).toEqual({ model: 'x' });
  });
});

describe('the sync hub setting', () => {
  const HUB = 'postgres://alice:hub-secret-9@127.0.0.1:5433/loom';

  it('is shown with the password as ***, which sent back keeps the saved password', () => {
    const store = new JsonFileSettingsStore(dir);
    const service = new SettingsService(store, {});
    expect(service.view().hubUrl).toBe('');
    expect(service.hubUrl()).toBeNull();
    expect(service.update({ hubUrl: HUB }).hubUrl).toBe('postgres://alice:***@127.0.0.1:5433/loom');
    expect(JSON.stringify(service.view())).not.toContain('hub-secret-9');
    // Another database on the same hub, the password left masked: the saved one goes with it.
    service.update({ hubUrl: 'postgres://alice:***@127.0.0.1:5433/loom2' });
    expect(new SettingsService(store, {}).hubUrl()).toBe('postgres://alice:hub-secret-9@127.0.0.1:5433/loom2');
  });

  it('never sends the saved password to another hub or user, and saves nothing then', () => {
    const store = new JsonFileSettingsStore(dir);
    const service = new SettingsService(store, {});
    service.update({ hubUrl: HUB });
    expect(() => service.update({ hubUrl: 'postgres://alice:***@evil.example:5433/loom' })).toThrow(
      'Type the hub password: the saved one belongs to another user or hub.',
    );
    expect(() => service.update({ hubUrl: 'postgres://mallory:***@127.0.0.1:5433/loom' })).toThrow('belongs to another user or hub');
    expect(new SettingsService(store, {}).hubUrl()).toBe(HUB);
  });

  it('never sends the saved password where a parameter redirects the connection, though the host reads the same', () => {
    const store = new JsonFileSettingsStore(dir);
    const service = new SettingsService(store, {});
    service.update({ hubUrl: HUB });
    for (const redirected of [
      // host= overrides the URL's host: another machine, a Unix socket folder anyone may serve, the same one spelled twice.
      'postgres://alice:***@127.0.0.1:5433/loom?host=evil.example',
      'postgres://alice:***@127.0.0.1:5433/loom?host=/tmp',
      'postgres://alice:***@127.0.0.1:5433/loom?host=127.0.0.1&host=/tmp',
      'postgres://alice:***@127.0.0.1/loom',
      'postgres://alice:***@127.0.0.1:5434/loom',
      'postgres://alice:***@127.0.0.2:5433/loom',
      'postgres://alice:***@localhost:5433/loom',
      // Trusted another way: TLS asked for, or another CA's certificate.
      'postgres://alice:***@127.0.0.1:5433/loom?sslmode=require',
      'postgres://alice:***@127.0.0.1:5433/loom?sslrootcert=/tmp/attacker-ca.pem',
    ]) {
      expect(() => service.update({ hubUrl: redirected }), redirected).toThrow('Type the hub password: the saved one belongs to another user or hub.');
    }
    expect(new SettingsService(store, {}).hubUrl()).toBe(HUB);
    // Typed again, the password goes where the user typed it for.
    service.update({ hubUrl: 'postgres://alice:other-pw@127.0.0.1:5433/loom?host=/run/postgresql' });
    expect(new SettingsService(store, {}).hubUrl()).toBe('postgres://alice:other-pw@127.0.0.1:5433/loom?host=/run/postgresql');
    // A socket URL keeps its password only for that same socket folder.
    service.update({ hubUrl: 'postgres://alice:***@127.0.0.1:5433/other?host=/run/postgresql' });
    expect(new SettingsService(store, {}).hubUrl()).toBe('postgres://alice:other-pw@127.0.0.1:5433/other?host=/run/postgresql');
    expect(() => service.update({ hubUrl: 'postgres://alice:***@127.0.0.1:5433/other?host=/run/postgresql/../../tmp' })).toThrow('Type the hub password');
  });

  it('comes from LOOM_HUB unless one is saved; saved empty, sync is off', () => {
    const store = new JsonFileSettingsStore(dir);
    const service = new SettingsService(store, { LOOM_HUB: HUB });
    expect(service.hubUrl()).toBe(HUB);
    expect(service.view().hubUrl).toBe('postgres://alice:***@127.0.0.1:5433/loom');
    service.update({ hubUrl: '' });
    expect(service.hubUrl()).toBeNull();
    expect(service.view().hubUrl).toBe('');
  });
});

describe('effective settings', () => {
  it('takes saved values over the environment over the defaults, and never shows the key', () => {
    const store = new JsonFileSettingsStore(dir);
    const env = { LOOM_BASE_URL: 'http://env.example/v1', LOOM_MODEL: 'env-model', OPENAI_API_KEY: 'sk-env' };
    const service = new SettingsService(store, env);
    expect(service.engine()).toEqual({
      baseUrl: 'http://env.example/v1',
      model: 'env-model',
      apiKey: 'sk-env',
      maxContextTokens: DEFAULTS.maxContextTokens,
      mode: DEFAULTS.mode,
      passEnv: [],
      trashDays: 30,
    });
    const view = service.update({ model: 'saved-model', maxContextTokens: 32000 });
    expect(view).toEqual({
      baseUrl: 'http://env.example/v1',
      model: 'saved-model',
      hasApiKey: true,
      maxContextTokens: 32000,
      modelWindow: null,
      mode: 'default',
      theme: 'system',
      openTabs: [],
      activeTab: null,
      passEnv: [],
      hubUrl: '',
      trashDays: 30,
    });
    expect(JSON.stringify(view)).not.toContain('sk-env');
  });

  it('keeps the variables passed to tools across a restart and hands them to the engine', () => {
    new SettingsService(new JsonFileSettingsStore(dir), {}).update({ passEnv: ['GITHUB_TOKEN', 'NPM_CONFIG_REGISTRY'] });
    const restarted = new SettingsService(new JsonFileSettingsStore(dir), {});
    expect(restarted.engine().passEnv).toEqual(['GITHUB_TOKEN', 'NPM_CONFIG_REGISTRY']);
    expect(restarted.view().passEnv).toEqual(['GITHUB_TOKEN', 'NPM_CONFIG_REGISTRY']);
  });

  it('lets overrides win for the run until the user saves a value', () => {
    const service = new SettingsService(new JsonFileSettingsStore(dir), {}, { baseUrl: 'http://127.0.0.1:9/v1' });
    expect(service.engine().baseUrl).toBe('http://127.0.0.1:9/v1');
    service.update({ baseUrl: 'http://saved.example/v1' });
    expect(service.engine().baseUrl).toBe('http://saved.example/v1');
  });

  it('removes the stored key when given an empty one (the URL it was saved for stays)', () => {
    const store = new JsonFileSettingsStore(dir);
    const service = new SettingsService(store, {});
    expect(service.update({ apiKey: 'sk-1' }).hasApiKey).toBe(true);
    expect(store.load()).toEqual({ apiKey: 'sk-1', baseUrl: DEFAULTS.baseUrl });
    expect(service.update({ apiKey: '' }).hasApiKey).toBe(false);
    expect(store.load()).toEqual({ baseUrl: DEFAULTS.baseUrl });
  });
});

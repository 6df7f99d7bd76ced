/**
 * The desktop app's settings: electron-store (a JSON file in the data folder) with the
 * API key, and a hub URL that holds a password, encrypted by the operating system's
 * keychain through safeStorage. Written
 * against two small interfaces so the logic runs under plain Node in tests.
 */
import { LoomError } from '../../core/errors';
import { storedSettingsSchema, type SettingsStore, type StoredSettings } from '../../backend/settings-store';

/** The part of electron-store (and of `conf`, which it extends) this uses. */
export interface KeyValueFile {
  store: Record<string, unknown>;
  readonly path: string;
}

/** safeStorage, as far as settings need it. */
export interface SecretCipher {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

const ENCRYPTED_KEY = 'apiKeyEncrypted';
const ENCRYPTED_HUB_URL = 'hubUrlEncrypted';

export class DesktopSettingsStore implements SettingsStore {
  constructor(
    private readonly file: KeyValueFile,
    private readonly cipher: SecretCipher,
  ) {}

  get location(): string {
    return this.file.path;
  }

  load(): StoredSettings {
    const { [ENCRYPTED_KEY]: encrypted, [ENCRYPTED_HUB_URL]: encryptedHub, ...rest } = this.file.store;
    const parsed = storedSettingsSchema.omit({ apiKey: true }).safeParse(rest);
    const settings: StoredSettings = parsed.success ? parsed.data : {};
    const apiKey = typeof encrypted === 'string' ? this.decrypt(encrypted) : undefined;
    const hubUrl = typeof encryptedHub === 'string' ? this.decrypt(encryptedHub) : undefined;
    return { ...settings, ...(apiKey && { apiKey }), ...(hubUrl && { hubUrl }) };
  }

  save(settings: StoredSettings): void {
    const { apiKey, hubUrl, ...rest } = settings;
    const next: Record<string, unknown> = { ...rest };
    if (apiKey) next[ENCRYPTED_KEY] = this.encrypt(apiKey, 'the API key', 'LOOM_API_KEY');
    if (hubUrl !== undefined && holdsPassword(hubUrl)) next[ENCRYPTED_HUB_URL] = this.encrypt(hubUrl, 'the hub password', 'LOOM_HUB');
    else if (hubUrl !== undefined) next.hubUrl = hubUrl;
    this.file.store = next;
  }

  private encrypt(secret: string, what: string, variable: string): string {
    if (!this.cipher.isEncryptionAvailable()) {
      throw new LoomError(`No system keychain is available to encrypt ${what}; set ${variable} in the environment instead.`, 'no_keychain');
    }
    return this.cipher.encryptString(secret).toString('base64');
  }

  /** A secret the keychain can no longer decrypt (another machine, a reset keychain) is dropped. */
  private decrypt(encrypted: string): string | undefined {
    try {
      return this.cipher.decryptString(Buffer.from(encrypted, 'base64'));
    } catch {
      return undefined;
    }
  }
}

/** A URL with a password in it (one that does not parse is treated as one: kept encrypted). */
function holdsPassword(url: string): boolean {
  try {
    return new URL(url).password !== '';
  } catch {
    return url.includes('@');
  }
}

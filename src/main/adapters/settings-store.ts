/**
 * The desktop app's settings: electron-store (a JSON file in the data folder) with the
 * API key encrypted by the operating system's keychain through safeStorage. Written
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

export class DesktopSettingsStore implements SettingsStore {
  constructor(
    private readonly file: KeyValueFile,
    private readonly cipher: SecretCipher,
  ) {}

  get location(): string {
    return this.file.path;
  }

  load(): StoredSettings {
    const { [ENCRYPTED_KEY]: encrypted, ...rest } = this.file.store;
    const parsed = storedSettingsSchema.omit({ apiKey: true }).safeParse(rest);
    const settings: StoredSettings = parsed.success ? parsed.data : {};
    const apiKey = typeof encrypted === 'string' ? this.decrypt(encrypted) : undefined;
    return apiKey ? { ...settings, apiKey } : settings;
  }

  save(settings: StoredSettings): void {
    const { apiKey, ...rest } = settings;
    const next: Record<string, unknown> = { ...rest };
    if (apiKey) next[ENCRYPTED_KEY] = this.encrypt(apiKey);
    this.file.store = next;
  }

  private encrypt(apiKey: string): string {
    if (!this.cipher.isEncryptionAvailable()) {
      throw new LoomError('No system keychain is available to encrypt the API key; set LOOM_API_KEY in the environment instead.', 'no_keychain');
    }
    return this.cipher.encryptString(apiKey).toString('base64');
  }

  /** A key the keychain can no longer decrypt (another machine, a reset keychain) is dropped. */
  private decrypt(encrypted: string): string | undefined {
    try {
      return this.cipher.decryptString(Buffer.from(encrypted, 'base64'));
    } catch {
      return undefined;
    }
  }
}

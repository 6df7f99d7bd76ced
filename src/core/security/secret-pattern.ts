/** One way a secret shows in text, as redactSecrets uses it. */
export interface SecretPattern {
  /** Where the pattern comes from: a secretlint rule id, or `loom/…` for Loom's own. */
  rule: string;
  pattern: RegExp;
  /** Literal words (lower case) one of which every match contains: a cheap pre-check. */
  keywords: string[];
  /** A named group holding the secret; the rest of the match stays readable. Default: all of it. */
  secretGroup?: string;
}

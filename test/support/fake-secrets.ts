/**
 * Realistic-looking but fake credentials in the common token formats, made from a seeded
 * random generator at run time. Prefixes are split ('sk' + '_live_') so that no literal in
 * the repository looks like a real token to a secret scanner.
 */
export interface FakeSecret {
  /** The kind of credential, for test names and failure messages. */
  kind: string;
  /** How it shows up in a session: a line of text holding the secret. */
  text: string;
  /** What must never appear once redacted. */
  secret: string;
}

function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = UPPER + LOWER + DIGITS;
const HEX = '0123456789abcdef';
const BASE64 = `${ALNUM}+/`;
const URL_SAFE = `${ALNUM}_-`;

export function fakeSecrets(seed = 20261130): FakeSecret[] {
  const random = seeded(seed);
  const chars = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
  const pem = (magic: string) => Array.from({ length: 6 }, (_, i) => (i === 0 ? magic : '') + chars(BASE64, i === 0 ? 64 - magic.length : 64)).join('\n');
  const jwtPart = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const password = () => chars(ALNUM, 14) + '-_' + chars(DIGITS, 2);

  const rsaBody = pem('MIIEpAIBAAKCAQEA');
  const sshBody = pem('b3BlbnNzaC1rZXktdjEAAAAA');
  const jwt = `${jwtPart({ alg: 'HS256', typ: 'JWT' })}.${jwtPart({ sub: chars(DIGITS, 10), name: 'Ada', iat: 1764460800 })}.${chars(URL_SAFE, 43)}`;
  const begin = (label: string) => `-----BEGIN ${label} PRIVATE KEY-----`;
  const end = (label: string) => `-----END ${label} PRIVATE KEY-----`;

  const list: Array<[string, string, (secret: string) => string]> = [
    ['Stripe secret key', 'sk' + '_live_' + chars(ALNUM, 24), (s) => `stripe.api_base charge with ${s} now`],
    ['Stripe restricted key', 'rk' + '_live_' + chars(ALNUM, 24), (s) => `restricted ${s}`],
    ['Stripe webhook secret', 'whsec' + '_' + chars(ALNUM, 32), (s) => `webhook signing ${s}`],
    ['Hugging Face token', 'hf' + '_' + chars(UPPER + LOWER, 34), (s) => `huggingface-cli login --token ${s}`],
    ['GitLab token', 'glpat' + '-' + chars(URL_SAFE, 20), (s) => `git clone with ${s}`],
    [
      'Azure storage AccountKey',
      chars(BASE64, 86) + '==',
      (s) => `DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${s};EndpointSuffix=core.windows.net`,
    ],
    ['Azure SAS signature', chars(ALNUM, 43) + '%3D', (s) => `https://acme.blob.core.windows.net/c?sv=2022-11-02&sp=rl&sig=${s}`],
    ['AWS access key id', 'AK' + 'IA' + chars(UPPER + DIGITS, 16), (s) => `aws configure set aws_access_key_id ${s}`],
    ['AWS secret access key', chars(ALNUM + '/+', 40), (s) => `aws_secret_access_key = ${s}`],
    ['GitHub classic token', 'ghp' + '_' + chars(ALNUM, 36), (s) => `export GH_AUTH=${s}`],
    ['GitHub fine-grained token', 'github' + '_pat_' + '11' + chars(UPPER + DIGITS, 20) + '_' + chars(ALNUM, 59), (s) => `gh auth login --with-token <<< ${s}`],
    ['Slack bot token', 'xo' + 'xb-' + chars(DIGITS, 12) + '-' + chars(DIGITS, 13) + '-' + chars(ALNUM, 24), (s) => `slack client ${s}`],
    [
      'Slack webhook URL',
      'https://hooks.slack.com/services/' + 'T' + chars(UPPER + DIGITS, 10) + '/B' + chars(UPPER + DIGITS, 10) + '/' + chars(ALNUM, 24),
      (s) => `curl -X POST ${s}`,
    ],
    ['Discord webhook token', chars(URL_SAFE, 68), (s) => `https://discord.com/api/webhooks/${chars(DIGITS, 18)}/${s}`],
    ['Google API key', 'AI' + 'za' + chars(URL_SAFE, 35), (s) => `maps?key=${s}`],
    ['Google OAuth client secret', 'GOCSPX' + '-' + chars(URL_SAFE, 28), (s) => `client secret ${s}`],
    ['OpenAI key', 'sk-' + chars(ALNUM, 48), (s) => `OpenAI(${s})`],
    ['OpenAI project key', 'sk-' + 'proj-' + chars(URL_SAFE, 74) + 'T3Blbk' + 'FJ' + chars(URL_SAFE, 74), (s) => `key: ${s}`],
    ['Anthropic key', 'sk-' + 'ant-api03-' + chars(URL_SAFE, 93) + 'AA', (s) => `anthropic ${s}`],
    ['npm token', 'npm' + '_' + chars(ALNUM, 36), (s) => `//registry.npmjs.org/:_auth ${s}`],
    ['PyPI token', 'pypi' + '-AgEIcHlwaS5vcmc' + chars(URL_SAFE, 70), (s) => `twine upload -p ${s}`],
    ['SendGrid key', 'SG' + '.' + chars(URL_SAFE, 22) + '.' + chars(URL_SAFE, 43), (s) => `sendgrid ${s}`],
    ['Twilio API key', 'S' + 'K' + chars(HEX, 32), (s) => `twilio api key ${s}`],
    ['Twilio auth token', chars(HEX, 32), (s) => `TWILIO_AUTH_TOKEN=${s}`],
    ['Shopify token', 'shpat' + '_' + chars(HEX, 32), (s) => `shopify ${s}`],
    ['Docker Hub token', 'dckr' + '_pat_' + chars(URL_SAFE, 27), (s) => `docker login -p ${s}`],
    ['HashiCorp Vault token', 'hvs' + '.' + chars(URL_SAFE, 95), (s) => `VAULT ${s}`],
    ['JWT', jwt, (s) => `cookie header ${s}`],
    ['RSA private key', rsaBody, (s) => `${begin('RSA')}\n${s}\n${end('RSA')}`],
    ['OpenSSH private key', sshBody, (s) => `${begin('OPENSSH')}\n${s}\n${end('OPENSSH')}`],
    ['Postgres URL password', password(), (s) => `postgres://app:${s}@db.internal:5432/app`],
    ['MySQL URL password', password(), (s) => `mysql://root:${s}@127.0.0.1:3306/shop`],
    ['MongoDB URL password', password(), (s) => `mongodb+srv://admin:${s}@cluster0.abcde.mongodb.net/test`],
    ['Redis URL password', password(), (s) => `redis://:${s}@cache.internal:6379/0`],
    ['Sentry DSN key', chars(HEX, 32), (s) => `https://${s}@o${chars(DIGITS, 6)}.ingest.sentry.io/${chars(DIGITS, 7)}`],
    ['Bearer token', chars(URL_SAFE, 40), (s) => `Authorization: Bearer ${s}`],
    ['Basic auth header', Buffer.from(`deploy:${chars(ALNUM, 16)}`).toString('base64'), (s) => `Authorization: Basic ${s}`],
    ['Cookie header', chars(ALNUM, 32), (s) => `Cookie: sessionid=${s}`],
    ['MYSQL_PWD', password(), (s) => `MYSQL_PWD=${s} mysql -u root`],
    ['password assignment', password(), (s) => `{"db_password": "${s}"}`],
  ];
  return list.map(([kind, secret, text]) => ({ kind, secret, text: text(secret) }));
}

/** The pieces of a secret that must each be gone (a private key's lines one by one). */
export function secretPieces(secret: string): string[] {
  return secret.split('\n').filter((piece) => piece.length >= 8);
}

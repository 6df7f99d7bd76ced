/**
 * The environment tools run with: an allowlist. A tool (run_bash and whatever it starts)
 * gets the variables a shell needs to behave (search path, home, locale, terminal, time
 * zone, user, shell, temp folder) and the ones the user passes by name (`--pass-env NAME`,
 * the "pass these environment variables to tools" setting); nothing else of Loom's own
 * environment, so a credential under a name no list foresaw never reaches a tool.
 */
import { BASE_TOOL_ENV } from '../../shared/settings';
import { secretEnvNames } from './secrets';

/**
 * `LC_*` means the locale categories, not any name that starts so: common ssh setups forward
 * every `LC_` variable, which makes the prefix a known way to carry other data.
 */
const LOCALE_VARIABLES = [
  'LC_ALL',
  'LC_CTYPE',
  'LC_COLLATE',
  'LC_MESSAGES',
  'LC_MONETARY',
  'LC_NUMERIC',
  'LC_TIME',
  'LC_ADDRESS',
  'LC_IDENTIFICATION',
  'LC_MEASUREMENT',
  'LC_NAME',
  'LC_PAPER',
  'LC_TELEPHONE',
];

const BASE_VARIABLES = new Set<string>([...BASE_TOOL_ENV.filter((name) => name !== 'LC_*'), ...LOCALE_VARIABLES]);

/** A copy of `env` with the base variables and the passed ones only. */
export function toolEnv(env: NodeJS.ProcessEnv = process.env, passEnv: readonly string[] = []): NodeJS.ProcessEnv {
  const passed = new Set(passEnv);
  return Object.fromEntries(Object.entries(env).filter(([name, value]) => value !== undefined && (BASE_VARIABLES.has(name) || passed.has(name))));
}

/** Secret-looking variables set in `env` that tools do not get (for the notice: names only). */
export function withheldSecretEnvNames(env: NodeJS.ProcessEnv = process.env, passEnv: readonly string[] = []): string[] {
  const passing = toolEnv(env, passEnv);
  return secretEnvNames(env).filter((name) => !(name in passing));
}

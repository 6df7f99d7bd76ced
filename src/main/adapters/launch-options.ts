/**
 * What `npm start -- --data-dir DIR --project DIR` hands the desktop app (scripts/start.mjs
 * passes its arguments on): the data folder, and the project folder new sessions start in.
 * Anything else on the command line is left to others (session files, Chromium's switches).
 */
export interface LaunchOptions {
  dataDir?: string;
  project?: string;
}

const FLAGS = { '--data-dir': 'dataDir', '--project': 'project' } as const;

export function launchOptions(argv: readonly string[]): LaunchOptions {
  const options: LaunchOptions = {};
  argv.forEach((arg, i) => {
    const [flag, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    if (!Object.hasOwn(FLAGS, flag)) return;
    const value = inline ?? argv[i + 1];
    if (value !== undefined && value !== '' && !value.startsWith('-')) options[FLAGS[flag as keyof typeof FLAGS]] = value;
  });
  return options;
}

export declare const DEBIAN_CHROMIUM: string;
export declare function findChromium(env?: NodeJS.ProcessEnv): { path: string; source: string } | { path: null; problem: string };

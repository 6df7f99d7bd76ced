export declare const root: string;
export declare const nativeFile: string;
export declare function fetchElectron(): string | null;
export declare function electronBinary(): string | null;
export declare function electronVersion(): string;
export declare function fetchNativeSqlite(platform: string, arch: string, target: string): string | null;
export declare function lastLine(result: { stderr?: unknown; stdout?: unknown; error?: Error }): string;

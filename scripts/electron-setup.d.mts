export declare const root: string;
export declare function fetchElectron(): string | null;
export declare function electronBinary(): string | null;
export declare function electronVersion(): string;
export declare function lastLine(result: { stderr?: unknown; stdout?: unknown; error?: Error }): string;

export interface SupportWindow {
  major: number;
  endsOn: string;
}
export declare function supportWindows(securityText: string): SupportWindow[];
export declare function supportStatus(version: string, windows: SupportWindow[], today: Date): { level: 'ok' | 'warn' | 'fail'; message: string };

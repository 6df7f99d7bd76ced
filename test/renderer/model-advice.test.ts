/**
 * A failed model request in the window's words: the advice points at Settings, never at the
 * command's flags, and a retry says which attempt failed and when the next comes.
 */
import { describe, expect, it } from 'vitest';
import { retryLine, windowAdvice } from '../../src/renderer/lib/model-advice';
import type { ModelAdvice } from '../../src/shared/model-failure';

const ALL: ModelAdvice[] = [
  'start_server',
  'idle_timeout',
  'total_timeout',
  'check_api_key',
  'check_model',
  'check_request',
  'check_base_url',
  'rate_limited',
  'server_failed',
  'try_again',
];

describe('a model failure in the window', () => {
  it('tells a server that is down to be started or its URL checked in Settings', () => {
    expect(windowAdvice({ problem: 'Cannot reach the model server at http://x/v1 (connection refused).', advice: 'start_server' })).toEqual({
      line: 'Cannot reach the model server at http://x/v1 (connection refused). Start it, or check the server URL in Settings.',
      text: 'Start it, or check the server URL in Settings.',
      inSettings: true,
    });
  });

  it.each(ALL)('never names a command flag (%s)', (advice) => {
    const { line, inSettings } = windowAdvice({ problem: 'It failed.', advice });
    expect(line).not.toMatch(/--[a-z]/);
    expect(inSettings).toBe(line.includes('Settings'));
  });
});

describe('a retry in the window', () => {
  const retry = { problem: 'The server failed.', attempt: 2, maxRetries: 3, delayMs: 4000 };

  it('says which attempt of how many failed and counts down to the next', () => {
    expect(retryLine(retry, 4)).toBe('The server failed. Attempt 2 of 4 failed; next try in 4 s.');
    expect(retryLine(retry, 0)).toBe('The server failed. Attempt 2 of 4 failed; trying again now.');
  });
});

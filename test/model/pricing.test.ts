import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { costUsd, DEFAULT_PRICES, loadPriceTable, type PriceTable } from '../../src/core/model/pricing';

const MILLION = { prompt_tokens: 1_000_000, completion_tokens: 1_000_000 };

describe('costUsd', () => {
  it('prices listed hosted models per million tokens', () => {
    expect(costUsd('gpt-4o', { prompt_tokens: 1_000_000, completion_tokens: 0 })).toBeCloseTo(2.5);
    expect(costUsd('gpt-4o', { prompt_tokens: 0, completion_tokens: 500_000 })).toBeCloseTo(5);
  });

  it('recognises dated snapshots and provider prefixes, longest name first', () => {
    expect(costUsd('gpt-4o-2024-08-06', MILLION)).toBeCloseTo(12.5);
    expect(costUsd('openai/gpt-4o', MILLION)).toBeCloseTo(12.5);
    expect(costUsd('gpt-4o-mini', MILLION)).toBeCloseTo(0.75);
    expect(costUsd('gpt-4o-mini-2024-07-18', MILLION)).toBeCloseTo(0.75);
  });

  it('charges nothing for local or unknown models', () => {
    expect(costUsd('gemma4', MILLION)).toBe(0);
    expect(costUsd('llama3.1:8b', MILLION)).toBe(0);
    expect(costUsd('gpt-4omni', MILLION)).toBe(0);
  });

  it('uses a configured table instead of the defaults', () => {
    const prices: PriceTable = { gemma4: { input_per_mtok: 1, output_per_mtok: 3 } };
    expect(costUsd('gemma4', { prompt_tokens: 2_000_000, completion_tokens: 1_000_000 }, prices)).toBeCloseTo(5);
    expect(costUsd('gpt-4o', MILLION, prices)).toBe(0);
  });
});

describe('loadPriceTable (<data dir>/prices.json)', () => {
  const withFile = (text: string | null, look: (file: string) => void) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-prices-'));
    const file = path.join(dir, 'prices.json');
    if (text !== null) fs.writeFileSync(file, text);
    try {
      look(file);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };

  it('is the default table when there is no file', () => {
    withFile(null, (file) => expect(loadPriceTable(file)).toBe(DEFAULT_PRICES));
  });

  it("adds the user's models to the defaults; a listed model's own price wins", () => {
    withFile('{"gemma4": {"input_per_mtok": 1, "output_per_mtok": 3}, "gpt-4o": {"input_per_mtok": 0, "output_per_mtok": 0}}', (file) => {
      const prices = loadPriceTable(file);
      expect(costUsd('gemma4', MILLION, prices)).toBeCloseTo(4);
      expect(costUsd('gpt-4o', MILLION, prices)).toBe(0);
      expect(costUsd('gpt-4o-mini', MILLION, prices)).toBeCloseTo(0.75);
    });
  });

  it('refuses a file that is not JSON or not a price table, naming the file and the shape', () => {
    withFile('{oops', (file) => expect(() => loadPriceTable(file)).toThrow(`The price table ${file} is not valid JSON; write it like {"my-model"`));
    withFile('{"m": {"input_per_mtok": -1, "output_per_mtok": 2}}', (file) =>
      expect(() => loadPriceTable(file)).toThrow(new RegExp(`^The price table ${file} is invalid at m\\.input_per_mtok: .+ Write it like`)),
    );
    withFile('{"m": {"input": 1}}', (file) => expect(() => loadPriceTable(file)).toThrow(/is invalid at m/));
  });
});

/**
 * What a model call costs, for --max-cost-usd and the usage shown per session. Local
 * models (Ollama and the like) and any model not in the table cost nothing; the user can
 * price their own models in <data dir>/prices.json.
 */
import fs from 'node:fs';
import { z } from 'zod';
import type { CallUsage } from '../../shared/types';
import { errorMessage, LoomError } from '../errors';

export type PriceTable = Record<string, { input_per_mtok: number; output_per_mtok: number }>;

/**
 * List prices in USD per million tokens for common hosted models at the time of writing.
 * Prices change: pass your own table where it matters.
 */
export const DEFAULT_PRICES: PriceTable = {
  'gpt-4o': { input_per_mtok: 2.5, output_per_mtok: 10 },
  'gpt-4o-mini': { input_per_mtok: 0.15, output_per_mtok: 0.6 },
  'gpt-4.1': { input_per_mtok: 2, output_per_mtok: 8 },
  'gpt-4.1-mini': { input_per_mtok: 0.4, output_per_mtok: 1.6 },
  'gpt-4.1-nano': { input_per_mtok: 0.1, output_per_mtok: 0.4 },
  'gpt-5': { input_per_mtok: 1.25, output_per_mtok: 10 },
  'gpt-5-mini': { input_per_mtok: 0.25, output_per_mtok: 2 },
  'gpt-5-nano': { input_per_mtok: 0.05, output_per_mtok: 0.4 },
  o3: { input_per_mtok: 2, output_per_mtok: 8 },
  'o4-mini': { input_per_mtok: 1.1, output_per_mtok: 4.4 },
};

export function costUsd(model: string, usage: { prompt_tokens: number; completion_tokens: number }, prices: PriceTable = DEFAULT_PRICES): number {
  const price = priceFor(model, prices);
  if (!price) return 0;
  return (usage.prompt_tokens * price.input_per_mtok + usage.completion_tokens * price.output_per_mtok) / 1_000_000;
}

/** A call's usage as the session is charged for it: its tokens and what they cost. */
export function chargedUsage(settings: { model: string; prices?: PriceTable }, usage: { prompt_tokens: number; completion_tokens: number }): CallUsage {
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    cost_usd: costUsd(settings.model, usage, settings.prices),
  };
}

/**
 * The table entry for a model name as servers spell it: exact, without a provider prefix
 * ("openai/gpt-4o"), or a dated snapshot of a listed model ("gpt-4o-2024-08-06" is gpt-4o,
 * while "gpt-4o-mini" keeps its own price: the longest listed name wins).
 */
function priceFor(model: string, prices: PriceTable = DEFAULT_PRICES): PriceTable[string] | undefined {
  const name = model.trim().toLowerCase();
  const bare = name.slice(name.lastIndexOf('/') + 1);
  let best: string | undefined;
  for (const key of Object.keys(prices)) {
    const k = key.toLowerCase();
    const matches = [name, bare].some((n) => n === k || n.startsWith(`${k}-`));
    if (matches && (!best || k.length > best.length)) best = key;
  }
  return best === undefined ? undefined : prices[best];
}

/** The user's own prices, in the data folder: merged over the defaults, a listed model wins. */
export const PRICES_FILE = 'prices.json';

const PRICE = z.number().finite().nonnegative();
const PRICE_TABLE = z.record(z.string().min(1), z.strictObject({ input_per_mtok: PRICE, output_per_mtok: PRICE }));
const PRICE_EXAMPLE = '{"my-model": {"input_per_mtok": 1.5, "output_per_mtok": 6}}';

/** The defaults plus the prices in `file`; no file means the defaults. A bad file is refused clearly. */
export function loadPriceTable(file: string): PriceTable {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return DEFAULT_PRICES;
    throw new LoomError(`Cannot read the price table ${file}: ${errorMessage(err)}`, 'bad_prices');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new LoomError(`The price table ${file} is not valid JSON; write it like ${PRICE_EXAMPLE} (USD per million tokens).`, 'bad_prices');
  }
  const parsed = PRICE_TABLE.safeParse(json);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
    throw new LoomError(
      `The price table ${file} is invalid${where}: ${issue?.message ?? 'not a price table'}. Write it like ${PRICE_EXAMPLE} (USD per million tokens).`,
      'bad_prices',
    );
  }
  return { ...DEFAULT_PRICES, ...parsed.data };
}

/** Builds the UI once before the end-to-end tests (they serve out/renderer). */
import { buildWeb } from '../../scripts/web.mjs';

export default async function globalSetup(): Promise<void> {
  await buildWeb();
}

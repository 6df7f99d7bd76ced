/**
 * `npm run bench`: runs every section in order; each prints its own table.
 * To add a section, export a BenchSection from bench/<area>.ts and append it below.
 */
import type { BenchSection } from './harness';
import { storeSection } from './store';

const sections: BenchSection[] = [
  storeSection, // A: session store vs one-JSON-file-per-session baseline
  // contextSection from './context' (E: compaction)
  // uiSection from './ui' (F: UI)
];

for (const section of sections) {
  console.log(`\n=== ${section.name} ===`);
  await section.run();
}

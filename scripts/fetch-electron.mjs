// CI: fetch Electron's binary and its build of better-sqlite3 before the tests, or fail
// with the one-line reason (npm start does the same on first start).
import { fetchElectron } from './electron-setup.mjs';

const problem = fetchElectron();
if (problem) {
  console.error(`loom: ${problem}`);
  process.exit(1);
}
console.log('Electron and its build of better-sqlite3 are in place.');

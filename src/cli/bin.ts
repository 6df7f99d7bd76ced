// The entry of the `loom` command's bundle (dist/cli.js, started by bin/loom.js).
import { runCommandLine } from './main';

runCommandLine(process.argv.slice(2));

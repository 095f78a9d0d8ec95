/** Runs the plangate CLI from the sources in this process (spawned with `node --import tsx`). */
import { main } from '../../src/adapters/cli/main.js';

process.exitCode = await main(process.argv.slice(2));

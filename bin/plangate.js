#!/usr/bin/env node
import { enablePrivateCompileCache } from '../dist/adapters/cli/compile-cache.js';

// Before the CLI loads, so that its modules come from the compile cache (see compile-cache.ts).
enablePrivateCompileCache(process.env);
const { main } = await import('../dist/adapters/cli/main.js');

process.exitCode = await main(process.argv.slice(2));

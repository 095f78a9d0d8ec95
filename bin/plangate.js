#!/usr/bin/env node
import { enablePrivateCompileCache } from '../dist/adapters/cli/compile-cache.js';
import { hookBundle } from '../dist/adapters/cli/hook-bundle.js';

// Before the CLI loads, so that its modules come from the compile cache (see compile-cache.ts).
enablePrivateCompileCache(process.env);
const argv = process.argv.slice(2);
// `plangate hook` runs from its bundle while that is current (see hook-bundle.ts).
const { main } = await import(hookBundle(argv) ?? '../dist/adapters/cli/main.js');

process.exitCode = await main(argv);

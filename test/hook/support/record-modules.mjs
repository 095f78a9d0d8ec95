// Preloaded with --import: writes every module URL the process loads to $RECORD_MODULES at exit.
import { registerHooks } from 'node:module';
import { writeFileSync } from 'node:fs';

const urls = [];
registerHooks({ load(url, context, next) { urls.push(url); return next(url, context); } });
process.on('exit', () => writeFileSync(process.env.RECORD_MODULES, urls.join('\n')));

/** docs/reference/cli.md names every command the CLI has, in its "Every command" table. */
import { describe, expect, it } from 'vitest';
import { cli } from '../cli/run.js';
import { section } from './snippets.js';

describe('the CLI reference', () => {
  it('names every command of plangate --help', async () => {
    const help = await cli(['--help']);
    const text = help.out + help.err;
    const list = text.slice(text.indexOf('Commands:'));
    const commands = [...list.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((m) => m[1] as string).filter((c) => c !== 'help');
    expect(commands.length).toBeGreaterThan(20);
    const table = section('docs/reference/cli.md', '## Every command');
    const missing = commands.filter((c) => !table.includes(`\`plangate ${c}\``) && !table.includes(`\`${c}\``));
    expect(missing).toEqual([]);
  });
});

/**
 * The CLI loads only the module of the command it runs: the table of
 * command modules must name every command the program has, and the command
 * is found after the global options whatever their form.
 */
import { describe, expect, it } from 'vitest';
import { buildProgram, COMMAND_NAMES, commandOf } from '../../src/adapters/cli/main.js';

const io = { out: () => {}, err: () => {}, env: {} };

describe('lazy command registration', () => {
  it('names every command of the whole program, in its order', async () => {
    const program = await buildProgram(io, () => {});
    expect(program.commands.map((c) => c.name())).toEqual([...COMMAND_NAMES]);
  });

  it('registers the named command alone, with its siblings from the same module', async () => {
    expect((await buildProgram(io, () => {}, 'hook')).commands.map((c) => c.name())).toEqual(['hook']);
    expect((await buildProgram(io, () => {}, 'explain')).commands.map((c) => c.name())).toEqual(['decide', 'explain']);
  });

  it('finds the command after the global options, and none for help, a typo or an unknown option', () => {
    expect(commandOf(['hook', '--agent', '0xW'])).toBe('hook');
    expect(commandOf(['--rules', 'say', '--store', 's.db', 'hook'])).toBe('hook');
    expect(commandOf(['--rules=r', '--rules-optional', '--audit=a', '--policy', 'p.wasm', 'mcp'])).toBe('mcp');
    for (const argv of [[], ['--help'], ['--version'], ['hoook'], ['--verbose', 'hook'], ['--rules']]) expect(commandOf(argv), argv.join(' ')).toBeUndefined();
  });
});

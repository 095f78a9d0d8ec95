/**
 * The command word of a `plangate` command line, read before anything else
 * loads: bin/plangate.js picks the hook's bundle by it, main.ts the command
 * module to load. Imports nothing.
 */

/** The global options that take a value (the command is the first word after them). */
const VALUED_GLOBALS = ['--rules', '--store', '--audit', '--policy'];

/**
 * The first word of `argv` that is not a global option; undefined when an
 * option that is not a global one comes first (help, a typo) or there is none.
 *
 * @example
 * commandWord(['--rules', 'rules', 'hook', '--agent', '0xW']) // 'hook'
 */
export function commandWord(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (VALUED_GLOBALS.includes(word)) { i++; continue; }
    if (word.startsWith('-')) {
      if (VALUED_GLOBALS.some((g) => word.startsWith(`${g}=`)) || word === '--rules-optional') continue;
      return undefined;
    }
    return word;
  }
  return undefined;
}

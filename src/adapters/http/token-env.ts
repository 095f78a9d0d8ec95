/**
 * The environment variables bearer tokens are read from (see auth.ts), apart
 * from the token code so that a command's options can name them without
 * loading it.
 */

/** Tokens given inline: `operator=… agent:SEAT=…`. */
export const TOKENS_ENV = 'PLANGATE_TOKENS';

/** The tokens file. */
export const TOKENS_FILE_ENV = 'PLANGATE_TOKENS_FILE';

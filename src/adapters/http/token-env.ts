/**
 * The environment variables bearer tokens are read from (see auth.ts), apart
 * from the token code so that a command's options can name them without
 * loading it.
 */

/** Tokens given inline: `operator=… agent:SEAT=…`. */
export const TOKENS_ENV = 'PLANGATE_TOKENS';

/** The tokens file. */
export const TOKENS_FILE_ENV = 'PLANGATE_TOKENS_FILE';

/** Allowed `Host` values of every listener, comma-separated (see rebinding.ts). */
export const ALLOWED_HOSTS_ENV = 'PLANGATE_ALLOWED_HOSTS';

/** Allowed `Origin` values of every listener, comma-separated (see rebinding.ts). */
export const ALLOWED_ORIGINS_ENV = 'PLANGATE_ALLOWED_ORIGINS';

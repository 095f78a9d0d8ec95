// Types of validators.mjs, for TypeScript (tests).
export interface GeneratedValidator {
  /** Where the generated module is written, relative to the package's root. */
  file: string;
  /** The schema it is compiled from, relative to the package's root. */
  schema: string;
  options: Record<string, unknown>;
}

/** Every validator the script generates. */
export const VALIDATORS: readonly GeneratedValidator[];

/** The source of one generated validator module. */
export function generate(v: GeneratedValidator): string;

/**
 * The OAuth options `plangate serve` and `plangate mcp --listen` share (see
 * http/oauth.ts): each from its flag or its environment variable. Nothing
 * here loads the verifier; the command's run module does, when it runs.
 */
import { Option, type Command } from 'commander';
import { ErrorCode, PlangateError } from '../../../core/errors.js';

export interface OAuthFlags {
  oauthIssuer?: string;
  oauthResource?: string;
  oauthJwksUri?: string;
  oauthSeatClaim?: string;
  oauthRoleClaim?: string;
}

/** Adds the OAuth options to a command. */
export function addOAuthOptions(command: Command): Command {
  return command
    .addOption(new Option('--oauth-issuer <url>', 'take JWT access tokens from this issuer (exact iss), beside the static tokens').env('PLANGATE_OAUTH_ISSUER'))
    .addOption(new Option('--oauth-resource <uri>', 'this server\'s resource URI: every JWT\'s audience must include it').env('PLANGATE_OAUTH_RESOURCE'))
    .addOption(new Option('--oauth-jwks-uri <url>', 'where the issuer publishes its signing keys (JWKS)').env('PLANGATE_OAUTH_JWKS_URI'))
    .addOption(new Option('--oauth-seat-claim <claim>', 'the JWT claim that names the seat (default sub)').env('PLANGATE_OAUTH_SEAT_CLAIM'))
    .addOption(new Option('--oauth-role-claim <claim>', 'the JWT claim that names the role (default plangate_role; absent: agent)').env('PLANGATE_OAUTH_ROLE_CLAIM'));
}

/**
 * The verifier's options from the flags, or undefined when none is given;
 * throws `invalid_input` when some but not all of issuer, resource and JWKS
 * URI are given (a half-configured verifier must not start).
 */
export function oauthFrom(flags: OAuthFlags): { issuer: string; resource: string; jwksUri: string; seatClaim?: string; roleClaim?: string } | undefined {
  const given = [flags.oauthIssuer, flags.oauthResource, flags.oauthJwksUri];
  if (given.every((g) => g === undefined) && flags.oauthSeatClaim === undefined && flags.oauthRoleClaim === undefined) return undefined;
  if (given.some((g) => g === undefined || g === '')) {
    throw new PlangateError(ErrorCode.InvalidInput, 'OAuth needs all of --oauth-issuer, --oauth-resource and --oauth-jwks-uri (or PLANGATE_OAUTH_ISSUER, PLANGATE_OAUTH_RESOURCE, PLANGATE_OAUTH_JWKS_URI)');
  }
  return {
    issuer: flags.oauthIssuer as string,
    resource: flags.oauthResource as string,
    jwksUri: flags.oauthJwksUri as string,
    ...(flags.oauthSeatClaim ? { seatClaim: flags.oauthSeatClaim } : {}),
    ...(flags.oauthRoleClaim ? { roleClaim: flags.oauthRoleClaim } : {}),
  };
}

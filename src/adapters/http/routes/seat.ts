/** Who a request acts as: the seat comes from the token, never from the body. */
import type { Principal } from '../auth.js';
import { HttpCode, HttpError } from '../errors.js';

/**
 * The seat an agent token acts as. A body that names another seat is refused
 * (403 `seat_mismatch`): a seat cannot decide, execute or post as another.
 *
 * @example
 * const seat = seatOf(ctx.principal, body.agent); // '0xWORKER'
 */
export function seatOf(principal: Principal | undefined, named: string | undefined, field = 'the request'): string {
  if (principal?.role !== 'agent') {
    throw new HttpError(HttpCode.Forbidden, `only an agent token acts as a seat (this is ${principal ? `an ${principal.role}` : 'no'} token)`);
  }
  if (named !== undefined && named !== principal.seat) {
    throw new HttpError(HttpCode.SeatMismatch, `this token acts as ${principal.seat}; ${field} names ${named}`);
  }
  return principal.seat;
}

import type { NextFunction, Request, Response } from "express";
import { GatewayError } from "@gateway/contracts";

export interface SlowDownOptions {
  /** Failures per address per window answered at once. */
  freeFailures: number;
  windowMs: number;
  /** The delay doubles from 100 ms per failure past the free ones, up to this. */
  maxDelayMs: number;
}

interface Tally {
  count: number;
  resetAt: number;
}

const MAX_ADDRESSES = 100_000;

/**
 * A 401 from an address that keeps failing is answered later and later, so guessing keys or
 * vendor tokens gets slow. Counts per client address: the socket's, or for Express routes
 * `request.ip`, which reads `x-forwarded-for` only from a peer the app's `trust proxy` names (the
 * proxy relaying /api), so a client cannot pick its own address.
 */
export class AuthFailureThrottle {
  private readonly tallies = new Map<string, Tally>();
  private readonly options: SlowDownOptions;

  constructor(options: SlowDownOptions) {
    this.options = options;
  }

  /** Counts a 401 for `address`; returns how long to hold its answer (0: at once). */
  delayMs(address: string): number {
    const now = Date.now();
    let tally = this.tallies.get(address);
    if (!tally || tally.resetAt <= now) {
      if (this.tallies.size >= MAX_ADDRESSES) this.tallies.clear();
      tally = { count: 0, resetAt: now + this.options.windowMs };
      this.tallies.set(address, tally);
    }
    tally.count += 1;
    const excess = tally.count - this.options.freeFailures;
    if (excess <= 0) return 0;
    return Math.min(this.options.maxDelayMs, 100 * 2 ** Math.min(excess - 1, 16));
  }

  /** Runs `answer` now, or later when `error` is a 401 from an address that keeps failing. */
  answer(error: unknown, address: string | undefined, answer: () => void): void {
    const delay = error instanceof GatewayError && error.status === 401 ? this.delayMs(address ?? "unknown") : 0;
    if (delay === 0) answer();
    else setTimeout(answer, delay);
  }
}

/**
 * An error middleware, placed just before the error handler: other errors and good requests pass
 * untouched. Pass a throttle to share its counts with routes served outside Express.
 */
export function slowDownAuthFailures(options: SlowDownOptions | AuthFailureThrottle) {
  const throttle = options instanceof AuthFailureThrottle ? options : new AuthFailureThrottle(options);
  return (error: unknown, request: Request, _response: Response, next: NextFunction): void => {
    throttle.answer(error, request.ip ?? request.socket.remoteAddress, () => next(error));
  };
}

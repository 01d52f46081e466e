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
 * An error middleware, placed just before the error handler: a 401 from an address that keeps
 * failing is answered later and later, so guessing keys or vendor tokens gets slow. Other errors
 * and good requests pass untouched.
 */
export function slowDownAuthFailures(options: SlowDownOptions) {
  const tallies = new Map<string, Tally>();
  return (error: unknown, request: Request, _response: Response, next: NextFunction): void => {
    if (!(error instanceof GatewayError) || error.status !== 401) {
      next(error);
      return;
    }
    const address = request.ip ?? request.socket.remoteAddress ?? "unknown";
    const now = Date.now();
    let tally = tallies.get(address);
    if (!tally || tally.resetAt <= now) {
      if (tallies.size >= MAX_ADDRESSES) tallies.clear();
      tally = { count: 0, resetAt: now + options.windowMs };
      tallies.set(address, tally);
    }
    tally.count += 1;
    const excess = tally.count - options.freeFailures;
    if (excess <= 0) {
      next(error);
      return;
    }
    const delay = Math.min(options.maxDelayMs, 100 * 2 ** Math.min(excess - 1, 16));
    setTimeout(() => next(error), delay);
  };
}

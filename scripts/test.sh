#!/usr/bin/env bash
# Quick start, command 2: sets up everything on a fresh machine and runs every test (type checks,
# unit tests and integration tests against real PostgreSQL and Redis). Each test run makes its own
# database and Redis key prefix and removes them afterwards.
source "$(dirname "${BASH_SOURCE[0]}")/lib/bootstrap.sh"
source "$ROOT/scripts/lib/services.sh"
# The vendor console's end-to-end tests drive Debian's Chromium (installed with apt when missing).
source "$ROOT/scripts/lib/chromium.sh"
# The alert rules' tests run promtool (Debian's prometheus package, installed with apt when missing).
source "$ROOT/scripts/lib/prometheus.sh"
cd "$ROOT"
export TURBO_TELEMETRY_DISABLED=1 TURBO_NO_UPDATE_NOTIFIER=1
pnpm exec turbo run typecheck --output-logs=errors-only
pnpm exec turbo run test --concurrency=2 --continue --output-logs=full "$@"

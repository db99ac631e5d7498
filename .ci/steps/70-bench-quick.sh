#!/usr/bin/env bash
# The quick bench (npm run bench -- --quick --gate=floor, under 2 minutes: 89 s at load average 4–6): each
# scenario of issue 14 against its bare same-work baseline, interleaved, and the Postgres/Redis
# round trips per request. CI gates on the regression floors (--gate=floor: a ratio under about 60%
# of a loaded run's value fails) and the round-trip limits, never on an absolute time; the issue's
# targets are printed beside each ratio; the full run meets them all, the quick one is too short for
# some (README, Benchmarks).
. .ci/lib.sh
set -e
npm run bench -- --quick --gate=floor

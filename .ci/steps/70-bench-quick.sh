#!/usr/bin/env bash
# The quick bench (npm run bench -- --quick, under 2 minutes): each scenario of issue 14 against
# its bare same-work baseline, interleaved; fails only when a ratio falls below its target, never
# on an absolute time (the README's Performance section).
. .ci/lib.sh
set -e
npm run bench -- --quick

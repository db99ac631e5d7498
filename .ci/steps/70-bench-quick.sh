#!/usr/bin/env bash
# The quick bench (npm run bench -- --quick --gate=floor, under 2 minutes): each scenario of issue 14 against
# its bare same-work baseline, interleaved. CI gates on the regression floors (--gate=floor: a
# ratio under about half of its last measured value fails), never on an absolute time; the issue's
# targets are printed beside each ratio and several are still missed (README, Performance).
. .ci/lib.sh
set -e
npm run bench -- --quick --gate=floor

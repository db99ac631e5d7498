#!/usr/bin/env bash
# The README's test command on the machine's Node: Swagger metadata, tsc, ESLint, Prettier, lock
# check, every Jest test. Its last line ("N passed, N failed") is counted test by test.
bash scripts/test.sh

#!/usr/bin/env bash
# Generates a migration from the entities (see src/database/generate-migration.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
SWC_NODE_PROJECT=tsconfig.json node -r @swc-node/register src/database/generate-migration.ts "$@"

#!/usr/bin/env bash
# Lints the partner OpenAPI document exactly as served (/public/v1/openapi.json) with Redocly and
# Spectral (spectral:oas + OWASP), using the committed redocly.yaml and .spectral.yaml. Offline.
set -euo pipefail
cd "$(dirname "$0")/.."
doc="$(mktemp -d)/openapi.json"
trap 'rm -rf "$(dirname "${doc}")"' EXIT
npx tsx scripts/openapi-document.ts "${doc}"
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true npx redocly lint --config redocly.yaml "${doc}"
npx spectral lint --ruleset .spectral.yaml --fail-severity warn "${doc}"

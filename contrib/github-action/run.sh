#!/usr/bin/env bash
# The GitHub Action's step (action.yml): installs sp-inspect, writes SARIF, annotates, fails the step on
# findings at or above SP_FAIL_ON. Runs outside GitHub too (tests/action.rs): set SP_BIN to a built binary
# to skip the install; GITHUB_STEP_SUMMARY and GITHUB_OUTPUT are used when set.
#   SP_OLD SP_NEW [SP_FAIL_ON=error] [SP_ARGS] [SP_SARIF=sp-inspect.sarif] [SP_BIN]
set -euo pipefail
: "${SP_OLD:?the savepoint (input old)}" "${SP_NEW:?the manifest of the new job (input new)}"
fail_on=${SP_FAIL_ON:-error}
sarif=${SP_SARIF:-sp-inspect.sarif}
read -r -a extra <<< "${SP_ARGS:-}"
bin=${SP_BIN:-}
if [ -z "$bin" ]; then
    # Build from the action's own source (the same commit the workflow pinned), once per runner.
    root=$(cd "$(dirname "$0")/../.." && pwd)
    dest=${RUNNER_TEMP:-/tmp}/sp-inspect-install
    if [ ! -x "$dest/bin/sp-inspect" ]; then
        cargo install --quiet --locked --path "$root" --root "$dest"
    fi
    bin=$dest/bin/sp-inspect
fi
# SARIF for code scanning, whatever the findings (a usage or input error still stops here: exit 2).
set +e
"$bin" diff "$SP_OLD" "$SP_NEW" "${extra[@]}" --format sarif --fail-on never -o "$sarif"
code=$?
set -e
[ "$code" -eq 0 ] || { echo "::error title=sp-inspect::could not read the inputs (exit $code)"; exit "$code"; }
if [ -n "${GITHUB_OUTPUT:-}" ]; then
    # The first "verdict" of the document is the top-level one (keys are sorted; with_fixes comes after).
    verdict=$("$bin" diff "$SP_OLD" "$SP_NEW" "${extra[@]}" --format json --fail-on never \
        | grep -o '"verdict": "[a-z_]*"' | head -n1 | cut -d'"' -f4)
    echo "verdict=$verdict" >> "$GITHUB_OUTPUT"
fi
# Annotations on stdout, the whole report in the job summary, and the step's exit code.
exec "$bin" diff "$SP_OLD" "$SP_NEW" "${extra[@]}" --format github --fail-on "$fail_on"

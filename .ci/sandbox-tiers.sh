#!/usr/bin/env bash
# Runs the sandbox tests in every Linux tier this machine offers (SPEC §7, §10):
#   1. as the current user (root in CI) with the configured python3: bwrap+landlock+seccomp and
#      landlock+seccomp (the suite runs both tiers itself);
#   2. as root with the system interpreter (/usr/bin/python3) as well (the child drops to a uid of
#      its own with either interpreter; pyenv's under /root 0700 is reached through binds);
#   3. as an unprivileged user (created with useradd when missing), from a copy of the checkout
#      that user can read: a CI clone may live under /root (mode 0700).
# Usage (as root): bash .ci/sandbox-tiers.sh [--extra-only]
#   --extra-only: skip run 1 (when `npm test` already ran the suite as the current user).
# Environment: PTC_SANDBOX_TEST_USER (default ptcsandbox).
set -euo pipefail

extra_only=false
[ "${1:-}" = --extra-only ] && extra_only=true

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
user="${PTC_SANDBOX_TEST_USER:-ptcsandbox}"
# The sandbox tier: vitest's `sandbox` project, the test files whose first line is `// @tier sandbox`
# (test/setup/tiers.ts): the escape and isolation suites, scratch removal (as a user without DAC
# override too) and the hostile-program suites (test/reliability/hostile-*). Those that run `serve`
# get the tier from PTC_MCP_BWRAP, so the hostile suites of the sandbox tier run once more with
# PTC_MCP_BWRAP=0 (Landlock + seccomp alone).
hostile=()
for file in "$repo"/test/reliability/hostile-*.test.ts; do
  [ -e "$file" ] && [ "$(head -n 1 "$file")" = "// @tier sandbox" ] && hostile+=("test/reliability/$(basename "$file")")
done
suite=(--project sandbox)

if [ "$(uname -s)" != Linux ]; then
  echo "sandbox-tiers: Linux only" >&2
  exit 0
fi

if ! command -v bwrap >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "sandbox-tiers: installing bubblewrap"
  apt-get install -y bubblewrap >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y bubblewrap >/dev/null; }
fi

if [ "$extra_only" = false ]; then
  echo "== sandbox tiers as $(id -un) with $(command -v python3)"
  (cd "$repo" && npx vitest run "${suite[@]}")
fi
if [ "${#hostile[@]}" -gt 0 ]; then
  echo "== hostile suites as $(id -un), Landlock + seccomp alone"
  (cd "$repo" && PTC_MCP_BWRAP=0 npx vitest run "${hostile[@]}")
fi

if [ "$(id -u)" != 0 ]; then
  echo "sandbox-tiers: not root, so the root and unprivileged-user runs are skipped" >&2
  exit 0
fi

if [ -x /usr/bin/python3 ] && [ "$(readlink -f /usr/bin/python3)" != "$(readlink -f "$(command -v python3)")" ]; then
  echo "== sandbox tiers as root with /usr/bin/python3"
  (cd "$repo" && PTC_MCP_TEST_PYTHON=/usr/bin/python3 npx vitest run "${suite[@]}")
fi

id -u "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$user"
home="$(getent passwd "$user" | cut -d: -f6)"
if ! runuser -u "$user" -- env -i PATH=/usr/local/bin:/usr/bin:/bin python3 -c pass 2>/dev/null; then
  echo "sandbox-tiers: installing python3 for $user (root's python3 is not readable by other users)"
  apt-get install -y python3 >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y python3 >/dev/null; }
fi

work="$(mktemp -d /tmp/ptc-sandbox-tiers.XXXXXX)"
trap 'rm -rf "$work"' EXIT
(cd "$repo" && find . -mindepth 1 -maxdepth 1 ! -name .git -exec cp -a {} "$work"/ \;)
chown -R "$user:" "$work"
chmod 755 "$work"

as_user() {
  runuser -u "$user" -- env -i HOME="$home" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 CI="${CI:-}" "$@"
}
echo "== sandbox tiers as $user"
as_user bash -c 'cd "$1" && shift && npx vitest run "$@"' _ "$work" "${suite[@]}"
if [ "${#hostile[@]}" -gt 0 ]; then
  echo "== hostile suites as $user, Landlock + seccomp alone"
  as_user PTC_MCP_BWRAP=0 bash -c 'cd "$1" && shift && npx vitest run "$@"' _ "$work" "${hostile[@]}"
fi

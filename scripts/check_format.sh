#!/usr/bin/env bash
# Fails, naming the files, when a C++ source is not laid out as the root .clang-format says.
# `scripts/check_format.sh --fix` rewrites them instead.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mapfile -t files < <(git ls-files '*.cpp' '*.h')
if [[ "${1:-}" == --fix ]]; then
  clang-format-14 -i "${files[@]}"
  exit 0
fi
# Many files per clang-format process, two processes at once: one process per file spends more
# time starting than formatting. Each file it would change is named in a "code should be
# clang-formatted" diagnostic.
report=$(printf '%s\0' "${files[@]}" | xargs -0 -P "$(nproc)" -n 64 clang-format-14 --dry-run -Werror 2>&1 || true)
mapfile -t unformatted < <(grep -E 'error: code should be clang-formatted' <<<"$report" | cut -d: -f1 | sort -u)
if [[ -n "$report" && ${#unformatted[@]} -eq 0 ]]; then
  printf 'clang-format failed:\n%s\n' "$report"  # not a layout difference: say what it was
  exit 1
fi
if [[ ${#unformatted[@]} -gt 0 ]]; then
  printf 'not formatted (scripts/check_format.sh --fix): %s\n' "${unformatted[@]}"
  exit 1
fi
echo "format: ${#files[@]} files as .clang-format says"

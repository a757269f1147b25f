#!/usr/bin/env bash
# clang-format (.clang-format) over the project's C and C++ sources.
#   scripts/format.sh          rewrites the files in place
#   scripts/format.sh --check  lists the files that are not formatted, exit 1 if any
# The files git tracks or would add (new ones too, so that a file is
# formatted before its first commit); tests/golden/ holds generated code
# compared byte for byte: not formatted.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.c' '*.h' '*.cpp' '*.hpp' |
  grep -v '^tests/golden/')
if [ "${1:-}" = "--check" ]; then
  bad=()
  for f in "${files[@]}"; do
    clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
  done
  if [ ${#bad[@]} -gt 0 ]; then
    echo "format: not clang-formatted (run scripts/format.sh): ${bad[*]}" >&2
    exit 1
  fi
  echo "format: ${#files[@]} files clang-formatted"
else
  clang-format -i "${files[@]}"
fi

#!/usr/bin/env bash
# The layers of docs/architecture.md: a module may include headers of the modules before it in
# this list (and its own), never of one after it. Prints every #include that points up and
# exits 1 when there is one.
# usage: test/layering_test.sh [SOURCE_DIR]
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
layers=(model placement policy http metrics kube strategies report simulation usage controller cli)

position() {
  local i
  for i in "${!layers[@]}"; do
    if [[ ${layers[$i]} == "$1" ]]; then
      echo "$i"
      return
    fi
  done
  echo -1
}

violations=0
checked=0
for module in "${layers[@]}"; do
  own=$(position "$module")
  while IFS=: read -r file line text; do
    used=$(sed -E 's/^#include "([a-z_]+)\/.*/\1/' <<<"$text")
    at=$(position "$used")
    ((at >= 0)) || continue  # not one of ours (test/ helpers are not included by modules)
    checked=$((checked + 1))
    if ((at > own)); then
      echo "layering: $file:$line: $module includes $used, a layer above it: $text"
      violations=$((violations + 1))
    fi
  done < <(grep -n '^#include "[a-z_]*/' "$module"/*.h "$module"/*.cc)
done
echo "layering: $checked includes of ${#layers[@]} modules checked, $violations pointing up"
((violations == 0))

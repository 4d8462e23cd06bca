#!/usr/bin/env bash
# tools/reference_checksums.sh at the sizes given, against inputs/reference_checksums.txt:
# every line it makes must be the file's line for that size and precision.
#   tests/references_check.sh BIN SOURCE_DIR SIZE...
set -euo pipefail
bin=$1 src=$2
shift 2
file=$src/inputs/reference_checksums.txt
made=$("$src/tools/reference_checksums.sh" "$bin" "$@" | grep -v '^#')
status=0
while read -r deck size precision steps sum; do
  shipped=$(awk -v d="$deck" -v n="$size" -v p="$precision" -v s="$steps" \
    '$1 == d && $2 == n && $3 == p && $4 == s { print $5 }' "$file")
  if [ "$shipped" != "$sum" ]; then
    echo "FAIL: $deck $size $precision $steps: made $sum, shipped '${shipped}' (regenerate: tools/reference_checksums.sh)"
    status=1
  fi
done <<<"$made"
[ -n "$made" ] || { echo "FAIL: tools/reference_checksums.sh made nothing"; status=1; }
[ $status = 0 ] && echo "ok: $(wc -l <<<"$made") reference checksums made again equal the shipped ones"
exit $status

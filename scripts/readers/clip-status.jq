# Every clip's one status from a driftfix report, one "status<TAB>clip" line each, without reading a note:
#   jq -r -f scripts/readers/clip-status.jq report.json
# Reads `driftfix sync --format json` (groups[].files) and the scan/repair report of a night paired by sound
# (version 2: a sound-paired row's `place`, an unpaired file's `status`).
if has("groups") then
  .groups[].files[] | select(.kind == "clip") | "\(.status)\t\(.path)"
else
  ((.pairs[] | select(.pairedBy == "sound" and (.place == "used" or .place == "failed"))
     | "\(if .place == "used" then "paired" else "failed" end)\t\(.reference)"),
   (.unpaired[] | select(.kind == "reference" and .status != null) | "\(.status)\t\(.path)"))
end

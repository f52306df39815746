#!/usr/bin/env bash
# read_file of images and PDFs (issue 26): a 4000×3000 JPEG scaled to the
# model's limit against ImageMagick's convert -resize, a 100-page PDF's
# text against poppler's pdftotext, peak RSS of each, and read_file of
# 4 KiB text against the binary before (BASE_BIN, when set). convert and
# pdftotext come from Debian (imagemagick, poppler-utils); a missing one
# prints MISS.
set -euo pipefail
echo "== media: images and PDFs through read_file"
go build -o "$BENCH_CACHE/media-bench" ./bench/media
"$BENCH_CACHE/media-bench" -bin "$BIN"

#!/usr/bin/env bash
# bench/photo.sh — photo encoder benchmark (issue 5).
#
# Encodes Debian's mate-backgrounds photos (nature/*.jpg and
# abstract/Elephants_5640x3172.jpg) and two synthetic raw camera frames
# (1920x1080 and 4056x3040, 4:2:0 Y'CbCr) with `acbridge photo --input` and
# with ImageMagick
#   convert IN -auto-orient -strip -resize '1024x1024>' -define jpeg:extent=60KB OUT
# and prints per image: bytes, dimensions, PSNR against the source scaled to
# fit 1,024 px (compare -metric PSNR; an output smaller than that is scaled
# back up first), CPU seconds and peak RSS of each, then the ratios and the
# issue's targets. Every acbridge output is also checked: ≤ 61,440 bytes,
# ≤ 1,024 px, no APPn/COM segment, passes jpeg.Verify and identify.
#
# Usage: bench/photo.sh [WORKDIR]   (run from anywhere; needs Go and root or
# sudo to install missing Debian packages). Exit status 1 when a check or a
# target fails.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
for pkg in mate-backgrounds imagemagick libjpeg62-turbo-dev gcc; do
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' || missing+=("$pkg")
done
if ((${#missing[@]})); then
	echo "installing: ${missing[*]}" >&2
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >&2
fi

work=${1:-}
if [ -z "$work" ]; then
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"

go build -o "$work/acbridge" ./cmd/acbridge
go build -o "$work/photobench" ./bench/photobench
"$work/photobench" gen -w 1920 -h 1080 -seed 1 -y4m "$work/camera_1920x1080.y4m" -yuv "$work/camera_1920x1080.yuv"
"$work/photobench" gen -w 4056 -h 3040 -seed 2 -y4m "$work/camera_4056x3040.y4m" -yuv "$work/camera_4056x3040.yuv"

images=(/usr/share/backgrounds/mate/nature/*.jpg /usr/share/backgrounds/mate/abstract/Elephants_5640x3172.jpg
	"$work/camera_1920x1080.y4m" "$work/camera_4056x3040.y4m")

# imin FILE: ImageMagick's input arguments for FILE (raw frames need their geometry).
imin() {
	case "$1" in
	*.y4m)
		local base=${1%.y4m} geo
		geo=${base##*_}
		echo "-size $geo -sampling-factor 4:2:0 -depth 8 yuv:$base.yuv"
		;;
	*) echo "$1" ;;
	esac
}

# timed OUTFILE CMD...: runs CMD, leaves "cpu_seconds peak_rss_kib" in OUTFILE.
timed() {
	local out=$1
	shift
	"$work/photobench" time "$out" -- "$@" >/dev/null
}

# psnr REF OUT: PSNR of OUT against REF, OUT scaled to REF's size first if needed.
psnr() {
	local ref=$1 out=$2 rd od
	rd=$(identify -format '%wx%h' "$ref")
	od=$(identify -format '%wx%h' "$out")
	if [ "$rd" != "$od" ]; then
		convert "$out" -resize "$rd!" -depth 16 "$out.scaled.png"
		out="$out.scaled.png"
	fi
	# compare exits 1 whenever the images differ at all.
	{ compare -metric PSNR "$ref" "$out" null: 2>&1 || true; } | awk '{ print $1 }'
}

fail=0
rows="$work/rows.tsv"
: >"$rows"
printf '%-26s | %-37s | %-37s | %6s %6s\n' "" "acbridge photo" "ImageMagick convert" "" ""
printf '%-26s | %6s %-9s %6s %6s %6s | %6s %-9s %6s %6s %6s | %6s %6s\n' \
	image bytes dims PSNR CPU_s RSS_M bytes dims PSNR CPU_s RSS_M dPSNR CPU_x
for img in "${images[@]}"; do
	name=$(basename "${img%.*}")
	# shellcheck disable=SC2046 # word splitting of imin is intended
	convert $(imin "$img") -auto-orient -resize '1024x1024>' -depth 16 "$work/$name.ref.png"

	ours="$work/$name.acbridge.jpg"
	theirs="$work/$name.magick.jpg"
	timed "$work/$name.acbridge" "$work/acbridge" photo --input "$img" -o "$ours"
	# shellcheck disable=SC2046
	timed "$work/$name.magick" convert $(imin "$img") -auto-orient -strip -resize '1024x1024>' \
		-define jpeg:extent=60KB "$theirs"

	if ! "$work/photobench" check "$ours" >/dev/null || ! identify "$ours" >/dev/null 2>&1; then
		echo "CHECK FAILED: $ours" >&2
		"$work/photobench" check "$ours" >&2 || true
		fail=1
	fi
	read -r oc orss <"$work/$name.acbridge"
	read -r ic irss <"$work/$name.magick"
	ob=$(stat -c %s "$ours")
	ib=$(stat -c %s "$theirs")
	od=$(identify -format '%wx%h' "$ours")
	id=$(identify -format '%wx%h' "$theirs")
	op=$(psnr "$work/$name.ref.png" "$ours")
	ip=$(psnr "$work/$name.ref.png" "$theirs")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$ob" "$od" "$op" "$oc" "$orss" "$ib" "$id" "$ip" "$ic" "$irss" >>"$rows"
	awk -F'\t' -v n="$name" '$1 == n {
		printf "%-26s | %6d %-9s %6.2f %6.3f %6.1f | %6d %-9s %6.2f %6.3f %6.1f | %+6.2f %6.3f\n",
			$1, $2, $3, $4, $5, $6 / 1024, $7, $8, $9, $10, $11 / 1024, $4 - $9, $5 / $10 }' "$rows"
done

awk -F'\t' '
	{ n++; oc += $5; ic += $10; d = $4 - $9; sd += d
	  if (n == 1 || d < mind) { mind = d; minn = $1 }
	  r = $5 / $10; if (r > maxr) { maxr = r; maxn = $1 }
	  if ($1 ~ /Elephants_5640x3172/) { erss = $6 / 1024 } }
	END {
		printf "\ntotals over %d images: CPU %.3f s vs %.3f s (ratio %.3f, per-image max %.3f on %s)\n", n, oc, ic, oc / ic, maxr, maxn
		printf "PSNR difference: mean %+.2f dB, worst %+.2f dB (%s)\n", sd / n, mind, minn
		printf "peak RSS for Elephants_5640x3172: %.1f MiB\n\n", erss
		t1 = maxr <= 1 / 3; t2 = mind >= 0 && sd / n >= 0.5; t3 = erss <= 64
		printf "target CPU per photo <= 1/3 of ImageMagick (every image): %s\n", t1 ? "met" : "MISSED"
		printf "target PSNR >= ImageMagick on every image and >= +0.5 dB mean: %s\n", t2 ? "met" : "MISSED"
		printf "target peak RSS <= 64 MiB for the 5640x3172 input: %s\n", t3 ? "met" : "MISSED"
		exit !(t1 && t2 && t3)
	}' "$rows" || fail=1
exit $fail

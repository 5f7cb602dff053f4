#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Instructions per 32-byte output on the Cortex-M3 model (QEMU mps2-an385,
# -icount shift=0, SysTick), projected to the STM32F103 at 72 MHz with 1.3
# and 1.8 cycles per instruction (flash wait states, prefetch), next to NeuG 1.0.x
# on the FST-01 (80 kB/s conditioned, 270 kB/s CRC32) and NeuG's own counts
# on the same QEMU model (SHA-256 about 7,000 instructions per output, the
# whole per-output path about 11,200). Figures, not tests.
set -u
cd "$(dirname "$0")/.."
vec=${NG_VECTORS:-tests/data}
command -v qemu-system-arm >/dev/null || { echo "   skipped: qemu-system-arm not installed"; exit 0; }
command -v arm-none-eabi-gcc >/dev/null || { echo "   skipped: arm-none-eabi-gcc not installed"; exit 0; }
[ -r "$vec/neug-1.0.6/adc.bin" ] || { echo "   skipped: no vectors in $vec"; exit 0; }
make --no-print-directory -s NG_VECTORS="$vec" firmware-qemu >/dev/null 2>&1 ||
	{ echo "   build failed (make firmware-qemu)"; exit 1; }
# qemu ELF ARGS...: runs a QEMU image, its semihosting output on stdout.
qemu() { local elf=$1; shift
	timeout 300 qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none \
		-semihosting-config enable=on,target=native "$@" -kernel "$elf" 2>&1; }
out=$(qemu build/firmware/qemu/fw_bench.elf -icount shift=0)
get() { echo "$out" | awk -v k="$1" '$1 == "bench:" && $2 == k { print $3 }'; }
cal=$(get calibration_ticks_per_2M_instructions)
echo "   Cortex-M3 (qemu mps2-an385 -icount shift=0): SysTick calibration $cal ticks per 2M instructions"
row() { # label milli-instructions neug_instr neug_rate_kBps
	awk -v l="$1" -v m="$2" -v ni="$3" -v nr="$4" 'BEGIN {
		i = m / 1000
		if (i <= 0) { printf "   %-38s (not measured)\n", l; exit }
		kbs = 32 / (i * 1.3 / 72e6) / 1000
		kbs18 = 32 / (i * 1.8 / 72e6) / 1000
		printf "   %-38s %8.0f instr/output  %7.1f kB/s at 72 MHz CPI 1.3, %7.1f at CPI 1.8", l, i, kbs, kbs18
		n = ""
		if (ni != "") n = "NeuG " ni " instr (ratio " sprintf("%.2f", i / ni) ")"
		if (nr != "") n = n (n != "" ? ", " : "NeuG ") nr " kB/s on FST-01"
		if (n != "") printf "   (%s)", n
		printf "\n" }'
}
row "conditioned, CRC unit (firmware path)" "$(get conditioned_hwcrc_minstr_per_output)" 11200 80
# The ADC side (doc/firmware.md, "Sampling regime"): 12 MHz ADC clock,
# fast interleaved 1.5-cycle sampling: a word each 14 cycles, the first
# of a batch 7 + 14 cycles after the trigger, plus tSTAB (1 us = 12 cycles)
# per batch; 3 batches per conditioned output: 14 x 140 + 3 x (7 + 12).
awk -v m="$(get conditioned_hwcrc_minstr_per_output)" 'BEGIN {
	adc_us = (14 * 140 + 3 * (7 + 12)) / 12
	adc = 32 / adc_us * 1e6 / 1000
	i = m / 1000
	if (i <= 0) exit
	for (c = 1.3; c <= 1.81; c += 0.5) {
		cpu = 32 / (i * c / 72e6) / 1000
		out = cpu < adc ? cpu : adc
		busy80 = 2500 * i * c / 72e6 * 100
		printf "     conditioned at CPI %.1f: ADC bound %.1f kB/s (%.1f us per output), CPU bound %.1f kB/s: %.1f kB/s; CPU %.1f%% busy at 80 kB/s\n",
			c, adc, adc_us, cpu, out, busy80
	}
}'
row "  the same, raw tests on the words only" "$(get conditioned_hwcrc_words_minstr_per_output)" "" ""
row "  as QEMU runs it (samples mapped)" "$(get conditioned_hwcrc_mixed_minstr_per_output)" "" ""
row "conditioned, software CRC" "$(get conditioned_swcrc_minstr_per_output)" "" ""
row "CRC32 mode, CRC unit (firmware path)" "$(get crc32_hwcrc_minstr_per_output)" "" 270
row "CRC32 mode, software CRC" "$(get crc32_swcrc_minstr_per_output)" "" ""
row "raw mode (health tests only)" "$(get raw_minstr_per_output)" "" ""
row "SHA-256 of the 161-byte message" "$(get sha256_161B_minstr)" 7000 ""
part() { awk -v l="$1" -v m="$2" -v u="$3" 'BEGIN { if (m > 0) printf "     %-44s %9.1f instr%s\n", l, m / 1000, u }'; }
echo "   where the conditioned path's instructions go (per 32-byte output: 140 samples, 35 CRC words, 3 SHA-256 blocks):"
part "raw-sample health tests as the path calls them, 3 streams" "$(get health_path_minstr_per_output)" " per output"
part "  the same on the mapped samples" "$(get health_path_mixed_minstr_per_output)" " per output"
part "  the words only" "$(get health_path_words_minstr_per_output)" " per output"
part "raw-sample health tests, per sample, 3 streams" "$(get health_test_3streams_minstr_per_sample)" " (x140)"
part "  the same, the words only" "$(get health_test_words_minstr_per_sample)" " (x140)"
part "NeuG CRC-output tests, per CRC word" "$(get neug_tests_word_minstr)" " (x35)"
part "software CRC, per word (the CRC unit replaces it)" "$(get crc32_sw_minstr_per_word)" " (x140)"
part "SHA-256 compression, per 64-byte block" "$(get sha256_minstr_per_64B_block)" " (x3; NeuG: about 7,000 per output)"
part "  the same, the portable C (core/src/sha256.c)" "$(get sha256_portable_minstr_per_64B_block)" " (x3; the QEMU tests' cross-check)"
part "ng_wipe, per byte" "$(get wipe_minstr_per_byte)" ""
part "  a word-wise volatile wipe, per byte" "$(get wipe_words_minstr_per_byte)" ""
# Exact instructions per function on the conditioned path: QEMU's trace of
# every executed instruction (-singlestep -d exec) between fw_prof.elf's
# ng_prof_begin and ng_prof_end, divided by the outputs released.
prof=build/firmware/qemu/fw_prof.elf
if [ -f "$prof" ]; then
	trace=$(mktemp)
	pout=$(qemu "$prof" -singlestep -d exec,nochain -D "$trace")
	nb=$(echo "$pout" | awk '$1 == "prof:" && $2 == "blocks" { print $3 }')
	na=$(echo "$pout" | awk '$1 == "prof:" && $2 == "adc_blocks" { print $3 }')
	if [ -n "$nb" ] && [ "$nb" -gt 0 ] && [ -n "$na" ] && [ "$na" -gt 0 ]; then
		# The functions of the raw-sample tests counted on the ADCs' own
		# samples (the second traced part: ng_health_path), the rest on
		# the path over the mapped samples.
		echo "   instructions per conditioned output by function (QEMU instruction trace over $nb outputs; the raw tests over $na on the ADCs' samples):"
		awk -v nb="$nb" -v na="$na" '$5 == "ng_prof_begin" { on = 1; next } $5 == "ng_prof_end" { on = 0 }
			$5 == "ng_prof_adc_begin" { on = 2; next } $5 == "ng_prof_adc_end" { exit }
			on == 1 { c[$5]++ } on == 2 && $5 != "ng_ticks" && $5 != "main" { a[$5]++ }
			END { for (k in a) { printf "%.0f %s\n", a[k] / na, k; t += a[k] / na }
			      for (k in c) if (!(k in a)) { printf "%.0f %s\n", c[k] / nb, k; t += c[k] / nb }
			      printf "%.0f TOTAL\n", t }' "$trace" |
			sort -rn | awk '$1 >= 20 { printf "     %-44s %7.0f\n", $2, $1 }'
	else
		echo "   (profile run failed: $(echo "$pout" | tail -1))"
	fi
	rm -f "$trace"
fi
c=$(get conditioned_hwcrc_minstr_per_output)
awk -v m="$c" 'BEGIN { i = m / 1000; printf "   goal: whole per-output path <= 11,000 instructions: %s (%.0f)\n", (i <= 0 ? "not measured" : i <= 11000 ? "met" : "NOT met"), i }'
# The firmware's own instructions per conditioned output (fw_cost.c): the
# trace of the real main loop, DMA interrupt, group hand-off and USB path
# over the register model, without the model's functions (fw_*,
# ng_model_*) and without ng_pipeline_put_many / ng_pipeline_take and their
# callees (the pipeline, counted above); a library function (memcpy ...)
# counts for the side that called it.
cost=build/firmware/qemu/fw_cost.elf
if [ -f "$cost" ]; then
	trace=$(mktemp)
	cout=$(qemu "$cost" -singlestep -d exec,nochain -D "$trace")
	no=$(echo "$cout" | awk '$1 == "cost:" && $6 == "setup" && $7 == "ok" { print $3 }')
	if [ -n "$no" ] && [ "$no" -gt 0 ]; then
		fparts=$(awk 'function model(f) { return f ~ /^fw_/ || f ~ /^ng_model_/ || f == "main" }
			function shared(f) { return f ~ /^mem(cpy|set|move|cmp)$/ || f ~ /^__/ }
			$5 == "ng_cost_begin" { on = 1; next } $5 == "ng_cost_end" { exit } !on { next }
			{ f = $5
			  if (skipto != "") { if (f == skipto) skipto = ""; else next }
			  if (f == "ng_pipeline_put_many" || f == "ng_pipeline_take") { skipto = last; next }
			  if (f ~ /^ng_model_(read|write)/ && !model(last)) acc++
			  if (shared(f)) { if (!lastmodel) c[f]++; next }
			  lastmodel = model(f); if (!lastmodel) c[f]++; last = f }
			END { for (k in c) printf "%d %s\n", c[k], k; printf "%d ACCESSES\n", acc }' "$trace")
		fw=$(echo "$fparts" | awk -v n="$no" '$2 != "ACCESSES" { t += $1 } END { printf "%.0f", t / n }')
		acc=$(echo "$fparts" | awk -v n="$no" '$2 == "ACCESSES" { printf "%.0f", $1 / n }')
		echo "   the firmware's own instructions per conditioned output (main loop, DMA interrupt, group hand-off, USB write and its interrupt; fw_cost.c over $no outputs): $fw"
		echo "$fparts" | awk -v n="$no" '$2 != "ACCESSES" { printf "%.0f %s\n", $1 / n, $2 }' | sort -rn |
			awk '$1 >= 20 { printf "     %-44s %7.0f\n", $2, $1 }'
		echo "     (its $acc register accesses per output are calls into the register model here: each about 2 instructions more than the board's load or store; the packet memory is plain memory, as on the board)"
		awk -v m="$c" -v f="$fw" 'BEGIN { i = m / 1000 + f; if (m <= 0) exit
			for (cpi = 1.3; cpi <= 1.81; cpi += 0.5)
				printf "     pipeline + firmware = %.0f instructions per output: CPU %.1f%% busy at 80 kB/s at CPI %.1f; CPU bound %.1f kB/s\n",
					i, 2500 * i * cpi / 72e6 * 100, cpi, 32 / (i * cpi / 72e6) / 1000
			printf "   goal: CPU under 70%% busy at 80 kB/s at CPI 1.8 (<= 11,200 instructions per output in all): %s\n", i <= 11200 ? "met" : "NOT met" }'
	else
		echo "   (firmware cost run failed: $(echo "$cout" | tail -1))"
	fi
	rm -f "$trace"
fi
if make --no-print-directory -s firmware >/dev/null 2>&1; then
	echo "   code size (make firmware; NeuG 1.0.x with Chopstx, USB and MSC is the reference):"
	bash firmware/stm32f103/size.sh $(basename -a firmware/stm32f103/boards/*.h | sed 's/\.h$//') | sed 's/^/   /'
else
	echo "   code size: make firmware failed"
fi

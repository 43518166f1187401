// The phase vocoder's frame kernel. A frame's phases come from phase-gradient heap integration (Průša and
// Holighaus, "Phase Vocoder Done Right", 2017): starting from the strongest bins, each phase is carried forward in time
// from the previous frame by the instantaneous frequency, or across frequency from a stronger neighbour by the
// phase's slope along frequency, which the log-magnitude's change in time gives for a Gaussian-like window. A sinusoid
// stays one sinusoid (no phasiness) and a click stays one click (its bins stay aligned), without peak picking.
// The phases are those of the sum of the channels; every channel is turned by the same angles, so the image between
// them (level and delay differences) is the input's.
// Transients: a bin whose level jumps is a transient's, and stays one while its group delay (where its energy sits in
// the frame, from the analysed phases' slope along frequency) moves back by each analysis hop, as an impulse's does.
// Before the transient reaches the window's centre such a bin is held at its level before the jump (no pre-echo); from
// the centre on it keeps its analysed phase, turned so that the transient lands where the time map puts it (at the
// stretch ratio times its distance from the centre), with the gain that makes the frames holding it sum to one. A click
// stays one click on its mapped sample at any ratio, rather than smeared or moved by up to half a window (Röbel's
// transient handling, with the position kept).
#include "spectral.h"

#include <kissfft/kiss_fftr.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { bucket_count = 1024 };

static const float two_pi = 6.28318530717958647692f;
static const float pi = 3.14159265358979323846f;
// The phase-gradient relation of a Hann window of length N is the Gaussian's with λ = 0.25645 N² (Průša et al.).
static const float hann_lambda = 0.25645f;
// Bins more than 100 dB below the frame's strongest carry nothing worth integrating.
static const float tolerance = 1e-5f;
// A level jump of 6 dB or more between frames marks a transient's bin.
static const float onset_rise = 2.0f;

typedef struct {
    kiss_fft_cpx *spectra;  // channels × bins
    float *magnitude;       // of the channels' sum
    float *log_magnitude;
    float *phase;
    int32_t advance;  // from the previous frame's centre
} frame_slot;

struct driftfix_vocoder {
    int32_t size, hop, channels, bins;
    kiss_fftr_cfg forward, inverse;
    float *window, *scratch;
    kiss_fft_cpx *sum;
    frame_slot slots[3];
    int previous, current, ahead;  // slot indices
    int32_t pushed;
    // The synthesis so far: the previous frame's phases and instantaneous frequencies (radians per sample).
    float *synthesis_phase, *frequency;
    // This frame's working arrays.
    float *next_phase, *next_frequency, *slope, *rotation_re, *rotation_im;
    uint8_t *settled;
    // Per bin: whether it carries a transient, and its group delay in the previous frame (samples from the centre) and
    // its level before the transient.
    uint8_t *transient;
    float *held_delay, *held_level;
    // The gain of a transient at each distance from the centre, for the last two analysis hops (they alternate).
    float *transient_gain[2];
    int32_t gain_advance[2];
    int32_t *bucket_head, *next_entry;
    float scale;
};

// ---- fast elementary functions (errors far below what a 24-bit output or the integration can show) ----------------

// Nearest integer, as a float; |x| < 2^31 (phases and quadrants here are far smaller). Plain conversions, which vectorise
// on every x86-64, where rintf needs SSE4.1.
static inline float round_near(float x) { return (float)(int32_t)(x + (x >= 0 ? 0.5f : -0.5f)); }

static inline float wrap(float x) { return x - two_pi * round_near(x * (1.0f / two_pi)); }

static inline float fast_atan2(float y, float x) {
    const float ax = fabsf(x), ay = fabsf(y);
    const float big = fmaxf(ax, ay), small = fminf(ax, ay);
    const float a = big > 0 ? small / big : 0.0f;
    const float s = a * a;
    // Minimax on [0, 1]: error below 1e-5 radians.
    float r = ((((0.0208351f * s - 0.085133f) * s + 0.180141f) * s - 0.3302995f) * s + 0.999866f) * a;
    r = ay > ax ? 1.57079632679489662f - r : r;
    r = x < 0 ? pi - r : r;
    return y < 0 ? -r : r;
}

static inline void fast_sincos(float x, float *s, float *c) {
    const float q = round_near(x * 0.63661977236758134f);  // quadrant
    const float r = (x - q * 1.5707963267341256f) - q * 6.077100506506192e-11f;
    const float r2 = r * r;
    const float sr = r + r * r2 * (-0.16666667f + r2 * (0.0083333310f + r2 * -0.00019840874f));
    const float cr = 1.0f + r2 * (-0.5f + r2 * (0.041666638f + r2 * (-0.0013888378f + r2 * 2.4760495e-05f)));
    const int quadrant = (int)q & 3;
    const float sv = (quadrant & 1) ? cr : sr;
    const float cv = (quadrant & 1) ? sr : cr;
    *s = (quadrant & 2) ? -sv : sv;
    *c = ((quadrant + 1) & 2) ? -cv : cv;
}

static inline float fast_log(float x) {
    union {
        float f;
        uint32_t u;
    } v = {x};
    const int exponent = (int)((v.u >> 23) & 0xff) - 127;
    v.u = (v.u & 0x007fffffu) | 0x3f800000u;  // mantissa in [1, 2)
    const float t = (v.f - 1.0f) / (v.f + 1.0f);
    const float t2 = t * t;
    const float series = 2.0f * t * (1.0f + t2 * (0.33333333f + t2 * (0.2f + t2 * 0.14285714f)));
    return (float)exponent * 0.69314718055994531f + series;
}

// ---- lifetime -------------------------------------------------------------------------------------------------------

static int factors_ok(int32_t n) {
    while (n % 2 == 0) n /= 2;
    while (n % 3 == 0) n /= 3;
    while (n % 5 == 0) n /= 5;
    return n == 1;
}

void driftfix_vocoder_destroy(driftfix_vocoder *v) {
    if (!v) return;
    kiss_fftr_free(v->forward);
    kiss_fftr_free(v->inverse);
    for (int i = 0; i < 3; i++) {
        free(v->slots[i].spectra);
        free(v->slots[i].magnitude);
        free(v->slots[i].log_magnitude);
        free(v->slots[i].phase);
    }
    free(v->window);
    free(v->scratch);
    free(v->sum);
    free(v->synthesis_phase);
    free(v->frequency);
    free(v->next_phase);
    free(v->next_frequency);
    free(v->slope);
    free(v->rotation_re);
    free(v->rotation_im);
    free(v->settled);
    free(v->transient);
    free(v->held_delay);
    free(v->held_level);
    free(v->transient_gain[0]);
    free(v->transient_gain[1]);
    free(v->bucket_head);
    free(v->next_entry);
    free(v);
}

driftfix_vocoder *driftfix_vocoder_create(int32_t size, int32_t hop, int32_t channels) {
    if (size < 16 || size % 2 != 0 || !factors_ok(size / 2) || hop <= 0 || size % hop != 0 || size / hop < 3 ||
        channels <= 0 || channels > 1024)
        return NULL;
    driftfix_vocoder *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    const int32_t bins = size / 2 + 1;
    v->size = size;
    v->hop = hop;
    v->channels = channels;
    v->bins = bins;
    v->forward = kiss_fftr_alloc(size, 0, NULL, NULL);
    v->inverse = kiss_fftr_alloc(size, 1, NULL, NULL);
    v->window = malloc(sizeof(float) * (size_t)size);
    v->scratch = malloc(sizeof(float) * (size_t)size);
    v->sum = malloc(sizeof(kiss_fft_cpx) * (size_t)bins);
    int ok = v->forward && v->inverse && v->window && v->scratch && v->sum;
    for (int i = 0; i < 3 && ok; i++) {
        v->slots[i].spectra = calloc((size_t)bins * (size_t)channels, sizeof(kiss_fft_cpx));
        v->slots[i].magnitude = calloc((size_t)bins, sizeof(float));
        v->slots[i].log_magnitude = calloc((size_t)bins, sizeof(float));
        v->slots[i].phase = calloc((size_t)bins, sizeof(float));
        ok = v->slots[i].spectra && v->slots[i].magnitude && v->slots[i].log_magnitude && v->slots[i].phase;
    }
    float **arrays[] = {&v->synthesis_phase, &v->frequency, &v->next_phase, &v->next_frequency,
                        &v->slope, &v->rotation_re, &v->rotation_im};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0] && ok; i++) {
        *arrays[i] = calloc((size_t)bins, sizeof(float));
        ok = *arrays[i] != NULL;
    }
    v->settled = ok ? malloc((size_t)bins) : NULL;
    v->transient = ok ? calloc((size_t)bins, 1) : NULL;
    v->held_delay = ok ? calloc((size_t)bins, sizeof(float)) : NULL;
    v->held_level = ok ? calloc((size_t)bins, sizeof(float)) : NULL;
    for (int i = 0; i < 2; i++) v->transient_gain[i] = ok ? malloc(sizeof(float) * (size_t)size) : NULL;
    v->bucket_head = ok ? malloc(sizeof(int32_t) * bucket_count) : NULL;
    v->next_entry = ok ? malloc(sizeof(int32_t) * 2 * (size_t)bins) : NULL;
    ok = ok && v->settled && v->transient && v->held_delay && v->held_level && v->transient_gain[0] &&
         v->transient_gain[1];
    if (!ok || !v->bucket_head || !v->next_entry) {
        driftfix_vocoder_destroy(v);
        return NULL;
    }
    for (int32_t i = 0; i < size; i++) v->window[i] = 0.5f - 0.5f * cosf(two_pi * (float)i / (float)size);
    // The inverse FFT is unnormalised (× size), and Hann² windows `hop` apart sum to 3/8 × size / hop.
    v->scale = 1.0f / ((float)size * 0.375f * (float)size / (float)hop);
    v->previous = 0;
    v->current = 1;
    v->ahead = 2;
    return v;
}

// ---- analysis -------------------------------------------------------------------------------------------------------

static void analyse(driftfix_vocoder *v, const float *frame, frame_slot *slot) {
    const int32_t n = v->size, half = n / 2, bins = v->bins, channels = v->channels;
    for (int32_t c = 0; c < channels; c++) {
        // Windowed and turned half a frame, so that phases are measured from the frame's centre.
        for (int32_t i = 0; i < half; i++) {
            v->scratch[i] = frame[(size_t)(i + half) * channels + c] * v->window[i + half];
            v->scratch[i + half] = frame[(size_t)i * channels + c] * v->window[i];
        }
        kiss_fftr(v->forward, v->scratch, slot->spectra + (size_t)c * bins);
    }
    kiss_fft_cpx *sum = v->sum;
    memcpy(sum, slot->spectra, sizeof(kiss_fft_cpx) * (size_t)bins);
    for (int32_t c = 1; c < channels; c++) {
        const kiss_fft_cpx *x = slot->spectra + (size_t)c * bins;
        for (int32_t k = 0; k < bins; k++) {
            sum[k].r += x[k].r;
            sum[k].i += x[k].i;
        }
    }
    for (int32_t k = 0; k < bins; k++) {
        const float m = sqrtf(sum[k].r * sum[k].r + sum[k].i * sum[k].i);
        slot->magnitude[k] = m;
        slot->log_magnitude[k] = fast_log(m + 1e-20f);
        slot->phase[k] = fast_atan2(sum[k].i, sum[k].r);
    }
}

// ---- phase-gradient heap integration --------------------------------------------------------------------------------

// A bucket queue on the log-magnitude (0.1 dB steps): entries 0..bins-1 are the previous frame's bins, bins..2bins-1
// this frame's. Order within a bucket does not matter to the integration. A bitmap of the non-empty buckets finds the
// strongest in a few words' scan.
typedef struct {
    int32_t *head, *next;
    uint64_t occupied[bucket_count / 64];
    float floor_log, step;
} bucket_queue;

static inline void queue_push(bucket_queue *q, int32_t entry, float log_magnitude) {
    int32_t key = (int32_t)((log_magnitude - q->floor_log) * q->step);
    key = key < 0 ? 0 : (key >= bucket_count ? bucket_count - 1 : key);
    q->next[entry] = q->head[key];
    q->head[key] = entry;
    q->occupied[key >> 6] |= 1ull << (key & 63);
}

static inline int32_t queue_pop(bucket_queue *q) {
    for (int word = bucket_count / 64 - 1; word >= 0; word--) {
        if (!q->occupied[word]) continue;
        const int32_t key = word * 64 + 63 - __builtin_clzll(q->occupied[word]);
        const int32_t entry = q->head[key];
        q->head[key] = q->next[entry];
        if (q->head[key] < 0) q->occupied[word] &= ~(1ull << (key & 63));
        return entry;
    }
    return -1;
}

static void integrate(driftfix_vocoder *v, const frame_slot *before, const frame_slot *now) {
    const int32_t bins = v->bins;
    const float half_hop = 0.5f * (float)v->hop;
    float strongest = 0;
    for (int32_t k = 0; k < bins; k++) strongest = fmaxf(strongest, fmaxf(now->magnitude[k], before->magnitude[k]));
    const float floor_magnitude = tolerance * strongest;
    bucket_queue q = {v->bucket_head, v->next_entry, {0}, fast_log(floor_magnitude + 1e-20f), 0};
    q.step = (float)(bucket_count - 1) / (fast_log(strongest + 1e-20f) - q.floor_log + 1e-6f);
    for (int32_t i = 0; i < bucket_count; i++) q.head[i] = -1;
    int32_t open = 0;
    for (int32_t k = 0; k < bins; k++) {
        const int quiet = now->magnitude[k] <= floor_magnitude;
        v->settled[k] = (uint8_t)quiet;
        if (quiet) {
            v->next_phase[k] = now->phase[k];
        } else {
            open++;
            queue_push(&q, k, before->log_magnitude[k]);
        }
    }
    while (open > 0) {
        const int32_t entry = queue_pop(&q);
        if (entry < 0) break;
        if (entry < bins) {
            // Forward in time from the previous frame, by the mean instantaneous frequency over one synthesis hop.
            const int32_t k = entry;
            if (v->settled[k]) continue;
            v->next_phase[k] = wrap(v->synthesis_phase[k] + half_hop * (v->frequency[k] + v->next_frequency[k]));
            v->settled[k] = 1;
            open--;
            queue_push(&q, bins + k, now->log_magnitude[k]);
        } else {
            // Across frequency to the neighbours, by the mean slope of the phase along frequency.
            const int32_t k = entry - bins;
            for (int side = -1; side <= 1; side += 2) {
                const int32_t j = k + side;
                if (j < 0 || j >= bins || v->settled[j]) continue;
                v->next_phase[j] = wrap(v->next_phase[k] + (float)side * 0.5f * (v->slope[k] + v->slope[j]));
                v->settled[j] = 1;
                open--;
                queue_push(&q, bins + j, now->log_magnitude[j]);
            }
        }
    }
}

// ---- transients -----------------------------------------------------------------------------------------------------

// The gain table for an analysis hop: a transient d samples from the centre is rendered by every frame that holds it at
// or past its centre, each at its own distance (d + j × advance), scaled by the stretch at synthesis. The plain overlap-
// add's sum over those frames' window products is what a stationary sound gets; the table makes theirs the same.
static const float *transient_gains(driftfix_vocoder *v, int32_t advance) {
    for (int i = 0; i < 2; i++)
        if (v->gain_advance[i] == advance) return v->transient_gain[i];
    // Replace the older table: the two most recent hops are kept.
    float *table = v->transient_gain[1];
    v->transient_gain[1] = v->transient_gain[0];
    v->gain_advance[1] = v->gain_advance[0];
    v->transient_gain[0] = table;
    v->gain_advance[0] = advance;
    const int32_t n = v->size, half = n / 2;
    const float stretch = (float)v->hop / (float)advance, reach = 0.5f * (float)advance;
    const float plain = 0.375f * (float)n / (float)v->hop;
    for (int32_t i = 0; i < n; i++) {
        float sum = 0;
        for (int32_t j = -n / advance - 1; j <= n / advance + 1; j++) {
            const float x = (float)(i - half) + (float)j * (float)advance, y = stretch * x;
            if (fabsf(x) >= (float)half || fabsf(y) >= (float)half || x > reach) continue;
            sum += (0.5f + 0.5f * cosf(two_pi * x / (float)n)) * (0.5f + 0.5f * cosf(two_pi * y / (float)n));
        }
        table[i] = sum > 1e-3f ? plain / sum : 0.0f;
    }
    return table;
}

// ---- synthesis ------------------------------------------------------------------------------------------------------

static void synthesise(driftfix_vocoder *v, float *out) {
    const int32_t n = v->size, half = n / 2, bins = v->bins, channels = v->channels;
    const frame_slot *before = &v->slots[v->previous];
    const frame_slot *now = &v->slots[v->current];
    const frame_slot *next = &v->slots[v->ahead];
    const int first = v->pushed == 2;
    const float lambda = hann_lambda * (float)n * (float)n;
    const int32_t advance = now->advance > 0 ? now->advance : 1;
    const int32_t span = first ? next->advance : now->advance + next->advance;
    const float per_span = span > 0 ? 1.0f / (float)span : 0.0f;
    const float reach = 0.5f * (float)advance;  // a transient within half an analysis hop of the centre is "at" it
    // The bin's own frequency times the analysis hop, k × advance mod size, kept in integers (exact whatever the hop;
    // advance < size, so one subtraction reduces it).
    int32_t *turn = v->next_entry;  // free until the integration
    for (int32_t k = 0, t = 0; k < bins; k++) {
        turn[k] = t;
        t += advance;
        t -= t >= n ? n : 0;
    }
    const float per_size = two_pi / (float)n, per_advance = 1.0f / (float)advance;
    const float slope_per_change = -lambda / (float)n;
    const float *restrict phase_now = now->phase, *restrict phase_before = before->phase;
    const float *restrict log_next = next->log_magnitude;
    const float *restrict log_before = first ? now->log_magnitude : before->log_magnitude;
    float *restrict frequency = v->next_frequency, *restrict slope = v->slope;
    for (int32_t k = 0; k < bins; k++) {
        const float bin_frequency = per_size * (float)k;
        const float deviation = wrap(phase_now[k] - phase_before[k] - per_size * (float)turn[k]) * per_advance;
        frequency[k] = bin_frequency + (first ? 0.0f : deviation);
        slope[k] = slope_per_change * (log_next[k] - log_before[k]) * per_span;
    }
    if (first) {
        memcpy(v->next_phase, now->phase, sizeof(float) * (size_t)bins);
    } else {
        integrate(v, before, now);
    }
    // Transients, then the turn every channel takes: the new phase less the analysed one.
    const float *restrict magnitude = now->magnitude, *restrict earlier = before->magnitude;
    const float *restrict later = next->magnitude;
    float *restrict phase = v->next_phase, *restrict turn_re = v->rotation_re, *restrict turn_im = v->rotation_im;
    if (first) {
        // No frame before it to rise from: nothing is a transient yet.
        for (int32_t k = 0; k < bins; k++) turn_re[k] = 1.0f;
    } else {
        // The group delay: an impulse d samples from the centre turns the phase by −2π d / size from bin to bin
        // (one bin's difference spans the whole frame without wrapping).
        const float delay_per_turn = -(float)n / two_pi;
        float *restrict delay = v->rotation_im;  // free until the turns
        for (int32_t k = 0; k < bins; k++) {
            const int32_t lo = k + 1 < bins ? k : k - 1;
            delay[k] = delay_per_turn * wrap(phase_now[lo + 1] - phase_now[lo]);
        }
        const float *restrict gains = transient_gains(v, advance);
        const float stretch = (float)v->hop / (float)advance;
        const float follow = 0.25f * (float)advance + 4.0f;  // how far the delay may stray from one hop back
        uint8_t *restrict transient = v->transient;
        float *restrict held_delay = v->held_delay, *restrict held_level = v->held_level;
        for (int32_t k = 0; k < bins; k++) {
            const float m = magnitude[k], d = delay[k];
            const int onset = (m > onset_rise * earlier[k]) | (later[k] > onset_rise * earlier[k]);
            const int carried = transient[k] & (fabsf(d - (held_delay[k] - (float)advance)) <= follow);
            const int moved = onset | carried;
            const int ahead = moved & (d > reach);
            if (ahead & !transient[k]) held_level[k] = earlier[k];
            int32_t at = (int32_t)round_near(d) + half;
            at = at < 0 ? 0 : (at >= n ? n - 1 : at);
            turn_re[k] = ahead ? fminf(1.0f, held_level[k] / (m + 1e-20f)) : (moved ? gains[at] : 1.0f);
            // At the map's place: d from the analysis centre becomes stretch × d from the synthesis centre.
            phase[k] = moved ? phase_now[k] - per_size * (float)k * (stretch - 1.0f) * d : phase[k];
            transient[k] = (uint8_t)moved;
            held_delay[k] = d;
        }
    }
    for (int32_t k = 0; k < bins; k++) {
        float sine, cosine;
        fast_sincos(phase[k] - phase_now[k], &sine, &cosine);
        const float gain = turn_re[k];
        turn_re[k] = gain * cosine;
        turn_im[k] = gain * sine;
    }
    for (int32_t ch = 0; ch < channels; ch++) {
        const kiss_fft_cpx *x = now->spectra + (size_t)ch * bins;
        kiss_fft_cpx *y = v->sum;  // reused as the turned spectrum
        for (int32_t k = 0; k < bins; k++) {
            y[k].r = x[k].r * v->rotation_re[k] - x[k].i * v->rotation_im[k];
            y[k].i = x[k].r * v->rotation_im[k] + x[k].i * v->rotation_re[k];
        }
        kiss_fftri(v->inverse, y, v->scratch);
        for (int32_t i = 0; i < half; i++) {
            out[(size_t)(i + half) * channels + ch] = v->scratch[i] * v->window[i + half] * v->scale;
            out[(size_t)i * channels + ch] = v->scratch[i + half] * v->window[i] * v->scale;
        }
    }
    // This frame's phases and frequencies are the next one's starting point.
    float *swap = v->synthesis_phase;
    v->synthesis_phase = v->next_phase;
    v->next_phase = swap;
    swap = v->frequency;
    v->frequency = v->next_frequency;
    v->next_frequency = swap;
}

int32_t driftfix_vocoder_push(driftfix_vocoder *v, const float *frame, int32_t advance, float *out) {
    frame_slot *slot = &v->slots[v->ahead];
    analyse(v, frame, slot);
    slot->advance = advance;
    v->pushed++;
    if (v->pushed == 1) {
        // Nothing to synthesise yet: this frame becomes the current one.
        const int spare = v->current;
        v->current = v->ahead;
        v->ahead = spare;
        return 0;
    }
    synthesise(v, out);
    const int spare = v->previous;
    v->previous = v->current;
    v->current = v->ahead;
    v->ahead = spare;
    return 1;
}

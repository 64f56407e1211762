/* ss_limits.h - the bounds that every layer checks against, in one place. */
#ifndef SS_LIMITS_H
#define SS_LIMITS_H

/* Longest path stallsim keeps (scenario files, traces, output folders). */
#define SS_PATH_MAX 4096

/* GPUs a trace may have. */
#define SS_MAX_GPUS 1000000

/* The largest magnitude of a trace's times and durations, in seconds (31.7 years): a value
 * beyond it is no time of a training run (1e300 in a damaged or hand-edited trace made
 * infinite standard deviations and a 4e298 % fidelity, unsaid) */
#define SS_TRACE_MAX_SECONDS 1e9

/* Loader workers per GPU that a trace may record and a scenario may ask for. */
#define SS_MAX_WORKERS 4096

/* Prefetch factor (batches per worker) a scenario may ask for. */
#define SS_MAX_PREFETCH 1024

/* Scenarios one sweep may have (the measured run not counted). */
#define SS_MAX_SCENARIOS 100000

/* Items one [scenarios] list may have (the sweep is their product, at most SS_MAX_SCENARIOS). */
#define SS_LIST_MAX 64

/* Bytes of a scenario's terminal label (ss_model_ops.label_of), its terminator included:
 * room for every setting at full precision and a heal set (SS_HEAL_TEXT_MAX). */
#define SS_LABEL_MAX 192

/* Bytes of a scenario's name (ss_model_ops.name_of), its terminator included: the same. */
#define SS_NAME_MAX 256
/* Bytes of a scenario's model-specific resolved settings (each model checks its type fits) */
#define SS_MODEL_SETTINGS_MAX 512

/* Seconds: a loader's start-up (from an epoch's start to its first batch) longer than this
 * is said, by `import pytorch` and by `run` (forked workers start in milliseconds; spawned
 * ones import torch, about a second each on 2 cores). */
#define SS_STARTUP_NOTE_S 0.5

/* "Every epoch" where an epoch number is expected (an epoch is a 32-bit integer, which
 * may be negative). */
#define SS_EPOCH_ALL (-(1L << 40))

#endif

/* ss_models.c - the table of replay models, one entry per row of SS_MODEL_LIST. */
#include "ss_model.h"
#include "ss_model_ids.h"

#define SS_MODEL_DECLARE_(id, name, ops) extern const ss_model_ops ops;
SS_MODEL_LIST(SS_MODEL_DECLARE_)
#undef SS_MODEL_DECLARE_

#define SS_MODEL_ENTRY_(id, name, ops) &ops,
static const ss_model_ops *const table[SS_NMODELS] = {SS_MODEL_LIST(SS_MODEL_ENTRY_)};
#undef SS_MODEL_ENTRY_

const ss_model_ops *ss_model_get(ss_model m) { return table[m]; }

/* ss_model_ids.h - the list of replay models, by id and name: the one row a new model
 * adds (besides its own file in sim/models/). The scenario file names models by these
 * names; sim/models/ss_models.c turns each row into the model's entry of the table. */
#ifndef SS_MODEL_IDS_H
#define SS_MODEL_IDS_H

/* X(ID, name, ops): SS_MODEL_<ID> is the id, "name" the name in scenario files and
 * summaries, ops the model's const ss_model_ops (sim/models/ss_model.h), defined in its
 * file sim/models/ss_model_<name>.c. The measured run is model 0 of every sweep. A build
 * may add rows through SS_EXTRA_MODEL_LIST (the test tree adds a toy model this way). */
#ifndef SS_EXTRA_MODEL_LIST
#define SS_EXTRA_MODEL_LIST(X)
#endif
#define SS_MODEL_LIST(X)                                \
    X(MEASURED, "measured", ss_model_measured)          \
    X(INDEPENDENT, "independent", ss_model_independent) \
    X(PIPELINE, "pipeline", ss_model_pipeline)          \
    X(WAITS, "waits", ss_model_waits)                   \
    SS_EXTRA_MODEL_LIST(X)

#define SS_MODEL_ID_(id, name, ops) SS_MODEL_##id,
typedef enum { SS_MODEL_LIST(SS_MODEL_ID_) SS_NMODELS } ss_model;
#undef SS_MODEL_ID_

#endif

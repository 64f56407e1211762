/* ss_models.c - the table of replay models, one entry per row of SS_MODEL_LIST, and what
 * is done for every model of it (options, note labels). */
#include "ss_model.h"
#include "ss_model_ids.h"
#include "ss_parts.h"

#define SS_MODEL_DECLARE_(id, name, ops) extern const ss_model_ops ops;
SS_MODEL_LIST(SS_MODEL_DECLARE_)
#undef SS_MODEL_DECLARE_

#define SS_MODEL_ENTRY_(id, name, ops) &ops,
static const ss_model_ops *const table[SS_NMODELS] = {SS_MODEL_LIST(SS_MODEL_ENTRY_)};
#undef SS_MODEL_ENTRY_

const ss_model_ops *ss_model_get(ss_model m) { return table[m]; }

const char ss_model_heal_set_legend[] =
    "heal=G+H, heal=G-H: those GPUs healed together, each taking the median of the GPUs not healed";

const char *ss_model_heal_legend(const ss_model_ops *o)
{
    return o->heal_legend ? o->heal_legend
                          : "heal=G: GPU G's fetch times (and loader settings) become the other GPUs' median";
}

void ss_models_for_eval_loader(ss_config *c)
{
    for (int m = 0; m < SS_NMODELS; m++)
        if (table[m]->for_eval_loader) table[m]->for_eval_loader(c);
}

unsigned ss_models_quiet_mask(const ss_config *c, const ss_calib *cal, int *asked)
{
    unsigned mask = 0;
    int any = 0;
    for (int m = 0; m < SS_NMODELS && m < 32; m++) {
        const int q = table[m]->quiet_host ? table[m]->quiet_host(c, cal) : 0;
        if (q > 0) mask |= 1u << m;
        any |= q < 0;
    }
    if (asked) *asked = any;
    return mask;
}

ss_model ss_model_measured_id(void)
{
    for (int m = 0; m < SS_NMODELS; m++)
        if (table[m]->measured_run) return (ss_model)m;
    return (ss_model)0;
}

ss_status ss_models_register_options(void)
{
    for (int m = 0; m < SS_NMODELS; m++)
        if (table[m]->options) {
            ss_status st = ss_config_add_options(table[m]->options);
            if (st != SS_OK) return st;
        }
    return SS_OK;
}

const char *ss_model_note_label(const ss_scenario *sc, int nsc, const ss_scenario *s)
{
    static char buf[SS_LABEL_MAX];
    char shared[SS_LABEL_MAX] = "", row[SS_LABEL_MAX];
    int rows = 0; /* the "key=value" parts every row of the model has, one row at a time */
    for (int j = 0; j < nsc && (rows == 0 || shared[0]); j++) {
        if (sc[j].model != s->model || sc[j].model == ss_model_measured_id()) continue;
        table[sc[j].model]->label_of(&sc[j], row, sizeof row);
        if (rows++ == 0) {
            const char *self[2] = {row, row};
            ss_parts_shared(self, 2, ' ', 1, shared, sizeof shared);
        } else {
            ss_parts_keep(shared, row, ' ');
        }
    }
    table[s->model]->label_of(s, row, sizeof row);
    ss_parts_drop(row, rows > 1 ? shared : "", ' ', buf, sizeof buf);
    return buf;
}

const char *ss_model_waits_only_name(void)
{
    for (int m = 0; m < SS_NMODELS; m++) {
        const ss_model_ops *o = ss_model_get((ss_model)m);
        if (o->waits_only && !o->measured_run) return o->name;
    }
    return NULL;
}
